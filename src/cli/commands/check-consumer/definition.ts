import type { Command } from '@commander-js/extra-typings';
import {
  DEFAULT_CONSUMER_BURST,
  DEFAULT_CONSUMER_SETTLE_MS,
  DEFAULT_MOCK_PORT,
  DEFAULT_MOCK_TOKEN,
  DEFAULT_RECEIVER_SKEW_SECONDS,
} from '../../../defaults.js';
import { CONSUMER_CASE_TABLE } from '../../../consumer-check/consumer-case-table.js';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { duration, examples, formatDuration, integer } from '../../parsers.js';
import {
  addDeliveryTimeoutOption,
  addJsonOption,
  addSecretOptions,
  addVerificationHeaderOptions,
  toleranceOption,
} from '../../common-options.js';
import { addFullHelpText, COMMAND_GROUPS, helpTable, layOutOptions } from '../../help-layout.js';

function checkConsumerCommand(program: Command) {
  const command = program
    .command('check-consumer')
    .helpGroup(COMMAND_GROUPS.webhooks)
    .summary('check your store ends up equal to the service')
    .description(
      `Run the mock on its usual address (http://127.0.0.1:${DEFAULT_MOCK_PORT}/rest/v5, token ${DEFAULT_MOCK_TOKEN}, the webhook secret of the environment), change its expenses and send your receiver signed ENTITY_UPDATEs the way a real service misbehaves; after each case, read your store with --state until it equals the mock's data or --settle passes. Cases, in the order they run: ${CONSUMER_CASE_TABLE.map((c) => c.id).join(', ')}. Exit 0 when every required case converged, 1 when one did not (or was not run, or a receiver check failed), 2 for usage, 3 when the receiver does not answer, 130 when stopped.`,
    )
    .requiredOption('--to <target>', 'your receiver: a URL, host:port, :port, a port, or PORT/path')
    .requiredOption(
      '--state <command|url>',
      'what your store holds, as JSON: a command that prints it (run without a shell; "sh -c \'…\'" for one) or a URL on this machine',
    )
    .addOption(
      program
        .createOption(
          '--settle <duration>',
          'how long each case waits for your store to equal the service (polled, so a fast consumer is judged at once)',
        )
        .argParser(duration('--settle', { minMs: 100, maxMs: 290_000 }))
        .default(DEFAULT_CONSUMER_SETTLE_MS, formatDuration(DEFAULT_CONSUMER_SETTLE_MS)),
    )
    .option(
      '--mock-port <port>',
      'port of the emulated service (point your consumer at it)',
      integer('--mock-port', { min: 0, max: 65535 }),
      DEFAULT_MOCK_PORT,
    )
    .option('--user <id>', "the userId the deliveries are for (default: the mock's, as `ledgerhook mock --user`)")
    .option(
      '--burst <n>',
      'deliveries of the burst case',
      integer('--burst', { min: 1, max: 100_000 }),
      DEFAULT_CONSUMER_BURST,
    )
    .option('--only <ids>', 'comma-separated case ids to run (the baseline always runs first)')
    .option('--skip <ids>', 'comma-separated case ids to leave out')
    .option(
      '--with-receiver-checks',
      'first send the check-receiver battery (forged, altered and invalid deliveries): the cases send only valid ones',
    )
    .option(...toleranceOption('the tolerance your receiver uses'))
    .option(
      '--skew <seconds>',
      'how far inside the tolerance the near-expiry delivery is signed',
      integer('--skew', { min: 0, max: 3600 }),
      DEFAULT_RECEIVER_SKEW_SECONDS,
    );
  return addJsonOption(addVerificationHeaderOptions(addSecretOptions(addDeliveryTimeoutOption(command))));
}

export type CheckConsumerCommandOptions = OptionsOf<typeof checkConsumerCommand>;

export function defineCheckConsumer(program: Command, run: RunCommand): void {
  const command = layOutOptions(checkConsumerCommand(program), [
    '--to',
    '--state',
    '--settle',
    '--mock-port',
    '--only',
    '--skip',
    '--with-receiver-checks',
    '--secret-file',
    '--env',
    '--json',
  ]);
  const cases = CONSUMER_CASE_TABLE.map((c) => [c.id, `${c.level}: ${c.title}; catches ${c.catches}`] as const);
  addFullHelpText(
    command,
    'each case in detail',
    helpTable(
      `Cases, in the order they run (required ones decide the exit code; a limitation is reported,
never failed). Each starts from a store equal to the service: after a case that did not
converge, the items the store lacks or holds stale are changed again and one delivery
announces them; a store still unequal leaves the next cases not run. The race cases hold
the answer to your consumer's read in the mock while the data change, so the race happens
on every run. They send only valid deliveries: \`ledgerhook check-receiver\` (or
--with-receiver-checks) sends forged, altered and invalid ones.`,
      cases,
    ),
  )
    .addHelpText(
      'after',
      `
The state, as --state prints or serves it (items as your store holds them; a field you do
not keep is not compared, a field of your own is ignored, so are other entities' datasets):
  { "users": { "<userId>": { "/expenses": [ { "id": 7, ... } ], "/expenses?type=PENDING": [ ... ] } } }

Start your consumer with an empty store: the mock's data is new on every run.
${examples(
  "ledgerhook check-consumer --to http://127.0.0.1:3000/webhooks --state 'node print-state.js'",
  'ledgerhook check-consumer --to :3000/webhooks --state http://127.0.0.1:3000/state --settle 30s --json',
  'ledgerhook check-consumer --to 3000/webhooks --state "sh -c \'cat data/state.json\'" --only change-during-fetch,overlapping-fetches',
  'ledgerhook check-consumer --to :3000/webhooks --state http://127.0.0.1:3000/state --with-receiver-checks',
)}`,
    )
    .action((options) => run(() => import('./check-consumer.js'), options));
}
