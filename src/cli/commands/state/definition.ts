import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { addStoreOption } from '../store/definition.js';
import { addDatasetOptions } from '../sync/definition.js';
import { COMMAND_GROUPS } from '../../help-layout.js';

function listCommand(state: Command) {
  return addJsonOption(
    addStoreOption(
      state.command('list').description('every dataset sync remembers'),
      'Postgres instead of local files',
    ),
  );
}

function showCommand(state: Command) {
  return addJsonOption(
    addDatasetOptions(
      state
        .command('show')
        .description('what is remembered of one dataset (any base URL unless --base-url)')
        .argument('<target>', 'an entity name (expense, invoice...) or a path (/expenses/expenses)'),
    ),
  );
}

function resetCommand(state: Command) {
  return addJsonOption(
    addDatasetOptions(
      state
        .command('reset')
        .description('forget a dataset (or --all), so the next sync is a full one; files are kept')
        .argument('[target]', 'an entity name (expense, invoice...) or a path (/expenses/expenses)')
        .option('--all', 'forget every dataset'),
    ),
  );
}

export type StateCommandOptions =
  | (OptionsOf<typeof listCommand> & { action: 'list' })
  | (OptionsOf<typeof showCommand> & { action: 'show'; target: string })
  | (OptionsOf<typeof resetCommand> & { action: 'reset'; target: string | undefined });

export function defineState(program: Command, run: RunCommand): void {
  const state = program
    .command('state')
    .helpGroup(COMMAND_GROUPS.sync)
    .summary('show or reset what sync remembers')
    .description(
      'What sync remembers of each dataset: base URL, path and filter, the lastUpdatedDate to send next, when it ran, how many items, which file. Reset makes the next sync of a dataset a full one.',
    )
    .addHelpText(
      'after',
      examples(
        'ledgerhook state list',
        'ledgerhook state show expenses --type PENDING --json',
        'ledgerhook state reset invoices',
        'ledgerhook state reset --all',
        'ledgerhook help state reset   # one subcommand in full',
        'ledgerhook state list --store postgres://127.0.0.1:5432/app',
      ),
    );
  const load = () => import('./state.js');
  listCommand(state)
    .addHelpText('after', examples('ledgerhook state list', 'ledgerhook state list --json'))
    .action((options) => run(load, { action: 'list', ...options }));
  showCommand(state)
    .addHelpText(
      'after',
      examples(
        'ledgerhook state show expenses',
        'ledgerhook state show /expenses/expenses --type PENDING --json',
        'ledgerhook state show invoices --base-url http://127.0.0.1:4010/rest/v5',
      ),
    )
    .action((target, options) => run(load, { action: 'show', target, ...options }));
  resetCommand(state)
    .addHelpText(
      'after',
      examples(
        'ledgerhook state reset invoices',
        'ledgerhook state reset /expenses/expenses --type PENDING',
        'ledgerhook state reset --all --env production',
      ),
    )
    .action((target, options) => run(load, { action: 'reset', target, ...options }));
}
