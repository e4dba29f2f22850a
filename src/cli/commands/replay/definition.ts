import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples, integer } from '../../parsers.js';
import {
  addJsonOption,
  addSecretOptions,
  addVerificationHeaderOptions,
  addDeliveryTimeoutOption,
} from '../../common-options.js';

function replayCommand(program: Command) {
  const command = program
    .command('replay')
    .summary('replay captured deliveries into your app, re-signed so they still verify')
    .description(
      'Replay deliveries captured by `ledgerhook listen --capture` to --to TARGET, byte-exact (--failed: those listen could not forward; --owed: those it still owed a route when it stopped). The target comes only from --to: a capture file never chooses where a delivery goes. Only deliveries that listen verified at receipt are sent by default, each re-signed with a fresh iat so that an old capture still verifies; --as-captured sends the original token unchanged. A delivery is re-signed only when its original token verifies with the secret now (signature and body hash; not its age), whatever the file says: otherwise nothing is sent (exit 1). Deliveries listen refused are skipped unless --include-refused (then sent with their original token; --resign-refused re-signs those whose token verifies now, with a warning); deliveries captured without a secret need --include-unverified. Every line shows the original verdict. --edit opens the body of one delivery in an editor, checks the result against the webhook body shapes (invalid: exit 2, nothing sent), re-signs it with the secret of the chosen environment (never the original token) and records what was sent, with editedFrom, in the capture file. The header is --header-name, else LEDGERHOOK_HEADER_NAME, else the stored headerName, else the one each delivery was captured with. Exit 0 only if every answer was 2xx; 3 if nothing answers.',
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
    .option('--event <name>', 'only this LIFECYCLE_EVENT (checked against the catalogue)')
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
  replayCommand(program)
    .addHelpText(
      'after',
      examples(
        'ledgerhook replay deliveries.jsonl --to http://localhost:3000/webhooks',
        'ledgerhook replay deliveries.jsonl --to 3000 --last 5 --event INVOICE_VIEWED',
        'ledgerhook replay deliveries.jsonl --failed --to :3000   # re-send what listen could not deliver',
        'ledgerhook replay deliveries.jsonl --owed --route INVOICE_* --to :3001   # what listen still owed a route that moved',
        'ledgerhook replay deliveries.jsonl --to 3000 --id dlv_lx2k9a1b2c3d --as-captured   # test expiry handling',
        'ledgerhook replay deliveries.jsonl --to 3000 --include-refused --dry-run   # what would go out, and how',
        'ledgerhook replay deliveries.jsonl --to 3000 --include-unverified   # captured by listen without a secret',
        'ledgerhook replay deliveries.jsonl --to 3000 --id dlv_lx2k9a1b2c3d --include-refused --resign-refused   # warns',
        'EDITOR="code --wait" ledgerhook replay deliveries.jsonl --to 3000 --last 1 --edit   # edit the body, re-sign, send',
      ),
    )
    .action((file, options) => run(() => import('./replay.js'), { ...options, file }));
}
