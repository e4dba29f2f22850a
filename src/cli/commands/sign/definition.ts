import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples, integer } from '../../parsers.js';
import { addJsonOption, addSecretOptions, addVerificationHeaderOptions } from '../../common-options.js';
import { COMMAND_GROUPS, layOutOptions } from '../../help-layout.js';

export const SIGN_FORMATS = ['token', 'header', 'json', 'curl'] as const;

function signCommand(program: Command) {
  const command = program
    .command('sign')
    .helpGroup(COMMAND_GROUPS.webhooks)
    .summary('sign a webhook body as the service does')
    .description(
      'Sign a webhook body the way the service does: an HS256 JWT with iat and request_body_sha256 (the Base64 SHA-256 of the exact body bytes), for the Service-Verification header.',
    )
    .argument('[file]', 'body file, or - for stdin (the bytes are signed exactly as they are)')
    .option('--data <json>', 'the body as a JSON string instead of a file')
    .option(
      '--iat <seconds>',
      'issue time in seconds since the epoch (default: now); backdate to test expiry',
      integer('--iat', { min: 0 }),
    )
    .addOption(program.createOption('--format <format>', 'what to print').choices(SIGN_FORMATS).default('token'))
    .option('--url <url>', 'target URL for --format curl', 'http://localhost:4000/');
  return addJsonOption(
    addVerificationHeaderOptions(addSecretOptions(command)),
    'print one JSON document with ok, token, headerName, headerValue, claims and bodyBytes (as --format json, with ok)',
  );
}

export type SignCommandOptions = OptionsOf<typeof signCommand> & { file: string | undefined };

export function defineSign(program: Command, run: RunCommand): void {
  layOutOptions(signCommand(program), ['--data', '--iat', '--format', '--url', '--secret-file', '--env', '--json'])
    .addHelpText(
      'after',
      examples(
        `ledgerhook sign body.json --secret-file ./sandbox.secret`,
        `ledgerhook sign --data '{"userId":"u1","type":"ENTITY_UPDATE","entities":["expense"]}' --format curl --url http://localhost:3000/webhooks`,
        `cat body.json | LEDGERHOOK_WEBHOOK_SECRET=... ledgerhook sign - --format header`,
      ),
    )
    .action((file, options) => run(() => import('./sign.js'), { ...options, file }));
}
