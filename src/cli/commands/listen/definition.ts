import type { Command, OptionValues } from '@commander-js/extra-typings';
import {
  DEFAULT_CAPTURE_REFUSED_MAX_BYTES,
  DEFAULT_CAPTURE_REFUSED_PER_SECOND,
  DEFAULT_IDLE_TIMEOUT_SECONDS,
  DEFAULT_LISTEN_PORT,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_OUT_DIR,
  DEFAULT_PAGE_LIMIT,
} from '../../../defaults.js';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { collect, decimal, duration, durationList, examples, integer } from '../../parsers.js';
import { DEFAULT_INSPECTOR_PORT } from '../../../defaults.js';
import {
  addJsonOption,
  addOtelOption,
  addRedactOption,
  addSecretOptions,
  addVerificationHeaderOptions,
  storedToleranceOption,
} from '../../common-options.js';
import { addQueueOptions } from '../queue/definition.js';
import { addMoreExamples, COMMAND_GROUPS, layOutOptions } from '../../help-layout.js';
import { MAX_PAGE_LIMIT } from '../../../settings/setting-values.js';

function addServingOptions<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return command
    .option(
      '--port <port>',
      'port to listen on (0 picks a free one)',
      integer('--port', { min: 0, max: 65535 }),
      DEFAULT_LISTEN_PORT,
    )
    .option('--host <host>', 'interface to bind; use 0.0.0.0 to accept from other machines', '127.0.0.1')
    .option('--path <path>', 'only accept deliveries on this path (default: any path)')
    .option('--capture <file>', 'append every delivery to this JSON Lines file before answering it')
    .option('--capture-sync', 'with --capture: fsync each write, so a 2xx delivery survives a power cut too')
    .option('--capture-refused-bodies', 'with --capture: keep the whole body of refused deliveries (default: 4 KiB)')
    .option(
      '--capture-refused-rate <n>',
      `with --capture: write at most N refused deliveries a second (bursts of 10 seconds' worth; default ${DEFAULT_CAPTURE_REFUSED_PER_SECOND}); past it they are counted, not written; 0 writes none`,
      integer('--capture-refused-rate', { min: 0, max: 100_000 }),
    )
    .option(
      '--capture-refused-max <bytes>',
      `with --capture: write at most this many bytes of refused deliveries in this run (default ${DEFAULT_CAPTURE_REFUSED_MAX_BYTES}, 64 MiB); past it they are counted, not written`,
      integer('--capture-refused-max', { min: 0 }),
    )
    .option(
      '--forward-to <[selector=]target>',
      "forward accepted deliveries to your app (repeatable): a target alone takes what no other route takes (and, as the only route, answers with your app's status); 'INVOICE_*=:3000' takes only matching deliveries",
      collect,
    )
    .option(
      '--routes <file>',
      'more routes from a JSON file: {"routes": [{"name"?, "match": "INVOICE_*", "to": ":3000"}]}',
    )
    .option(
      '--events <list>',
      'forward and print only these (e.g. INVOICE_*,ENTITY_UPDATE:expense); others are still verified and captured',
    )
    .option(
      '--retry <schedule>',
      'answer 202 once recorded, forward after, and retry a route that fails (unreachable, timeout, 5xx) after each wait, e.g. 5s,30s,2m,10m; every attempt is captured, and a later listen with the same --capture resumes what is still due',
      durationList('--retry'),
    )
    .option(
      '--retry-resign',
      'send each retry (and each resumed forward) with a fresh token signed with the secret, instead of the one the delivery came with, which a receiver refuses once it is older than 5 minutes',
    )
    .option('--accept-invalid', 'answer 200 to invalid deliveries too (they are still recorded as invalid)')
    .option('--allow-future-iat', 'accept an iat further in the future than the tolerance (shown as a warning)')
    .option(
      '--max-body <bytes>',
      'largest body accepted; larger gets 413',
      integer('--max-body', { min: 1 }),
      DEFAULT_MAX_BODY_BYTES,
    )
    .option(
      '--request-timeout <seconds>',
      'cut off senders slower than this',
      decimal('--request-timeout', { min: 0.1, max: 3600 }),
      30,
    )
    .option(
      '--idle-timeout <seconds>',
      'close a connection that sends nothing for this long',
      decimal('--idle-timeout', { min: 0.1, max: 3600 }),
      DEFAULT_IDLE_TIMEOUT_SECONDS,
    )
    .option(
      '--max-connections <n>',
      'connections held at once; more are closed on arrival',
      integer('--max-connections', { min: 1, max: 100_000 }),
      DEFAULT_MAX_CONNECTIONS,
    )
    .option(...storedToleranceOption('maximum webhook age in seconds'));
}

