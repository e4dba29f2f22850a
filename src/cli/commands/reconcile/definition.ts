import { Option, type Command } from 'commander';
import {
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_PAGE_LIMIT,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from '../../../defaults.js';
import type { RunCommand } from '../../runner.js';
import { decimal, duration, examples, formatDuration, integer } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { addDatasetOptions, type DatasetFlags } from '../sync/definition.js';

export interface ReconcileCommandOptions extends DatasetFlags {
  all?: boolean;
  repair?: boolean;
  user?: string;
  limit: number;
  out: string;
  token?: string;
  tokenFile?: string;
  concurrency: number;
  maxPages: number;
  maxResponseBytes: number;
  timeout: number;
  maxWait: number;
  json?: boolean;
}

export function defineReconcile(program: Command, run: RunCommand): void {
  const command = program
    .command('reconcile')
    .summary('prove nothing was missed: compare a synced dataset with the service, and repair it')
    .description(
      'Read a dataset in full from the API, without touching the stored copy, and compare the two by id and content: missing (on the server, not stored), extra (stored, gone from the server), different. --repair applies the difference in one commit. Exit 0 when equal, 1 when a difference was found (also when --repair fixed it: a difference means a change arrived without its webhook), 2 for usage.',
    )
    .argument('[target]', 'an entity name (expense, invoice...) or a path (/expenses/expenses)')
    .option('--all', 'every dataset of the catalogue that has been synced')
    .option('--repair', 'apply the difference to the stored copy (one commit; the next sync goes on from this read)')
    .option('--user <id>', "a user's datasets as `listen --sync` keeps them (give that user's token)")
    .option('--out <dir>', 'directory of the JSON files', './ledgerhook-data')
    .option(
      '--token-file <file>',
      'read the bearer access token from a file (default: LEDGERHOOK_TOKEN, else the stored token)',
    )
    .option('--token <token>', 'the same token as a value: visible in shell history and ps, prefer --token-file')
    .option('--limit <n>', 'page size', integer('--limit', { min: 1, max: 100_000 }), DEFAULT_PAGE_LIMIT)
    .option(
      '--max-pages <n>',
      'stop with an error after this many pages',
      integer('--max-pages', { min: 1 }),
      DEFAULT_MAX_PAGES,
    )
    .option(
      '--max-response-bytes <n>',
      'refuse an answer bigger than this',
      integer('--max-response-bytes', { min: 1024 }),
      DEFAULT_MAX_RESPONSE_BYTES,
    )
    .option(
      '--timeout <seconds>',
      'give up on a request after this long (retried like a network error)',
      decimal('--timeout', { min: 0.1, max: 3600 }),
      DEFAULT_REQUEST_TIMEOUT_MS / 1000,
    )
    .addOption(
      new Option('--max-wait <duration>', 'how long to ride out 429 and 5xx answers per request (5m, 30s, 1h)')
        .argParser(duration('--max-wait', { minMs: 0, maxMs: 24 * 3_600_000 }))
        .default(300_000, formatDuration(300_000)),
    )
    .option('--concurrency <n>', 'datasets read at once with --all', integer('--concurrency', { min: 1, max: 32 }), 2);
  addDatasetOptions(command);
  addJsonOption(command);
  command
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
    .action((target: string | undefined, options: Omit<ReconcileCommandOptions, 'target'>) =>
      run(() => import('./reconcile.js'), { ...options, target }),
    );
}
