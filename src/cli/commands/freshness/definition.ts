import type { Command } from 'commander';
import type { RunCommand } from '../../runner.js';
import { examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { addStoreOption } from '../store/definition.js';

export interface FreshnessCommandOptions {
  store?: string;
  capture?: string;
  json?: boolean;
}

export function defineFreshness(program: Command, run: RunCommand): void {
  const command = program
    .command('freshness')
    .summary('how current webhooks keep each dataset: p50/p95 to committed data, missed webhooks, last reconcile')
    .description(
      'Per synced dataset, from the state that `listen --sync` and `reconcile` record: webhook runs and how many brought no change, p50/p95 time from a webhook to its data committed (latest 256 runs), changes that arrived with no webhook announcing them (found and repaired by `reconcile --repair`), and the last reconcile. With --capture, the deliveries received per user and dataset too.',
    )
    .option('--capture <file>', 'a capture file of `listen --capture`: count the verified ENTITY_UPDATEs per dataset');
  addStoreOption(command, 'Postgres instead of the local state');
  addJsonOption(command);
  command
    .addHelpText(
      'after',
      examples(
        'ledgerhook freshness',
        'ledgerhook freshness --capture deliveries.jsonl',
        'ledgerhook freshness --store postgres://127.0.0.1:5432/app --json',
      ),
    )
    .action((options: FreshnessCommandOptions) => run(() => import('./freshness.js'), options));
}
