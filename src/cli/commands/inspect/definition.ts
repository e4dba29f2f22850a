import type { Command } from 'commander';
import { DEFAULT_INSPECTOR_PORT, DEFAULT_TOLERANCE_SECONDS } from '../../../defaults.js';
import type { RunCommand } from '../../runner.js';
import type { SecretFlags } from '../../resolve-settings.js';
import { examples, integer } from '../../parsers.js';
import { addJsonOption, addSecretOptions, addVerificationPrefixOption } from '../../common-options.js';

export interface InspectCommandOptions extends SecretFlags {
  file: string;
  port: number;
  host?: string | undefined;
  to?: string | undefined;
  tolerance: number;
  json?: boolean | undefined;
}

export function defineInspect(program: Command, run: RunCommand): void {
  const command = program
    .command('inspect')
    .summary('open the inspector page over a capture file (offline)')
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
    .option(
      '--tolerance <seconds>',
      'maximum webhook age for the checklist',
      integer('--tolerance', { min: 0 }),
      DEFAULT_TOLERANCE_SECONDS,
    );
  addSecretOptions(command, { repeatable: true });
  addVerificationPrefixOption(command);
  addJsonOption(command, 'print one JSON line { kind: "inspecting", inspectorUrl, deliveries } when ready');
  command
    .addHelpText(
      'after',
      examples(
        'ledgerhook inspect deliveries.jsonl',
        'ledgerhook inspect deliveries.jsonl --port 0 --secret-file sandbox.secret --to http://localhost:3000/webhooks',
      ),
    )
    .action((file: string, options: Omit<InspectCommandOptions, 'file'>) =>
      run(() => import('./inspect.js'), { ...options, file }),
    );
}
