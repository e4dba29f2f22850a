import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { addStoreOption } from '../store/definition.js';
import { COMMAND_GROUPS } from '../../help-layout.js';

function freshnessCommand(program: Command) {
  const command = program
    .command('freshness')
    .helpGroup(COMMAND_GROUPS.sync)
    .summary('how current webhooks keep each dataset')
    .description(
      'Per synced dataset, from the state that `listen --sync`, the worker and `reconcile` record: webhook runs and how many brought no change, p50/p95 time from a webhook to its data committed (latest 256 runs), changes that arrived with no webhook announcing them (found and repaired by `reconcile --repair`), and the last reconcile. With --capture, the deliveries received per user and dataset too.',
    )
    .option('--capture <file>', 'a capture file of `listen --capture`: count the verified ENTITY_UPDATEs per dataset');
  return addJsonOption(addStoreOption(command, 'Postgres instead of the local state'));
}

export type FreshnessCommandOptions = OptionsOf<typeof freshnessCommand>;

export function defineFreshness(program: Command, run: RunCommand): void {
  freshnessCommand(program)
    .addHelpText(
      'after',
      examples(
        'ledgerhook freshness',
        'ledgerhook freshness --capture deliveries.jsonl',
        'ledgerhook freshness --store postgres://127.0.0.1:5432/app --json',
      ),
    )
    .action((options) => run(() => import('./freshness.js'), options));
}
