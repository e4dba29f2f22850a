import type { Command } from '@commander-js/extra-typings';
import { DEFAULT_INSPECTOR_PORT } from '../../../defaults.js';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples, integer } from '../../parsers.js';
import {
  addJsonOption,
  addRedactOption,
  addSecretOptions,
  addVerificationPrefixOption,
  storedToleranceOption,
} from '../../common-options.js';
import { COMMAND_GROUPS, layOutOptions } from '../../help-layout.js';

function inspectCommand(program: Command) {
  const command = program
    .command('inspect')
    .helpGroup(COMMAND_GROUPS.local)
    .summary('open the inspector page over a capture')
    .description(
      'Serve the inspector page over a capture file written by `listen --capture`: every delivery with its verification checklist, decoded token, headers and body; replay and copy-as-curl buttons. The page listens on loopback and its URL carries a random token: open the URL printed. With a secret, the checklist is re-run as of each arrival and valid deliveries can be replayed re-signed (the secret stays in this process). Ctrl-C stops it.',
    )
    .argument('<file>', 'capture file written by listen --capture')
    .option(
      '--port <port>',
      `port of the page (0 picks a free one)`,
      integer('--port', { min: 0, max: 65535 }),
      DEFAULT_INSPECTOR_PORT,
    )
    .option('--host <host>', 'interface to bind (default 127.0.0.1; anything else exposes captured deliveries)')
    .option('--to <target>', 'default replay target shown in the page (a URL, host:port, :port or a port)')
    .option(...storedToleranceOption('maximum webhook age for the checklist'));
  const redacting = addRedactOption(
    command,
    'show personal data (e-mail addresses, names, descriptions, account and card numbers, IBANs, and these field names or JSON paths; `defaults` for none beside them) as keyed hashes, e.g. for a screen share',
  );
  return addJsonOption(
    addVerificationPrefixOption(addSecretOptions(redacting, { repeatable: true })),
    'print one JSON line { kind: "inspecting", inspectorUrl, deliveries } when ready',
  );
}

export type InspectCommandOptions = OptionsOf<typeof inspectCommand> & { file: string };

export function defineInspect(program: Command, run: RunCommand): void {
  layOutOptions(inspectCommand(program), ['--port', '--to', '--redact', '--secret-file', '--env', '--json'])
    .addHelpText(
      'after',
      examples(
        'ledgerhook inspect deliveries.jsonl',
        'ledgerhook inspect deliveries.jsonl --port 0 --secret-file sandbox.secret --to http://localhost:3000/webhooks',
        'ledgerhook inspect ./bug-123 --redact defaults   # a recording directory: its deliveries',
      ),
    )
    .action((file, options) => run(() => import('./inspect.js'), { ...options, file }));
}
