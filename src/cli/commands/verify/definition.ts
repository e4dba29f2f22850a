import type { Command } from '@commander-js/extra-typings';
import { DEFAULT_HEADER_NAME } from '../../../defaults.js';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples, integer } from '../../parsers.js';
import {
  addJsonOption,
  addSecretOptions,
  addVerificationHeaderOptions,
  storedToleranceOption,
} from '../../common-options.js';
import { addMoreExamples, COMMAND_GROUPS, layOutOptions } from '../../help-layout.js';

function verifyCommand(program: Command) {
  const command = program
    .command('verify')
    .helpGroup(COMMAND_GROUPS.webhooks)
    .summary('verify a delivery, and say why it fails')
    .description(
      'Verify a webhook delivery as the service signs it (an HS256 signature with the webhook secret, an iat within the tolerance, the SHA-256 of the exact body) and explain each check. Exit 0 when authentic, 1 when not, 2 for unusable input.',
    )
    .argument('[file]', 'the raw body as received, or - for stdin')
    .option('--data <body>', 'the raw body as a string instead of a file')
    .option('--token <jwt>', `the ${DEFAULT_HEADER_NAME} header value (the bare JWT)`)
    .option(
      '--header <line>',
      "the whole header line, e.g. 'Service-Verification: eyJ...'; its name must be the verification header's",
    )
    .option(...storedToleranceOption('maximum age in seconds (expired when now - iat >= tolerance)'))
    .option(
      '--now <seconds>',
      'verify as if now were this time (seconds since the epoch)',
      integer('--now', { min: 0 }),
    )
    .option('--ignore-expiry', 'skip the freshness check (for old captures)')
    .option(
      '--allow-future-iat',
      'accept an iat further in the future than the tolerance, with a warning (default: refused as issued_in_future)',
    )
    .option(
      '--delivery <file[:index|#id]>',
      'verify a delivery captured by `listen --capture` (body and header from the capture; default: the last one)',
    )
    .option(
      '--at-receipt',
      'with --delivery: verify as of the capture\'s receivedAt (labelled "as recorded": that time is not re-checked)',
    );
  return addJsonOption(addVerificationHeaderOptions(addSecretOptions(command, { repeatable: true })));
}

export type VerifyCommandOptions = OptionsOf<typeof verifyCommand> & { file: string | undefined };

export function defineVerify(program: Command, run: RunCommand): void {
  const command = layOutOptions(verifyCommand(program), [
    '--data',
    '--token',
    '--header',
    '--delivery',
    '--at-receipt',
    '--ignore-expiry',
    '--secret-file',
    '--env',
    '--json',
  ]);
  addMoreExamples(
    command.addHelpText(
      'after',
      examples(
        `ledgerhook verify body.json --token "$TOKEN" --secret-file ./sandbox.secret`,
        `ledgerhook verify body.json --header 'Service-Verification: eyJhbGciOi...' --env production`,
        `ledgerhook verify body.json --token "$TOKEN" --ignore-expiry --json`,
        `ledgerhook verify --delivery deliveries.jsonl#dlv_lx2k9a1b2c3d --at-receipt`,
      ),
    ),
    `ledgerhook verify body.json --header 'Acme-Verification: eyJhbGciOi...' --header-name Acme-Verification`,
    `ledgerhook verify body.json --token "$TOKEN" --now 1700000000 --allow-future-iat`,
  ).action((file, options) => run(() => import('./verify.js'), { ...options, file }));
}
