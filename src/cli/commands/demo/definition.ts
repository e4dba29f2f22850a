import type { Command } from 'commander';
import type { RunCommand } from '../../runner.js';
import { examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';

export interface DemoCommandOptions {
  out?: string;
  json?: boolean;
}

export function defineDemo(program: Command, run: RunCommand): void {
  const command = program
    .command('demo')
    .summary('see the whole loop in seconds: mock API, sync, webhooks, incremental sync')
    .description(
      "Run the whole loop locally, with no account and no network: a mock of the API, a full sync of a few datasets, data changing on the service, signed webhooks to a verifying receiver, and the incremental syncs they trigger. Exit 0 only if the local copy equals the mock's data at the end.",
    )
    .option('--out <dir>', 'where to put the files (default: a new temporary directory)');
  addJsonOption(command);
  command
    .addHelpText('after', examples('ledgerhook demo', 'ledgerhook demo --out ./demo-data --json'))
    .action((options: DemoCommandOptions) => run(() => import('./demo.js'), options));
}
