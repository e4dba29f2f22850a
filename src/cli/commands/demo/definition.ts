import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { COMMAND_GROUPS } from '../../help-layout.js';

function demoCommand(program: Command) {
  const command = program
    .command('demo')
    .helpGroup(COMMAND_GROUPS.local)
    .summary('the whole loop in seconds, no account needed')
    .description(
      "Run the whole loop locally, with no account and no network: a mock of the API, a full sync of a few datasets, data changing on the service, signed webhooks to a verifying receiver, and the incremental syncs they trigger. Exit 0 only if the local copy equals the mock's data at the end.",
    )
    .option('--out <dir>', 'where to put the files (default: a new temporary directory)');
  return addJsonOption(command);
}

export type DemoCommandOptions = OptionsOf<typeof demoCommand>;

export function defineDemo(program: Command, run: RunCommand): void {
  demoCommand(program)
    .addHelpText('after', examples('ledgerhook demo', 'ledgerhook demo --out ./demo-data --json'))
    .action((options) => run(() => import('./demo.js'), options));
}