function addSyncOptions<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return command
    .option('--sync', 'on each verified ENTITY_UPDATE, sync the named entities of that user incrementally')
    .option('--insecure-no-verify', 'with --sync: allow syncing without a webhook secret (deliveries unverified)')
    .option(
      '--token-file <file>',
      'with --sync: read the access token for every user from a file (default: LEDGERHOOK_TOKEN, else the stored token)',
    )
    .option(
      '--token <token>',
      'with --sync: the same token as a value: visible in ps while listen runs, prefer --token-file',
    )
    .option('--tokens <file>', 'with --sync: JSON file mapping userId to access token, for several users')
    .option('--base-url <url>', 'with --sync: API root (default: LEDGERHOOK_BASE_URL, else the stored baseUrl)')
    .option('--out <dir>', 'with --sync: directory of the JSON files (one subdirectory per user)', DEFAULT_OUT_DIR)
    .option(
      '--limit <n>',
      `with --sync: page size (default: the stored pageLimit, else ${DEFAULT_PAGE_LIMIT})`,
      integer('--limit', { min: 1, max: MAX_PAGE_LIMIT }),
    )
    .option(
      '--sync-concurrency <n>',
      'with --sync: datasets synced at once',
      integer('--sync-concurrency', { min: 1, max: 32 }),
      4,
    )
    .option(
      '--reconcile-every <duration>',
      'with --sync: now and then compare each synced dataset with the service and repair it; what it repairs arrived without its webhook (`ledgerhook freshness`), e.g. 6h',
      duration('--reconcile-every', { minMs: 1000, maxMs: 30 * 24 * 3_600_000 }),
    )
    .option('--keep-deleted', 'with --sync: keep removed items as tombstones (`ledgerhook history DATASET --deleted`)');
}

/** Printing each body, and the inspector page. */
function addInspectorOptions<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return command
    .option('--print-body', 'print each body, pretty-printed, under its line')
    .option('--ui', `also serve the inspector page (default http://127.0.0.1:${DEFAULT_INSPECTOR_PORT}/TOKEN/)`)
    .option(
      '--ui-port <port>',
      `port of the inspector page (implies --ui; default ${DEFAULT_INSPECTOR_PORT}, 0 picks a free one)`,
      integer('--ui-port', { min: 0, max: 65535 }),
    )
    .option('--ui-host <host>', 'interface of the inspector page (implies --ui; default 127.0.0.1, loopback only)');
}

function listenCommand(program: Command) {
  const command = program
    .command('listen')
    .helpGroup(COMMAND_GROUPS.local)
    .summary('receive webhooks: verify, capture, forward')
    .description(
      "Receive webhook deliveries locally. Each is verified with the environment's secret (200 when valid, 400 with the reason when not), printed, optionally appended to a capture file (before it is answered) and forwarded byte-exact to your app. Under load or abuse it answers 503 with Retry-After instead of growing. Ctrl-C stops it cleanly and prints a summary.",
    );
  const queued = addQueueOptions(
    addSyncOptions(
      addRedactOption(
        addServingOptions(command),
        'replace personal data (e-mail addresses, names, descriptions, account and card numbers, IBANs, and these field names or JSON paths, comma-separated; `defaults` for none beside them) with a keyed hash before it is captured, shown by --ui or printed by --print-body',
      ),
    ),
    'with --sync: instead of syncing here, enqueue a job per (user, dataset) in this Redis',
  );
  return addJsonOption(
    addOtelOption(addVerificationHeaderOptions(addSecretOptions(addInspectorOptions(queued), { repeatable: true }))),
    'print one JSON object per line (kind: listening, delivery, refused, sync-..., summary) and nothing else on stdout',
  );
}

