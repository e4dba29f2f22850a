import type { Command } from '@commander-js/extra-typings';
import { ENVIRONMENTS } from '../../../settings/environments.js';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { decimal, examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { COMMAND_GROUPS } from '../../help-layout.js';

function statusCommand(program: Command) {
  const command = program
    .command('status')
    .helpGroup(COMMAND_GROUPS.setup)
    .summary('what is set up, and whether it works')
    .description(
      'Say, for each environment (sandbox, production, local), which settings are set (never their values) and where each comes from, whether the base URL and token work (one request each), where the sync state, the data and captures live, whether a `ledgerhook listen` is running here, and which optional packages are installed. Exit 0 when the chosen environment is ready to sync, 1 (with what to do) when it is not.',
    );
  return addJsonOption(
    command
      .addOption(
        command
          .createOption(
            '--env <name>',
            'the environment that must be ready to sync (default: LEDGERHOOK_ENV, else sandbox once anything is configured for sandbox or production, else local)',
          )
          .choices(ENVIRONMENTS),
      )
      .option(
        '--timeout <seconds>',
        'how long each token check waits for its answer',
        decimal('--timeout', { min: 0.1, max: 600 }),
        10,
      ),
  );
}

export type StatusCommandOptions = OptionsOf<typeof statusCommand>;

export function defineStatus(program: Command, run: RunCommand): void {
  statusCommand(program)
    .addHelpText(
      'after',
      examples('ledgerhook status', 'ledgerhook status --env production', 'ledgerhook status --json | jq .ready'),
    )
    .action((options) => run(() => import('./status.js'), options));
}
