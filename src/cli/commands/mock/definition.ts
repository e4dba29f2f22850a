import type { Command } from '@commander-js/extra-typings';
import { DEFAULT_MOCK_PORT, DEFAULT_MOCK_TOKEN } from '../../../defaults.js';
import { DEFAULT_EXPENSE_ITEMS, DEFAULT_OTHER_ITEMS, MAX_PAGE_SIZE } from '../../../mock/mock-types.js';
import type { MockFaults } from '../../../mock/mock-types.js';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { decimal, durationList, examples, integer, rateLimit } from '../../parsers.js';
import { addJsonOption, addSecretOptions, addVerificationHeaderOptions } from '../../common-options.js';
import { addMoreExamples, COMMAND_GROUPS, layOutOptions } from '../../help-layout.js';

function mockCommand(program: Command) {
  const command = program
    .command('mock')
    .helpGroup(COMMAND_GROUPS.local)
    .summary('run a local emulator of the API')
    .description(
      "Run a local emulator of the API: every list endpoint under /rest/v5 with the service's paging rules (limit, cursor and lastUpdatedDate headers; a cursor only when more pages remain; deletedIds), seeded data, data that changes (POST /__mock/mutate, --churn), signed webhooks for every change, and fault injection.",
    )
    .option('--port <port>', 'port (0 picks a free one)', integer('--port', { min: 0, max: 65535 }), DEFAULT_MOCK_PORT)
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--token <token>', `the bearer token it accepts (default: ${DEFAULT_MOCK_TOKEN})`)
    .option('--seed <n>', 'seed of the generated data', integer('--seed'), 42)
    .option('--items <n>', 'number of expenses', integer('--items', { min: 0, max: 50_000_000 }), DEFAULT_EXPENSE_ITEMS)
    .option(
      '--other-items <n>',
      'number of items of every other entity',
      integer('--other-items', { min: 0, max: 1_000_000 }),
      DEFAULT_OTHER_ITEMS,
    )
    .option('--user <id>', 'the userId webhooks are sent for')
    .option('--churn <seconds>', 'change data on its own at this interval', decimal('--churn', { min: 0.01 }))
    .option(
      '--webhook-url <url>',
      'send a signed ENTITY_UPDATE (and a LIFECYCLE_EVENT where one fits) here for every change',
    )
    .option(
      '--webhook-retries <schedule>',
      'with --webhook-url: send a webhook not answered 2xx again after each wait, re-signed (e.g. 5s,30s,2m); default never',
      durationList('--webhook-retries'),
    )
    .option('--latency <ms>', 'delay every API answer', integer('--latency', { min: 0, max: 600_000 }))
    .option(
      '--fail-rate <p>',
      'answer this share of API requests with 500 or 503',
      decimal('--fail-rate', { min: 0, max: 1 }),
    )
    .option(
      '--drop-rate <p>',
      'reset the connection of this share of API requests',
      decimal('--drop-rate', { min: 0, max: 1 }),
    )
    .option(
      '--rate-limit <n/seconds>',
      'answer 429 with Retry-After past N requests per window per token (the API documentation names no limit: this is for trying your own)',
      rateLimit('--rate-limit'),
    )
    .addOption(
      program
        .createOption(
          '--deleted-ids-on <page>',
          'which page of an incremental read carries deletedIds (default: first; with --from, as recorded)',
        )
        .choices(['first', 'last', 'every']),
    )
    .addOption(
      program
        .createOption(
          '--since <boundary>',
          'how lastUpdatedDate is compared (the API documentation does not say): exclusive sends changes after it, inclusive at or after it',
        )
        .choices(['exclusive', 'inclusive'])
        .default('exclusive'),
    )
    .addOption(
      program
        .createOption(
          '--granularity <unit>',
          "precision of lastUpdatedDate, sent and compared: ms, or s (whole seconds; with --since exclusive a change in the same second as a read is lost unless sync --lag 1s); default ms, with --from the recording's",
        )
        .choices(['ms', 's']),
    )
    .option(
      '--from <dir>',
      'serve a recording made by `ledgerhook record` instead of generated data: its datasets with their quirks, and (with --webhook-url) its webhooks again, re-signed with the local secret',
    )
    .option(
      '--speed <factor>',
      'with --from: play the recording this many times faster (10: a minute in six seconds)',
      decimal('--speed', { min: 0.001, max: 100_000 }),
    )
    .addOption(
      program
        .createOption(
          '--faults <source>',
          "with --from: recorded answers the recorded 429s, 5xx and dropped connections again, each at its place among its dataset's requests",
        )
        .choices(['recorded']),
    )
    .option(
      '--max-limit <n>',
      `the largest page size it accepts; a larger limit answers 400 invalid_limit (the API documentation does not say; default ${MAX_PAGE_SIZE})`,
      integer('--max-limit', { min: 1, max: MAX_PAGE_SIZE }),
    );
  return addJsonOption(
    addVerificationHeaderOptions(addSecretOptions(command)),
    'print { baseUrl, token } as the first line, then one JSON object per line per change and webhook',
  );
}

export type MockCommandOptions = OptionsOf<typeof mockCommand>;

/** The Faults: flags as the mock takes them, generated or from a recording. */
export function faultsOf(
  options: Pick<MockCommandOptions, 'latency' | 'failRate' | 'dropRate' | 'rateLimit'>,
): MockFaults {
  return {
    latencyMs: options.latency,
    failRate: options.failRate,
    dropRate: options.dropRate,
    rateLimit: options.rateLimit,
  };
}

export function defineMock(program: Command, run: RunCommand): void {
  const command = layOutOptions(
    mockCommand(program),
    ['--port', '--items', '--churn', '--webhook-url', '--from', '--secret-file', '--env', '--json'],
    {
      'Faults:': ['--latency', '--fail-rate', '--drop-rate', '--rate-limit'],
      'Where the service may differ:': ['--deleted-ids-on', '--since', '--granularity', '--max-limit'],
    },
  ).addHelpText(
    'after',
    examples(
      'ledgerhook mock',
      'curl -H "Authorization: Bearer ledgerhook-mock-token" -H "limit: 100" http://127.0.0.1:4010/rest/v5/expenses',
      'ledgerhook mock --port 0 --json --items 100000 --churn 2',
      'ledgerhook mock --webhook-url http://127.0.0.1:4000/ --secret-file sandbox.secret --churn 5',
      `curl -X POST -d '{"path":"/expenses","create":2,"update":1,"delete":1,"retype":1}' http://127.0.0.1:4010/__mock/mutate`,
      '# a recording of the sandbox (ledgerhook record) as a local API',
      'ledgerhook mock --from ./bug-123 --webhook-url :3000',
    ),
  );
  addMoreExamples(
    command,
    '# the whole loop locally: the mock retries what listen (or your app) does not take',
    'ledgerhook mock --webhook-url :4000 --webhook-retries 1s,5s,30s --churn 5',
    'ledgerhook mock --fail-rate 0.1 --rate-limit 100/60 --latency 50',
    'ledgerhook mock --granularity s --since exclusive --max-limit 50   # a stricter server',
    '# a recording, its webhooks ten times faster, its 429s and 5xx answers again:',
    'ledgerhook mock --from ./bug-123 --webhook-url :3000 --speed 10 --faults recorded',
  ).action((options) => run(() => import('./mock.js'), options));
}
