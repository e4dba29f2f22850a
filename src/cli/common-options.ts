import { Option, type Command } from 'commander';
import { DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_HEADER_NAME } from '../defaults.js';
import { ENVIRONMENTS } from '../settings/environments.js';
import { collect, decimal } from './parsers.js';

/** --secret, --secret-file, --env: how every webhook command finds its secret. */
export function addSecretOptions(command: Command, { repeatable = false } = {}): Command {
  return command
    .option(
      '--secret-file <file>',
      'read the webhook secret from a file (one trailing newline is ignored); or set LEDGERHOOK_WEBHOOK_SECRET',
    )
    .addOption(
      new Option(
        '--secret <secret>',
        `the secret as a value${repeatable ? ' (repeat for several, e.g. during a rotation)' : ''}: visible in shell history and ps, prefer --secret-file`,
      ).argParser(collect),
    )
    .addOption(
      new Option(
        '--env <name>',
        'which stored environment to use (default: LEDGERHOOK_ENV, else sandbox once anything is configured for sandbox or production, else local: ledgerhook mock)',
      ).choices(ENVIRONMENTS),
    );
}

export function addHeaderNameOption(command: Command): Command {
  return command.option(
    '--header-name <name>',
    `verification header name (default: LEDGERHOOK_HEADER_NAME, else the stored headerName, else ${DEFAULT_HEADER_NAME})`,
  );
}

/** The verification header as the service sends it: its name and what stands before the JWT. */
export function addVerificationHeaderOptions(command: Command): Command {
  return addVerificationPrefixOption(addHeaderNameOption(command));
}

/** How long to wait for a receiver's answer to one delivery (send-sample, replay, check-receiver). */
export function addDeliveryTimeoutOption(command: Command): Command {
  return command.option(
    '--timeout <seconds>',
    'how long to wait for each answer',
    decimal('--timeout', { min: 0.001, max: 3600 }),
    DEFAULT_DELIVERY_TIMEOUT_MS / 1000,
  );
}

export function addVerificationPrefixOption(command: Command): Command {
  return command.option(
    '--verification-prefix <text>',
    'what the service puts before the JWT in the verification header, e.g. "Bearer " (default: LEDGERHOOK_VERIFICATION_PREFIX, else the stored verificationPrefix, else none: the bare JWT of spec 5.2)',
  );
}

export function addJsonOption(
  command: Command,
  description = 'print one JSON document on stdout and nothing else there',
): Command {
  return command.option('--json', description);
}
