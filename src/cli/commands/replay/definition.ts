import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples, integer } from '../../parsers.js';
import {
  addJsonOption,
  addSecretOptions,
  addVerificationHeaderOptions,
  addDeliveryTimeoutOption,
} from '../../common-options.js';
import { addMoreExamples, COMMAND_GROUPS, helpTable, layOutOptions } from '../../help-layout.js';

function replayCommand(program: Command) {
  const command = program
    .command('replay')
    .helpGroup(COMMAND_GROUPS.local)
    .summary('send captured deliveries again, re-signed')
    .description(
      'Replay deliveries captured by `ledgerhook listen --capture` to --to TARGET, byte-exact. A capture file never chooses the target; a delivery is re-signed only when its original token verifies with the secret now. Exit 0 only if every answer was 2xx; 3 if nothing answers.',
    )
    .argument('<file>', 'capture file written by listen --capture')
    .option('--to <target>', 'where to send (required): a URL, host:port, :port, or a port')
    .option(
      '--failed',
      'only deliveries whose last forward attempt failed (listen --forward-to/--retry); not those still due',
    )
    .option(
      '--owed',
      'only forwards listen --retry still owed a route when it stopped (`captures list --owed`); each sent one is recorded in FILE as an attempt of that route, so that no listen resumes it again',
    )
    .option('--route <name>', 'with --failed or --owed: only forwards of this route')
    .option('--id <id>', 'only the delivery with this id')
    .option('--index <n>', 'only the delivery at this 0-based position', integer('--index', { min: 0 }))
    .option('--last <n>', 'only the last N (after the other filters)', integer('--last', { min: 1 }))
    .option('--type <type>', 'only ENTITY_UPDATE or LIFECYCLE_EVENT (any case)')
    .option('--event <name>', 'only this LIFECYCLE_EVENT (a name it does not know gets a suggestion)')
    .option('--user <id>', 'only deliveries for this userId')
    .option('--as-captured', 'send the original verification header unchanged (no re-signing)')
    .option('--include-unverified', 'also send deliveries captured by a listener that had no secret (never verified)')
    .option(
      '--include-refused',
      'also send deliveries the listener refused, with their original token (never re-signed)',
    )
    .option('--resign-refused', 'with --include-refused: re-sign the refused ones too, so that they verify (warns)')
    .option('--dry-run', 'list what would be sent, and how (re-signed or as captured); send nothing')
    .option(
      '--edit',
      'edit the body of the one selected delivery in $EDITOR (else $VISUAL, else vi), then send it re-signed as a new delivery linked to the original',
    )
    .option(
      '--capture <file>',
      'with --edit: append the sent delivery (editedFrom: the original id) here; default: <file>',
    )
    .option('--concurrency <n>', 'deliveries in flight at once', integer('--concurrency', { min: 1, max: 1000 }), 1)
    .option('--delay <ms>', 'pause between deliveries (keeps the captured order)', integer('--delay', { min: 0 }));
  return addJsonOption(addVerificationHeaderOptions(addSecretOptions(addDeliveryTimeoutOption(command))));
}

export type ReplayCommandOptions = OptionsOf<typeof replayCommand> & { file: string };

export function defineReplay(program: Command, run: RunCommand): void {
  const command = layOutOptions(
    replayCommand(program),
    ['--to', '--failed', '--id', '--last', '--event', '--dry-run', '--edit', '--secret-file', '--env', '--json'],
    {
      'Choosing deliveries:': [
        '--owed',
        '--route',
        '--index',
        '--type',
        '--user',
        '--as-captured',
        '--include-unverified',
        '--include-refused',
        '--resign-refused',
      ],
      'Sending:': [
        '--capture',
        '--concurrency',
        '--delay',
        '--timeout',
        '--secret',
        '--header-name',
        '--verification-prefix',
      ],
    },
  )
    .addHelpText(
      'after',
      helpTable('Which deliveries are sent, and how:', [
        [
          'verified',
          're-signed with a fresh iat, so that an old capture still verifies (--as-captured: the original token)',
        ],
        [
          'refused',
          'skipped unless --include-refused: then sent with their original token (--resign-refused re-signs them, with a warning)',
        ],
        ['unverified', 'captured by a listener without a secret: sent only with --include-unverified'],
        [
          'edited',
          "with --edit: checked against the webhook body shapes (invalid: exit 2, nothing sent), re-signed with the chosen environment's secret, recorded in the capture with editedFrom",
        ],
        [
          'the header',
          '--header-name, else LEDGERHOOK_HEADER_NAME, else the stored headerName, else the one each delivery was captured with',
        ],
      ]),
    )
    .addHelpText(
      'after',
      examples(
        'ledgerhook replay deliveries.jsonl --to http://localhost:3000/webhooks',
        'ledgerhook replay deliveries.jsonl --to 3000 --last 5 --event INVOICE_VIEWED',
        'ledgerhook replay deliveries.jsonl --failed --to :3000   # re-send what listen could not deliver',
        'EDITOR="code --wait" ledgerhook replay deliveries.jsonl --to 3000 --last 1 --edit   # edit the body, re-sign, send',
      ),
    );
  addMoreExamples(
    command,
    'ledgerhook replay deliveries.jsonl --owed --route INVOICE_* --to :3001   # what listen still owed a route that moved',
    'ledgerhook replay deliveries.jsonl --to 3000 --id dlv_lx2k9a1b2c3d --as-captured   # test expiry handling',
    'ledgerhook replay deliveries.jsonl --to 3000 --include-refused --dry-run   # what would go out, and how',
    'ledgerhook replay deliveries.jsonl --to 3000 --include-unverified   # captured by listen without a secret',
    'ledgerhook replay deliveries.jsonl --to 3000 --id dlv_lx2k9a1b2c3d --include-refused --resign-refused   # warns',
  ).action((file, options) => run(() => import('./replay.js'), { ...options, file }));
}
