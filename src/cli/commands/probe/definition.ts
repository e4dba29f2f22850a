import type { Command } from '@commander-js/extra-typings';
import { DEFAULT_PROBE_MAX_REQUESTS, DEFAULT_REQUEST_TIMEOUT_MS } from '../../../defaults.js';
import { ENVIRONMENTS } from '../../../settings/environments.js';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { decimal, duration, examples, formatDuration, integer } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { addMoreExamples, COMMAND_GROUPS, layOutOptions } from '../../help-layout.js';

function probeCommand(program: Command) {
  const command = program
    .command('probe')
    .helpGroup(COMMAND_GROUPS.setup)
    .summary('learn how the real service behaves')
    .description(
      'Read the service (GET only, a bounded number of requests) and report, for the environment: whether the base URL and token work; where each entity is served; page sizes and how a last page ends; whether used and unknown cursors are refused; the precision of lastUpdatedDate, the server clock and the lag an incremental read needs to lose nothing; rate limits; error bodies; with --capture, how the webhooks are signed. Each finding names the setting it implies; --write stores them. Exit 0 when ready to sync with the settings the environment has, 1 when a finding needs a setting that is not set (or a problem no setting fixes).',
    )
    .option(
      '--write',
      'store the settings the findings imply for the environment (and record what was written and when)',
    )
    .addOption(
      program
        .createOption(
          '--env <name>',
          'stored environment to probe and write to (default: LEDGERHOOK_ENV, else sandbox once anything is configured for sandbox or production, else local: ledgerhook mock)',
        )
        .choices(ENVIRONMENTS),
    )
    .option('--base-url <url>', 'API root (default: LEDGERHOOK_BASE_URL, else the stored baseUrl)')
    .option(
      '--token-file <file>',
      'read the access token from a file (default: LEDGERHOOK_TOKEN, else the stored token)',
    )
    .option('--token <token>', 'the same token as a value: visible in shell history and ps, prefer --token-file')
    .option(
      '--max-requests <n>',
      'requests to make at most (each 429 retried counts); the report says what the budget did not reach',
      integer('--max-requests', { min: 1, max: 10_000 }),
      DEFAULT_PROBE_MAX_REQUESTS,
    )
    .addOption(
      program
        .createOption(
          '--max-wait <duration>',
          'how long one request may wait out 429s and 5xx answers (Retry-After honoured)',
        )
        .argParser(duration('--max-wait', { minMs: 0, maxMs: 3_600_000 }))
        .default(60_000, formatDuration(60_000)),
    )
    .option(
      '--timeout <seconds>',
      'give up on a request after this long',
      decimal('--timeout', { min: 0.1, max: 3600 }),
      DEFAULT_REQUEST_TIMEOUT_MS / 2000,
    )
    .option(
      '--capture <file>',
      'a capture of real deliveries (`listen --capture`): their header and prefix, iat against receipt, body form, and which stored secret verifies them (the last 500)',
    );
  return addJsonOption(command);
}

export type ProbeCommandOptions = OptionsOf<typeof probeCommand>;

export function defineProbe(program: Command, run: RunCommand): void {
  const command = layOutOptions(probeCommand(program), [
    '--write',
    '--env',
    '--base-url',
    '--token-file',
    '--capture',
    '--json',
  ]).addHelpText(
    'after',
    examples(
      'ledgerhook probe --env sandbox --base-url https://sandbox.example.com/rest/v5 --token-file sandbox.token',
      'ledgerhook probe --write                  # store what it found for the default environment',
      'ledgerhook probe --env production --capture deliveries.jsonl --json',
    ),
  );
  addMoreExamples(
    command,
    'ledgerhook probe --max-requests 20 --max-wait 2m',
    '# against the local mock, playing a service with whole-second timestamps:',
    'ledgerhook mock --granularity s --since exclusive &',
    'ledgerhook probe --env local --write && ledgerhook sync expenses --type PENDING --env local',
  ).action((options) => run(() => import('./probe.js'), options));
}
