import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { decimal, durationOrOff, examples, integer } from '../../parsers.js';
import { addJsonOption, addOtelOption } from '../../common-options.js';
import { addQueueOptions } from '../queue/definition.js';
import { addStoreOption } from '../store/definition.js';
import { addMoreExamples, COMMAND_GROUPS, layOutOptions } from '../../help-layout.js';
import { DEFAULT_PAGE_LIMIT, DEFAULT_RUN_SPACING_MS } from '../../../defaults.js';
import { MAX_PAGE_LIMIT } from '../../../settings/setting-values.js';

function workerCommand(program: Command) {
  const command = program
    .command('worker')
    .helpGroup(COMMAND_GROUPS.scale)
    .summary('run queued sync jobs into Postgres')
    .description(
      'Takes sync jobs from the Redis queue that `listen --sync --queue` fills, syncs each (user, dataset) incrementally into Postgres, and retries failures with backoff. Run as many workers on as many machines as you like: a dataset never has two runs at once, a worker that dies has its job run again by another, and SIGTERM (or Ctrl-C) finishes the running jobs or puts them back.',
    );
  return addJsonOption(
    addOtelOption(addStoreOption(addQueueOptions(command), 'where the data goes'))
      .option('--base-url <url>', 'API root (default: LEDGERHOOK_BASE_URL, else the stored baseUrl)')
      .option(
        '--env <name>',
        'stored environment to use (default: LEDGERHOOK_ENV, else sandbox once anything is configured for sandbox or production, else local: ledgerhook mock)',
      )
      .option(
        '--tokens <file>',
        'JSON file mapping userId to access token: { "user_1": "token..." } (default: the stored tokensFile)',
      )
      .option(
        '--token-file <file>',
        'read one access token for every user from a file (default: LEDGERHOOK_TOKEN, else the stored token when no tokensFile is stored)',
      )
      .option('--token <token>', 'the same token as a value: visible in ps while the worker runs, prefer --token-file')
      .option('--concurrency <n>', 'jobs run at once by this worker', integer('--concurrency', { min: 1, max: 64 }), 4)
      .option(
        '--limit <n>',
        `page size (default: the stored pageLimit, else ${DEFAULT_PAGE_LIMIT})`,
        integer('--limit', { min: 1, max: MAX_PAGE_LIMIT }),
      )
      .option(
        '--rate-limit <requests/seconds>',
        "a limit per access token you know the service has, e.g. 600/60, shared by all workers through Redis (default: the stored rateLimit, which `ledgerhook probe --write` sets, else none; a 429's Retry-After always pauses the token on every worker)",
      )
      .option(
        '--lock-seconds <s>',
        "how soon a dead worker's job is run again by another (a live worker renews its lock)",
        decimal('--lock-seconds', { min: 1, max: 3600 }),
        30,
      )
      .option(
        '--run-spacing <s>',
        'at least this long between the starts of two sync runs of one dataset, across every worker: a burst of webhooks becomes a run at once and one after this, not runs back to back (0: back to back)',
        decimal('--run-spacing', { min: 0, max: 3600 }),
        DEFAULT_RUN_SPACING_MS / 1000,
      )
      .option(
        '--shutdown-grace <s>',
        'on SIGTERM, how long running jobs may finish before they are put back in the queue',
        decimal('--shutdown-grace', { min: 0, max: 3600 }),
        30,
      )
      .option('--keep-deleted', 'keep removed items as tombstones (`ledgerhook history DATASET --deleted --store ...`)')
      .addOption(
        program
          .createOption(
            '--reconcile-every <duration>',
            "now and then compare every synced dataset with the service and repair it (one schedule per queue, however many workers give it), e.g. 6h; `off` removes the queue's schedule",
          )
          .argParser(durationOrOff('--reconcile-every', { minMs: 1000, maxMs: 30 * 24 * 3_600_000 })),
      ),
    'print one JSON object per line (ready, each run, summary) and nothing else on stdout',
  );
}

export type WorkerCommandOptions = OptionsOf<typeof workerCommand>;

export function defineWorker(program: Command, run: RunCommand): void {
  const command = layOutOptions(workerCommand(program), [
    '--queue',
    '--store',
    '--base-url',
    '--env',
    '--tokens',
    '--token-file',
    '--concurrency',
    '--reconcile-every',
    '--json',
  ]).addHelpText(
    'after',
    examples(
      'ledgerhook worker --queue redis://127.0.0.1:6379 --store postgres://127.0.0.1:5432/app --base-url https://api.example.com/rest/v5 --tokens tokens.json',
      '# two workers on one machine, eight jobs each:',
      'LEDGERHOOK_QUEUE=redis://10.0.0.5:6379 LEDGERHOOK_STORE=postgres://db/app ledgerhook worker --tokens tokens.json --concurrency 8 --json',
      'ledgerhook worker --tokens tokens.json --reconcile-every 6h   # prove nothing was missed, and repair',
    ),
  );
  addMoreExamples(
    command,
    "ledgerhook worker --tokens tokens.json --reconcile-every off  # remove the queue's reconcile schedule",
    'ledgerhook worker --tokens tokens.json --rate-limit 600/60 --shutdown-grace 60',
    "NODE_OPTIONS='--import ./otel-setup.mjs' ledgerhook worker --tokens tokens.json --otel   # job → sync → commit spans, queue depth",
  ).action((options) => run(() => import('./worker.js'), options));
}
