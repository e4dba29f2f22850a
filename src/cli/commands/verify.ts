import { LedgerhookError, usageError } from '../../errors.js';
import type { VerifyCheck, VerifyResult } from '../../webhook/verify.js';
import { verifyWebhook } from '../../webhook/verify.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import type { VerifyCommandOptions } from '../definitions/verify.js';
import { readBodyArgument } from '../read-input.js';
import { otherEnvironmentSecrets, requireWebhookSecrets } from '../resolve-settings.js';

function tokenFrom(options: VerifyCommandOptions): string {
  if (options.token !== undefined && options.header !== undefined) throw usageError('give the token either with --token or with --header, not both');
  if (options.header !== undefined) {
    const colon = options.header.indexOf(':');
    if (colon <= 0) throw usageError(`--header takes 'Name: value', got "${options.header.slice(0, 40)}"`);
    return options.header.slice(colon + 1).trim();
  }
  if (options.token === undefined) throw usageError('no token to verify: pass --token JWT or --header "Service-Verification: JWT"');
  return options.token;
}

async function bodyFrom(options: VerifyCommandOptions, ctx: CliContext): Promise<Buffer> {
  if (options.file !== undefined && options.data !== undefined) throw usageError('give the body either as FILE or with --data, not both');
  if (options.data !== undefined) return Buffer.from(options.data, 'utf8');
  if (options.file === undefined) throw usageError('no body to verify: give the raw body as FILE, - for stdin, or --data');
  return readBodyArgument(options.file, ctx.stdin);
}

const MARK: Record<VerifyCheck['status'], string> = { pass: '✔', fail: '✖', warn: '!', skip: '-' };

function render(result: VerifyResult, ctx: CliContext): void {
  const c = ctx.color;
  const paint = { pass: c.green, fail: c.red, warn: c.yellow, skip: c.dim } as const;
  if (result.ok) {
    writeLine(ctx.stdout, c.green.bold('✔ authentic webhook'));
  } else {
    writeLine(ctx.stdout, `${c.red.bold(`✖ not authentic (${result.code})`)}: ${result.message}`);
  }
  for (const check of result.checks) {
    writeLine(ctx.stdout, `  ${paint[check.status](MARK[check.status])} ${check.name.padEnd(10)} ${check.detail}`);
  }
  const hints = result.ok ? [] : result.hints;
  for (const hint of hints) writeLine(ctx.stdout, `  ${c.cyan('hint:')} ${hint}`);
  for (const warning of result.warnings) writeLine(ctx.stdout, `  ${c.yellow('warning:')} ${warning}`);
  if (result.claims) {
    const iat = result.claims.iat;
    const when = typeof iat === 'number' && Number.isFinite(iat) ? ` (iat ${new Date(iat * 1000).toISOString()})` : '';
    writeLine(ctx.stdout, c.dim(`  claims${result.ok ? '' : ' (untrusted)'}: ${JSON.stringify(result.claims)}${when}`));
  }
}

/** FILE, FILE:index (0-based) or FILE#id. */
async function fromCapture(spec: string): Promise<{ body: Buffer; token: string | undefined; receivedAtMs: number; label: string }> {
  const { readCaptures, selectCaptures } = await import('../../capture/read-captures.js');
  const { captureBody } = await import('../../capture/capture-record.js');
  const match = /^(.*?)(?:#([\w-]+)|:(\d+))?$/.exec(spec)!;
  const [, file = spec, id, index] = match;
  const { records } = await readCaptures(file);
  if (records.length === 0) throw usageError(`${file} holds no captured delivery`);
  const [record] = id !== undefined ? selectCaptures(records, { id }) : index !== undefined ? selectCaptures(records, { index: Number(index) }) : records.slice(-1);
  const value = record!.headers[record!.headerName];
  return { body: captureBody(record!), token: Array.isArray(value) ? value[0] : value, receivedAtMs: Date.parse(record!.receivedAt), label: record!.id };
}

export async function run(options: VerifyCommandOptions, ctx: CliContext): Promise<void> {
  if (options.now !== undefined && options.ignoreExpiry) throw usageError('--now and --ignore-expiry contradict each other: choose one');
  if (options.atReceipt && (options.delivery === undefined || options.now !== undefined || options.ignoreExpiry)) throw usageError('--at-receipt goes with --delivery, and not with --now or --ignore-expiry');
  let token: string | undefined;
  let body: Buffer;
  if (options.delivery !== undefined) {
    if (options.file !== undefined || options.data !== undefined || options.token !== undefined || options.header !== undefined) {
      throw usageError('--delivery takes body and token from the capture: give no FILE, --data, --token or --header with it');
    }
    const captured = await fromCapture(options.delivery);
    ({ token, body } = captured);
    if (options.atReceipt) options.now = Math.floor(captured.receivedAtMs / 1000);
    if (!options.json) writeLine(ctx.stdout, ctx.color.dim(`delivery ${captured.label} from ${options.delivery}`));
  } else {
    token = tokenFrom(options);
    body = await bodyFrom(options, ctx);
  }
  const secrets = await requireWebhookSecrets(options, ctx);
  const result = await verifyWebhook({
    body,
    token,
    secrets,
    // Loaded only when a signature fails: it tells "this is the production secret's token".
    otherSecrets: () => otherEnvironmentSecrets(options, ctx),
    toleranceSeconds: options.tolerance,
    ...(options.now !== undefined ? { now: () => options.now! * 1000 } : {}),
    ignoreExpiry: Boolean(options.ignoreExpiry),
    strict: Boolean(options.strict),
  });
  if (options.json) {
    const { ok, checks, warnings, claims, ageSeconds } = result;
    writeJson(ctx, result.ok
      ? { authentic: ok, secret: result.secretLabel ?? `#${result.secretIndex + 1}`, ageSeconds, claims, header: result.header, checks, warnings }
      : { authentic: ok, code: result.code, message: result.message, hints: result.hints, ageSeconds, claims, header: result.header, checks, warnings });
  } else {
    render(result, ctx);
  }
  if (!result.ok) throw new LedgerhookError('ERR_CHECK_FAILED', `webhook is not authentic: ${result.code}`);
}
