import type { Command } from '@commander-js/extra-typings';
import { DEFAULT_RECEIVER_SKEW_SECONDS } from '../../../defaults.js';
import { RECEIVER_CASE_TABLE } from '../../../delivery/receiver-case-table.js';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples, integer } from '../../parsers.js';
import {
  addJsonOption,
  addSecretOptions,
  addVerificationHeaderOptions,
  addDeliveryTimeoutOption,
  toleranceOption,
} from '../../common-options.js';
import { COMMAND_GROUPS, helpTable, layOutOptions } from '../../help-layout.js';

function checkReceiverCommand(program: Command) {
  const command = program
    .command('check-receiver')
    .helpGroup(COMMAND_GROUPS.webhooks)
    .summary('check your receiver refuses forged deliveries')
    .description(
      'Send a battery of valid, forged (not signed with the secret), altered and invalid deliveries to your receiver and report, per case, what it answered against what it should: 2xx for the valid ones, a rejection (by default 4xx) for the rest. Exit 0 when every required case holds, 1 otherwise.',
    )
    .requiredOption('--to <target>', 'your receiver: a URL, host:port, :port, a port, or PORT/path')
    .option('--only <ids>', 'comma-separated case ids to run')
    .option('--skip <ids>', 'comma-separated case ids to leave out')
    .option('--strict', 'recommended cases fail the check too')
    .option(...toleranceOption('the tolerance your receiver uses'))
    .option(
      '--skew <seconds>',
      'clock difference allowed between sender and receiver at the tolerance edges (near expiry, expired, clock ahead)',
      integer('--skew', { min: 0, max: 3600 }),
      DEFAULT_RECEIVER_SKEW_SECONDS,
    )
    .option(
      '--reject-status <codes>',
      'statuses that mean "rejected", comma-separated codes or classes (e.g. 202 for a receiver that answers 202 and drops what it refuses)',
      '4xx',
    )
    .option('--reject-body <text>', 'an answer whose body contains this text counts as rejected, whatever its status');
  return addJsonOption(addVerificationHeaderOptions(addSecretOptions(addDeliveryTimeoutOption(command))));
}

export type CheckReceiverCommandOptions = OptionsOf<typeof checkReceiverCommand>;

export function defineCheckReceiver(program: Command, run: RunCommand): void {
  const cases = (level: string) =>
    RECEIVER_CASE_TABLE.filter((c) => c.level === level).map((c) => [c.id, `${c.expect}: ${c.title}`] as const);
  layOutOptions(checkReceiverCommand(program), [
    '--to',
    '--only',
    '--skip',
    '--strict',
    '--secret-file',
    '--env',
    '--json',
  ])
    .addHelpText('after', helpTable('Required cases (they decide the exit code):', cases('required')))
    .addHelpText('after', helpTable('Recommended cases (warnings unless --strict):', cases('recommended')))
    .addHelpText(
      'after',
      examples(
        'ledgerhook check-receiver --to http://localhost:3000/webhooks --secret-file sandbox.secret',
        'ledgerhook check-receiver --to 3000 --strict --json',
        'ledgerhook check-receiver --to 3000/webhooks --reject-status 202 --skew 10',
      ),
    )
    .action((options) => run(() => import('./check-receiver.js'), options));
}
