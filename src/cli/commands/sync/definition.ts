import type { Command, OptionValues } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import {
  DEFAULT_HISTORY_DAYS,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_OUT_DIR,
  DEFAULT_PAGE_LIMIT,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from '../../../defaults.js';
import { collect, decimal, duration, examples, formatDuration, integer, isoDate } from '../../parsers.js';
import { addJsonOption, addOtelOption } from '../../common-options.js';
import { addStoreOption } from '../store/definition.js';
import { addMoreExamples, COMMAND_GROUPS, layOutOptions } from '../../help-layout.js';
import { ENVIRONMENTS } from '../../../settings/environments.js';
import { MAX_PAGE_LIMIT } from '../../../settings/setting-values.js';

/**
 * What resolve-dataset.ts reads of the flags of sync, state, worker and listen --sync: which dataset
 * on which server. The commands' own option types are inferred from their definitions.
 */
export interface DatasetFlags {
  target?: string | undefined;
  type?: string | undefined;
  filter?: string[] | undefined;
  baseUrl?: string | undefined;
  env?: string | undefined;
  /** postgres:// URL: Postgres instead of local files. */
  store?: string | undefined;
}

/** The help of --type: the list filter a dataset is read with. */
export const TYPE_FILTER_HELP = "the list's type filter, e.g. PENDING (the list read with ?type=PENDING)";

/** Which dataset on which server: shared by sync and state show/reset. */
export function addDatasetOptions<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return addStoreOption(command, 'Postgres instead of local files')
    .option('--type <type>', TYPE_FILTER_HELP)
    .option('--filter <key=value>', 'any other query parameter of the dataset (repeatable)', collect)
    .option('--base-url <url>', 'API root (default: LEDGERHOOK_BASE_URL, else the stored baseUrl)')
    .option(
      '--env <name>',
      `stored environment to use: ${ENVIRONMENTS.join(' or ')} (default: LEDGERHOOK_ENV, else sandbox once anything is configured for sandbox or production, else local: ledgerhook mock)`,
    );
}

// --max-wait, --lag and --interval parse to milliseconds (duration()); --timeout stays in seconds.
function syncCommand(program: Command) {
  const command = program
    .command('sync')
    .helpGroup(COMMAND_GROUPS.sync)
    .summary('sync a dataset into local JSON, incrementally')
    .description(
      "Sync an entity's dataset into a local JSON file (one item per line, sorted by id). The first run reads everything; later runs send the stored lastUpdatedDate and apply only the changes and the deleted ids. Files are replaced atomically and the state is saved only after, so an interrupted sync loses nothing.",
    )
    .argument('[target]', 'an entity name (expense, expenses, invoice...) or a path (/expenses/expenses)')
    .option('--all', 'sync every entity (`ledgerhook entities` lists them)');
  const read = addReadOptions(command)
    .addOption(
      program
        .createOption(
          '--lag <duration>',
          'look back this far past the stored lastUpdatedDate, so that changes at the boundary are read again (1s for a server that filters with > at whole seconds; default: the stored lag, which `ledgerhook probe --write` sets, else 0)',
        )
        .argParser(duration('--lag', { minMs: 0, maxMs: 24 * 3_600_000 })),
    )
    .addOption(
      program
        .createOption(
          '--contract <mode>',
          "when the items' top-level fields or their JSON types change: evolve reports it and records them, freeze fails the run (exit 1) and writes nothing",
        )
        .choices(['evolve', 'freeze'] as const)
        .default('evolve' as const),
    )
    .option('--watch', 'keep syncing: a round, a pause of --interval, and again, until Ctrl-C')
    .addOption(
      program
        .createOption(
          '--interval <duration>',
          'pause between two rounds of --watch (60s, 5m, 500ms; a bare number is seconds)',
        )
        .argParser(duration('--interval', { minMs: 100, maxMs: 24 * 3_600_000 }))
        .default(60_000, formatDuration(60_000)),
    )
    .addOption(
      program
        .createOption(
          '--reconcile-every <duration>',
          'with --watch: now and then compare each dataset with the service and repair it (`ledgerhook reconcile --repair`), e.g. 6h',
        )
        .argParser(duration('--reconcile-every', { minMs: 1000, maxMs: 30 * 24 * 3_600_000 })),
    )
    .option(
      '--keep-deleted',
      'keep removed items as tombstones, with when and why they left (deleted, or left_filter: no longer matching --type/--filter); `ledgerhook history DATASET --deleted` lists them',
    )
    .option(
      '--history-days <n>',
      'days of per-item history (`ledgerhook history`) kept beside the data; tombstones are kept regardless',
      integer('--history-days', { min: 1, max: 36_500 }),
      DEFAULT_HISTORY_DAYS,
    )
    .option('--full', 'ignore the stored state and rebuild from a full read')
    .option(
      '--verify',
      'read and checksum the whole data file even when nothing changed (by default an unchanged run trusts a file the file system reports unchanged since the last sync: same size, same file, same modification times)',
    )
    .option(
      '--no-resume',
      'read from page 1 even if an interrupted full read left pages to continue from, and keep none this time',
    )
    .option(
      '--since <date>',
      're-read the changes since DATE (ISO 8601) into the stored data, for repairs; the stored lastUpdatedDate never moves back',
      isoDate('--since'),
    )
    .option('--dry-run', 'fetch and report, write nothing')
    .option(
      '--concurrency <n>',
      'datasets synced at once with --all',
      integer('--concurrency', { min: 1, max: 32 }),
      4,
    );
  return addJsonOption(addOtelOption(addDatasetOptions(read)));
}

