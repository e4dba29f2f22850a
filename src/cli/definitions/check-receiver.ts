import type { Command } from 'commander';
import { DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_TOLERANCE_SECONDS } from '../../defaults.js';
import { RECEIVER_CASE_TABLE } from '../../delivery/receiver-case-table.js';
import type { RunCommand } from '../runner.js';
import type { SecretFlags } from '../resolve-settings.js';
import { decimal, examples, integer } from '../parsers.js';
import { addHeaderNameOption, addJsonOption, addSecretOptions } from './common-options.js';

export interface CheckReceiverCommandOptions extends SecretFlags {
  to: string;
  only?: string;
  skip?: string;
  tolerance: number;
  timeout: number;
  json?: boolean;
}

export function defineCheckReceiver(program: Command, run: RunCommand): void {
  const command = program
    .command('check-receiver')
    .summary('check that your receiver accepts valid webhooks and rejects forged ones')
    .description(
      'Send a battery of valid and forged deliveries to your receiver and report, per case, what it answered against what it should (2xx for valid, 4xx for forged). Exit 0 only when every case holds.',
    )
    .requiredOption('--to <target>', 'your receiver: a URL, host:port, :port, or a port')
    .option('--only <ids>', 'comma-separated case ids to run')
    .option('--skip <ids>', 'comma-separated case ids to leave out')
    .option(
      '--tolerance <seconds>',
      'the tolerance your receiver uses',
      integer('--tolerance', { min: 1 }),
      DEFAULT_TOLERANCE_SECONDS,
    )
    .option(
      '--timeout <seconds>',
      'how long to wait for each answer',
      decimal('--timeout', { min: 0.001, max: 3600 }),
      DEFAULT_DELIVERY_TIMEOUT_MS / 1000,
    );
  addSecretOptions(command);
  addHeaderNameOption(command);
  addJsonOption(command);
  const cases = RECEIVER_CASE_TABLE.map(
    (c) => `  ${c.id.padEnd(22)}${c.expect === 'accept' ? 'accept' : 'reject'}  ${c.title}`,
  ).join('\n');
  command
    .addHelpText(
      'after',
      `\nCases:\n${cases}\n${examples(
        'ledgerhook check-receiver --to http://localhost:3000/webhooks --secret-file sandbox.secret',
        'ledgerhook check-receiver --to 3000 --skip expired,valid-near-expiry --json',
      )}`,
    )
    .action((options: CheckReceiverCommandOptions) => run(() => import('../commands/check-receiver.js'), options));
}
