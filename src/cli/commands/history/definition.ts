import type { Command } from '@commander-js/extra-typings';
import { DEFAULT_OUT_DIR } from '../../../defaults.js';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { collect, examples, integer } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { addStoreOption } from '../store/definition.js';
import { TYPE_FILTER_HELP } from '../sync/definition.js';
import { COMMAND_GROUPS } from '../../help-layout.js';

function historyCommand(program: Command) {
  const command = program
    .command('history')
    .helpGroup(COMMAND_GROUPS.sync)
    .summary("an item's versions and where each came from")
    .description(
      "Every recorded version of an item, oldest first: when it was committed, by which run, caused by a sync run, a webhook (with its delivery id) or a reconcile, the lastUpdatedDate of the page that brought it, and what changed. Without ID, the dataset's latest changes; with --deleted, the items removed while --keep-deleted was on, with when and why they left (deleted, or left_filter: no longer matching the dataset's filter). Kept --history-days (sync's; default 90); full reads replace a dataset and are not itemised.",
    )
    .argument('<target>', 'an entity name (expense, invoice...) or a path (/expenses/expenses)')
    .argument('[id]', 'the item id')
    .option('--deleted', 'list the tombstones instead')
    .option('--user <id>', "a user's dataset as `listen --sync` keeps it")
    .option('--type <type>', TYPE_FILTER_HELP)
    .option('--filter <key=value>', 'any other query parameter of the dataset (repeatable)', collect)
    .option('--out <dir>', 'directory of the JSON files', DEFAULT_OUT_DIR)
    .option(
      '--last <n>',
      'without ID: how many of the latest changes',
      integer('--last', { min: 1, max: 100_000 }),
      50,
    );
  return addJsonOption(addStoreOption(command, 'Postgres instead of local files'));
}

export type HistoryCommandOptions = OptionsOf<typeof historyCommand> & { target: string; id: string | undefined };

export function defineHistory(program: Command, run: RunCommand): void {
  historyCommand(program)
    .addHelpText(
      'after',
      examples(
        'ledgerhook history expenses 7',
        'ledgerhook history /expenses/expenses 7 --type PENDING --json',
        'ledgerhook history expenses --deleted --type PENDING',
        'ledgerhook history invoices --user user_42 --out ./data --last 20',
      ),
    )
    .action((target, id, options) => run(() => import('./history.js'), { ...options, target, id }));
}