/**
 * How a dataset is read from the service and where it is kept: the flags sync and reconcile share,
 * added after their `[target]` and `--all`. Not generic on purpose: the same chain over a generic
 * command type made the type checker run for minutes; over this one concrete type it is instant.
 */
export function addReadOptions(command: Command<[string | undefined], { all?: true | undefined }>) {
  return command
    .option(
      '--limit <n>',
      `page size (default: the stored pageLimit, which \`ledgerhook probe --write\` sets, else ${DEFAULT_PAGE_LIMIT}, as the API recommends)`,
      integer('--limit', { min: 1, max: MAX_PAGE_LIMIT }),
    )
    .option('--out <dir>', 'directory of the JSON files', DEFAULT_OUT_DIR)
    .option(
      '--token-file <file>',
      'read the bearer access token from a file (default: LEDGERHOOK_TOKEN, else the stored token)',
    )
    .option('--token <token>', 'the same token as a value: visible in shell history and ps, prefer --token-file')
    .option(
      '--max-pages <n>',
      'stop with an error after this many pages of one dataset',
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
      'give up on one attempt of a request after this long: its whole answer, headers and body, not per byte (retried like a network error, within --max-wait)',
      decimal('--timeout', { min: 0.1, max: 3600 }),
      DEFAULT_REQUEST_TIMEOUT_MS / 1000,
    )
    .addOption(
      command
        .createOption(
          '--max-wait <duration>',
          'how long one request may go on retrying a rate limit (429), server errors (5xx), timeouts and network errors, honouring Retry-After: no retry starts past it, and a request ends within the later of --timeout and --max-wait (5m, 30s, 1h)',
        )
        .argParser(duration('--max-wait', { minMs: 0, maxMs: 24 * 3_600_000 }))
        .default(300_000, formatDuration(300_000)),
    );
}

export type SyncCommandOptions = OptionsOf<typeof syncCommand> & { target: string | undefined };

export function defineSync(program: Command, run: RunCommand): void {
  const command = layOutOptions(
    syncCommand(program),
    [
      '--all',
      '--out',
      '--token-file',
      '--full',
      '--watch',
      '--interval',
      '--store',
      '--type',
      '--base-url',
      '--env',
      '--json',
    ],
    {
      'Requests:': ['--limit', '--concurrency', '--timeout', '--max-wait', '--max-pages', '--max-response-bytes'],
      'Checks and repairs:': [
        '--verify',
        '--contract',
        '--lag',
        '--since',
        '--no-resume',
        '--dry-run',
        '--reconcile-every',
      ],
      'Removed items and history:': ['--keep-deleted', '--history-days'],
    },
  ).addHelpText(
    'after',
    examples(
      '# against the local mock service (run `ledgerhook mock` in another terminal): nothing to set up',
      'ledgerhook sync expenses --env local',
      'ledgerhook sync /expenses/expenses --type PENDING --json',
      'ledgerhook sync --all --out ./data --env production',
      'ledgerhook sync invoices --full',
      'ledgerhook sync expenses --store postgres://127.0.0.1:5432/app',
      'ledgerhook sync expenses --type PENDING --watch --interval 30s',
    ),
  );
  addMoreExamples(
    command,
    'ledgerhook sync expenses --base-url http://127.0.0.1:4010/rest/v5 --token ledgerhook-mock-token',
    'ledgerhook sync invoices --full --limit 1000',
    'ledgerhook sync expenses --verify   # checksum the whole data file even if nothing changed',
    'ledgerhook sync expenses --contract freeze',
    'ledgerhook sync expenses --token-file ~/.ledgerhook-token --timeout 20 --max-pages 5000',
    'ledgerhook sync --all --watch --interval 5m --reconcile-every 6h',
    'ledgerhook sync invoices --since 2026-01-31T00:00:00Z   # repair: read a window of changes again',
    'ledgerhook sync expenses --type PENDING --keep-deleted   # then: ledgerhook history expenses --deleted --type PENDING',
    "NODE_OPTIONS='--import ./otel-console.mjs' ledgerhook sync expenses --otel   # a span per page and commit",
  ).action((target, options) => run(() => import('./sync.js'), { ...options, target }));
}
