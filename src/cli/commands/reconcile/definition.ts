import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples, integer } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { addDatasetOptions, addReadOptions } from '../sync/definition.js';
import { COMMAND_GROUPS, layOutOptions } from '../../help-layout.js';

function reconcileCommand(program: Command) {
  const command = program
    .command('reconcile')
    .helpGroup(COMMAND_GROUPS.sync)
    .summary('prove nothing was missed, and repair it')
    .description(
      'Read a dataset in full from the API, without touching the stored copy, and compare the two by id and content: missing (on the server, not stored), extra (stored, gone from the server), different. --repair applies the difference in one commit. Exit 0 when equal, 1 when a difference was found (also when --repair fixed it: a difference means a change arrived without its webhook), 2 for usage.',
    )
    .argument('[target]', 'an entity name (expense, invoice...) or a path (/expenses/expenses)')
    .option('--all', 'every dataset synced from that server into the store');
  const read = addReadOptions(command)
    .option('--repair', 'apply the difference to the stored copy (one commit; the next sync goes on from this read)')
    .option('--user <id>', "a user's datasets as `listen --sync` keeps them (give that user's token)")
    .option(
      '--keep-deleted',
      'with --repair: keep what the repair removes as tombstones (`ledgerhook history --deleted`)',
    );
  return addJsonOption(
    addDatasetOptions(read).option(
      '--concurrency <n>',
      'datasets read at once with --all',
      integer('--concurrency', { min: 1, max: 32 }),
      2,
    ),
  );
}

export type ReconcileCommandOptions = OptionsOf<typeof reconcileCommand> & { target: string | undefined };

export function defineReconcile(program: Command, run: RunCommand): void {
  layOutOptions(
    reconcileCommand(program),
    ['--all', '--repair', '--out', '--token-file', '--user', '--store', '--type', '--base-url', '--env', '--json'],
    { 'Requests:': ['--limit', '--concurrency', '--timeout', '--max-wait', '--max-pages', '--max-response-bytes'] },
  )
    .addHelpText(
      'after',
      examples(
        'ledgerhook reconcile expenses',
        'ledgerhook reconcile expenses --repair',
        'ledgerhook reconcile invoices --user user_42 --token-file user_42.token --out ./data',
        'ledgerhook reconcile /expenses/expenses --type PENDING --json | jq .missing',
        'ledgerhook reconcile --all --store postgres://127.0.0.1:5432/app',
      ),
    )
    .action((target, options) => run(() => import('./reconcile.js'), { ...options, target }));
}
