import type { Command, OptionValues } from '@commander-js/extra-typings';
import { DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_HEADER_NAME, DEFAULT_TOLERANCE_SECONDS } from '../defaults.js';
import { ENVIRONMENTS } from '../settings/environments.js';
import { toleranceProblem } from '@ledgerhook/webhooks/advanced';
import { InvalidArgumentError } from '@commander-js/extra-typings';
import { collect, decimal } from './parsers.js';

// Each helper is generic over the command it is given and returns it with its flags added, so that
// the options of a command built with it are inferred (OptionsOf in runner.ts).

/** --secret, --secret-file, --env: how every webhook command finds its secret. */
export function addSecretOptions<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
  { repeatable = false } = {},
) {
  return command
    .option(
      '--secret-file <file>',
      'read the webhook secret from a file (newlines and carriage returns at its end are ignored); or set LEDGERHOOK_WEBHOOK_SECRET',
    )
    .addOption(
      command
        .createOption(
          '--secret <secret>',
          `the secret as a value${repeatable ? ' (repeat for several, e.g. during a rotation)' : ''}: visible in shell history and ps, prefer --secret-file`,
        )
        .argParser(collect),
    )
    .addOption(
      command
        .createOption(
          '--env <name>',
          'the stored environment to use (default: LEDGERHOOK_ENV, else sandbox if sandbox or production has a setting, else local: ledgerhook mock)',
        )
        .choices(ENVIRONMENTS),
    );
}

export function addHeaderNameOption<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return command.option(
    '--header-name <name>',
    `verification header name (default: LEDGERHOOK_HEADER_NAME, else the stored headerName, else ${DEFAULT_HEADER_NAME})`,
  );
}

/** The verification header as the service sends it: its name and what stands before the JWT. */
export function addVerificationHeaderOptions<
  Args extends unknown[],
  Opts extends OptionValues,
  Globals extends OptionValues,
>(command: Command<Args, Opts, Globals>) {
  return addVerificationPrefixOption(addHeaderNameOption(command));
}

/** How long to wait for a receiver's answer to one delivery (send-sample, replay, check-receiver). */
export function addDeliveryTimeoutOption<
  Args extends unknown[],
  Opts extends OptionValues,
  Globals extends OptionValues,
>(command: Command<Args, Opts, Globals>) {
  return command.option(
    '--timeout <seconds>',
    'how long to wait for each answer',
    decimal('--timeout', { min: 0.001, max: 3600 }),
    DEFAULT_DELIVERY_TIMEOUT_MS / 1000,
  );
}

export function addVerificationPrefixOption<
  Args extends unknown[],
  Opts extends OptionValues,
  Globals extends OptionValues,
>(command: Command<Args, Opts, Globals>) {
  return command.option(
    '--verification-prefix <text>',
    'what the service puts before the JWT in the verification header, e.g. "Bearer " (default: LEDGERHOOK_VERIFICATION_PREFIX, else the stored verificationPrefix, else nothing: the header holds the bare JWT)',
  );
}

/** --otel (listen, sync, worker): traces and metrics through the providers a `node --import` file registered. */
export function addOtelOption<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return command.option(
    '--otel',
    'record OpenTelemetry traces and metrics through the providers your `node --import` setup registers (needs npm install @opentelemetry/api; default: LEDGERHOOK_OTEL=1)',
  );
}

export function addJsonOption<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
  description = 'print one JSON document on stdout and nothing else there',
) {
  return command.option('--json', description);
}

/**
 * --tolerance: the webhook age limit in seconds (spec 5.2's freshness), DEFAULT_TOLERANCE_SECONDS unless
 * given, held to the library's one rule for a tolerance. Spread into `.option(...)`, so that it keeps
 * its place in each command's help.
 */
export function toleranceOption(description: string) {
  return ['--tolerance <seconds>', description, parseTolerance, DEFAULT_TOLERANCE_SECONDS] as const;
}

function parseTolerance(text: string): number {
  const value = text.trim() === '' ? Number.NaN : Number(text);
  const problem = toleranceProblem(value);
  if (problem) throw new InvalidArgumentError(`--tolerance ${problem}, got "${text}".`);
  return value;
}

/**
 * --tolerance where it is the service's webhooks' (listen, verify, the inspector's checklists): no
 * default here, so that the stored `tolerance` setting applies when it is not given (resolveTolerance).
 */
export function storedToleranceOption(description: string) {
  return [
    '--tolerance <seconds>',
    `${description} (default: the stored tolerance, else ${DEFAULT_TOLERANCE_SECONDS})`,
    parseTolerance,
  ] as const;
}

/**
 * --redact FIELDS (record, listen, inspect): personal data replaced with a keyed hash before it is
 * written or shown: the default set (e-mail addresses, names, descriptions, account and card numbers,
 * IBANs) and the field names or JSON paths given; `defaults` names none beside them. A required value
 * (never an optional one): the command line stays one that the plain parser reads without commander.
 */
export function addRedactOption<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
  description: string,
) {
  return command.option('--redact <fields>', description);
}

/** The fields `--redact` names beside the defaults: undefined when it is not given. */
export function redactFields(value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : [value];
}
