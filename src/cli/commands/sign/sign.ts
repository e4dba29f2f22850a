import { usageError } from '../../../errors.js';
import { webhookClaims, signClaims } from '@ledgerhook/webhooks/advanced';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import type { SignCommandOptions } from './definition.js';
import { pipedBody, readBodyArgument } from '../../read-input.js';
import { withVerificationPrefix } from '@ledgerhook/webhooks/advanced';
import { requireSigningSecret, resolveHeaderName, resolveVerificationPrefix } from '../../resolve-settings.js';
import { shellQuote } from '../../../util/shell-quote.js';

async function readBody(options: SignCommandOptions, ctx: CliContext): Promise<Buffer> {
  if (options.file !== undefined && options.data !== undefined)
    throw usageError('give the body either as FILE or with --data, not both', 'conflicting_flags');
  if (options.data !== undefined) {
    try {
      JSON.parse(options.data);
    } catch (error) {
      throw usageError(
        `--data is not valid JSON (${(error as Error).message}); to sign arbitrary bytes, put them in a file`,
        'invalid_flag_value',
      );
    }
    return Buffer.from(options.data, 'utf8');
  }
  if (options.file === undefined) {
    const piped = await pipedBody(ctx.stdin);
    if (piped) return piped;
    throw usageError('no body to sign: give a FILE, - to read stdin (or pipe it in), or --data JSON', 'missing_body');
  }
  return readBodyArgument(options.file, ctx);
}

export async function run(options: SignCommandOptions, ctx: CliContext): Promise<void> {
  // --json is the one result contract: the --format json object with ok; another format is something else.
  if (options.json && options.format !== 'token' && options.format !== 'json')
    throw usageError(
      `--json prints the JSON document; it cannot go with --format ${options.format}`,
      'conflicting_flags',
    );
  const format = options.json ? 'json' : options.format;
  const body = await readBody(options, ctx);
  const secret = await requireSigningSecret(options, ctx, { createLocal: true });
  const claims = webhookClaims(body, { iat: options.iat });
  const token = await signClaims(claims, secret);
  const needsHeader = format === 'header' || format === 'json' || format === 'curl';
  const headerName = needsHeader ? await resolveHeaderName(options, ctx) : '';
  // The header carries what the service would send: the token after the configured prefix, if any.
  const headerValue = withVerificationPrefix(
    token,
    needsHeader ? await resolveVerificationPrefix(options, ctx) : undefined,
  );
  switch (format) {
    case 'token':
      writeLine(ctx.stdout, token);
      return;
    case 'header':
      writeLine(ctx.stdout, `${headerName}: ${headerValue}`);
      return;
    case 'json': {
      const document = { token, headerName, headerValue, claims, bodyBytes: body.length };
      // --format json alone is the object without `ok` (for `jq -r .token`); --json is the contract.
      if (options.json) writeJson(ctx, document);
      else writeLine(ctx.stdout, JSON.stringify(document, null, 2));
      return;
    }
    case 'curl': {
      // A body read from stdin goes inline as --data-raw: with --data-binary, one starting with `@`
      // would make curl upload a local file instead.
      const fromFile = options.file !== undefined && options.file !== '-';
      const data = fromFile ? `@${options.file}` : body.toString('utf8');
      writeLine(
        ctx.stdout,
        [
          'curl',
          '-sS',
          '-X',
          'POST',
          shellQuote(options.url),
          '-H',
          shellQuote('Content-Type: application/json'),
          '-H',
          shellQuote(`${headerName}: ${headerValue}`),
          fromFile ? '--data-binary' : '--data-raw',
          shellQuote(data),
        ].join(' '),
      );
    }
  }
}