export type ListenCommandOptions = OptionsOf<typeof listenCommand>;

export function defineListen(program: Command, run: RunCommand): void {
  const command = layOutOptions(
    listenCommand(program),
    [
      '--port',
      '--capture',
      '--forward-to',
      '--sync',
      '--token-file',
      '--out',
      '--ui',
      '--secret-file',
      '--env',
      '--json',
    ],
    {
      'Receiving and verifying:': [
        '--host',
        '--path',
        '--tolerance',
        '--allow-future-iat',
        '--accept-invalid',
        '--secret',
        '--header-name',
        '--verification-prefix',
      ],
      'Limits:': ['--max-body', '--request-timeout', '--idle-timeout', '--max-connections'],
      'Capturing and printing:': ['--capture-sync', '--capture-refused-bodies', '--redact', '--print-body', '--otel'],
      'Forwarding:': ['--routes', '--events', '--retry', '--retry-resign'],
      'Syncing:': [
        '--insecure-no-verify',
        '--token',
        '--tokens',
        '--base-url',
        '--limit',
        '--sync-concurrency',
        '--reconcile-every',
        '--keep-deleted',
        '--queue',
        '--queue-name',
      ],
      'The inspector:': ['--ui-port', '--ui-host'],
    },
  ).addHelpText(
    'after',
    examples(
      'ledgerhook listen --capture deliveries.jsonl',
      'ledgerhook listen --port 4000 --forward-to http://localhost:3000/webhooks --secret-file sandbox.secret',
      'ledgerhook listen --ui --secret-file sandbox.secret   # open the inspector URL it prints',
      'ledgerhook listen --sync --secret-file sandbox.secret --token-file sandbox.token --out ./data',
      'ledgerhook listen --capture deliveries.jsonl --json',
    ),
  );
  addMoreExamples(
    command,
    'ledgerhook listen --capture deliveries.jsonl --capture-sync --capture-refused-bodies',
    'ledgerhook listen --capture deliveries.jsonl --redact defaults   # no personal data on disk',
    'ledgerhook listen --capture deliveries.jsonl --ui --redact merchant,$.eventData.note',
    "ledgerhook listen --forward-to 'INVOICE_*=:3000/invoices' --forward-to 'ENTITY_UPDATE:expense=:3001' --forward-to :3002",
    'ledgerhook listen --routes routes.json --events INVOICE_*,ENTITY_UPDATE --capture deliveries.jsonl',
    'ledgerhook listen --forward-to :3000 --retry 5s,30s,2m,10m --capture deliveries.jsonl   # rerun to resume',
    'ledgerhook listen --forward-to :3000 --retry 1m,10m,1h --retry-resign --capture deliveries.jsonl   # later attempts re-signed',
    'ledgerhook listen --host 0.0.0.0 --path /webhooks --json --idle-timeout 10 --max-connections 256',
    'ledgerhook listen --secret-file sandbox.secret --allow-future-iat',
    'ledgerhook listen --sync --secret-file sandbox.secret --base-url http://127.0.0.1:4010/rest/v5 --token-file token.txt --out ./data',
    'ledgerhook listen --sync --insecure-no-verify --token ledgerhook-mock-token   # trusts unverified deliveries',
    'ledgerhook listen --print-body',
    '# several receivers and workers: receivers only enqueue, `ledgerhook worker` syncs into Postgres',
    'ledgerhook listen --sync --queue redis://127.0.0.1:6379 --host 0.0.0.0 --secret-file production.secret',
    '# a trace per delivery (verify, capture, forward, sync runs, page fetches, commit) to your exporter:',
    "NODE_OPTIONS='--import ./otel-console.mjs' ledgerhook listen --sync --otel --secret-file sandbox.secret",
  ).action((options) => run(() => import('./listen.js'), options));
}
