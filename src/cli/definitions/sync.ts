import type { Command } from 'commander';
import type { RunCommand } from '../runner.js';
import { collect, examples, integer } from '../parsers.js';
import { addJsonOption } from './common-options.js';
import { ENVIRONMENTS } from '../../settings/environments.js';

/** Flags shared by sync and state: which dataset on which server. */
export interface DatasetFlags {
  target?: string;
  type?: string;
  filter?: string[];
  baseUrl?: string;
  env?: string;
}

export interface SyncCommandOptions extends DatasetFlags {
  all?: boolean;
  limit: number;
  out: string;
  token?: string;
  full?: boolean;
  dryRun?: boolean;
  concurrency: number;
  json?: boolean;
}

export interface StateCommandOptions extends DatasetFlags {
  action: 'list' | 'show' | 'reset';
  all?: boolean;
  json?: boolean;
}

export function addDatasetOptions(command: Command): Command {
  return command
    .option('--type <type>', 'the type filter of spec 4.3 (e.g. PENDING)')
    .option('--filter <key=value>', 'any other query parameter of the dataset (repeatable)', collect)
    .option('--base-url <url>', 'API root (default: LEDGERHOOK_BASE_URL, else the stored baseUrl)')
    .option('--env <name>', `stored environment to use: ${ENVIRONMENTS.join(' or ')} (default: LEDGERHOOK_ENV or sandbox)`);
}

export function defineSync(program: Command, run: RunCommand): void {
  const command = program
    .command('sync')
    .summary('sync a dataset page by page into local JSON, fetching only what changed')
    .description('Sync an entity\'s dataset into a local JSON file (one item per line, sorted by id). The first run reads everything; later runs send the stored lastUpdatedDate and apply only the changes and deletedIds (spec 4.3). Files are replaced atomically and the state is saved only after, so an interrupted sync loses nothing.')
    .argument('[target]', 'an entity name (expense, expenses, invoice...) or a path (/expenses/expenses)')
    .option('--all', 'sync every entity of the catalogue')
    .option('--limit <n>', 'page size (spec 4.3 recommends 100)', integer('--limit', { min: 1, max: 100_000 }), 100)
    .option('--out <dir>', 'directory of the JSON files', './ledgerhook-data')
    .option('--token <token>', 'bearer access token (default: LEDGERHOOK_TOKEN, else the stored token)')
    .option('--full', 'ignore the stored state and rebuild from a full read')
    .option('--dry-run', 'fetch and report, write nothing')
    .option('--concurrency <n>', 'datasets synced at once with --all', integer('--concurrency', { min: 1, max: 32 }), 4);
  addDatasetOptions(command);
  addJsonOption(command);
  command
    .addHelpText('after', examples(
      '# against the local mock service (run `ledgerhook mock` in another terminal):',
      'ledgerhook sync expenses --base-url http://127.0.0.1:4010/rest/v5 --token ledgerhook-mock-token',
      'ledgerhook sync /expenses/expenses --type PENDING --json',
      'ledgerhook sync --all --out ./data --env production',
      'ledgerhook sync invoices --full --limit 1000',
    ))
    .action((target: string | undefined, options: Omit<SyncCommandOptions, 'target'>) =>
      run(() => import('../commands/sync.js'), { ...options, ...(target !== undefined ? { target } : {}) }));
}

export function defineState(program: Command, run: RunCommand): void {
  const state = program
    .command('state')
    .summary('show or reset what sync remembers (lastUpdatedDate per dataset)')
    .description('What sync remembers of each dataset: base URL, path and filter, the lastUpdatedDate to send next, when it ran, how many items, which file. Reset makes the next sync of a dataset a full one.')
    .addHelpText('after', examples('ledgerhook state list', 'ledgerhook state show expenses --type PENDING --json', 'ledgerhook state reset invoices', 'ledgerhook state reset --all'));
  const load = () => import('../commands/state.js');
  addJsonOption(state.command('list').description('every dataset sync remembers'))
    .action((options: { json?: boolean }) => run(load, { action: 'list', ...options }));
  addJsonOption(addDatasetOptions(state.command('show').description('what is remembered of one dataset (any base URL unless --base-url)').argument('<target>')))
    .action((target: string, options: Omit<StateCommandOptions, 'action' | 'target'>) => run(load, { action: 'show', target, ...options }));
  addJsonOption(addDatasetOptions(state.command('reset').description('forget a dataset (or --all), so the next sync is a full one; files are kept').argument('[target]').option('--all', 'forget every dataset')))
    .action((target: string | undefined, options: Omit<StateCommandOptions, 'action' | 'target'>) => run(load, { action: 'reset', ...options, ...(target !== undefined ? { target } : {}) }));
}
