import { type CaptureRecord, capturedHeaderValues, fullCapturedBody } from '../../../capture/capture-record.js';
import { DEFAULT_HEADER_NAME } from '../../../defaults.js';
import { LedgerhookError, usageError } from '../../../errors.js';
import { describeVerdict, receivedAtMs } from '../../../replay/captured-delivery.js';
import { verifyWebhookRequest, type HeadersLike } from '@ledgerhook/webhooks';
import { findHeader } from '@ledgerhook/webhooks/advanced';
import type { VerifyCheck, VerifyResult } from '@ledgerhook/webhooks';
import { alreadySaid } from '../../outcome.js';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import { printable, printableLine } from '../../render-delivery.js';
import type { VerifyCommandOptions } from './definition.js';
import { pipedBody, readBodyArgument } from '../../read-input.js';
import { resolveTolerance } from '../../resolve-service-settings.js';
import {
  otherEnvironmentSecrets,
  requireWebhookSecrets,
  resolveHeaderName,
  resolveVerificationPrefix,
  validateHeaderName,
} from '../../resolve-settings.js';

/** What is verified: body, headers, and which facts come from a capture rather than from now. */
interface Subject {
  body: Buffer;
  headers: HeadersLike;
  headerName: string;
  /** From --header: the name the user wrote, to explain a mismatch. */
  givenName?: string | undefined;
  record?: CaptureRecord | undefined;
  /** Facts taken from the capture as recorded, not re-checked (e.g. receivedAt). */
  asRecorded: string[];
  nowSeconds?: number | undefined;
}

async function fromFlags(options: VerifyCommandOptions, ctx: CliContext): Promise<Subject> {
  if (options.token !== undefined && options.header !== undefined)
    throw usageError('give the token either with --token or with --header, not both', 'conflicting_flags');
  if (options.file !== undefined && options.data !== undefined)
    throw usageError('give the body either as FILE or with --data, not both', 'conflicting_flags');
  let headers: Record<string, string>;
  let givenName: string | undefined;
  // The name matters only for a whole header line: --token is the value itself, and a cold
  // `verify --token` then never loads the settings store.
  const headerName = options.header !== undefined ? await resolveHeaderName(options, ctx) : DEFAULT_HEADER_NAME;
  if (options.header !== undefined) {
    const colon = options.header.indexOf(':');
    if (colon <= 0)
      throw usageError(`--header takes 'Name: value', got "${options.header.slice(0, 40)}"`, 'invalid_flag_value');
    givenName = validateHeaderName(options.header.slice(0, colon).trim());
    headers = { [givenName]: options.header.slice(colon + 1).trim() };
  } else if (options.token !== undefined) {
    headers = { [headerName]: options.token };
  } else {
    throw usageError(
      `no token to verify: pass --token JWT or --header "${headerName}: JWT"`,
      'missing_verification_token',
    );
  }
  let body: Buffer;
  if (options.data !== undefined) body = Buffer.from(options.data, 'utf8');
  else if (options.file !== undefined) body = await readBodyArgument(options.file, ctx);
  else {
    const piped = await pipedBody(ctx.stdin);
    if (!piped)
      throw usageError(
        'no body to verify: give the raw body as FILE, - for stdin (or pipe it in), or --data',
        'missing_body',
      );
    body = piped;
  }
  return { body, headers, headerName, givenName, asRecorded: [], nowSeconds: options.now };
}

/** FILE, FILE:index (0-based) or FILE#id; default the last delivery. */
async function fromCapture(options: VerifyCommandOptions, spec: string, ctx: CliContext): Promise<Subject> {
  if ([options.file, options.data, options.token, options.header].some((value) => value !== undefined))
    throw usageError(
      '--delivery takes body and token from the capture: give no FILE, --data, --token or --header',
      'capture_selection',
    );
  const { readCaptures } = await import('../../../capture/read-captures.js');
  const match = /^(.*?)(?:#([\w-]+)|:(\d+))?$/.exec(spec);
  const file = match?.[1] ?? spec;
  const id = match?.[2];
  const index = match?.[3];
  // Streamed, keeping only the one delivery chosen: a capture of any size.
  const selector = id !== undefined ? { id } : index !== undefined ? { index: Number(index) } : { last: 1 };
  const { records, total } = await readCaptures(file, selector);
  const [record] = records;
  if (total === 0) throw usageError(`${file} holds no captured delivery`, 'capture_selection');
  if (!record)
    throw usageError(
      id !== undefined
        ? `no captured delivery has id ${id}`
        : `index ${index} is out of range: the capture holds ${total} deliveries (0 to ${total - 1})`,
      'capture_selection',
    );
  // The capture's own header name unless one is chosen: it is what the listener looked for.
  const headerName = await resolveHeaderName(options, ctx, record.headerName);
  return {
    body: fullCapturedBody(record),
    headers: capturedHeaderValues(record),
    headerName,
    record,
    asRecorded: options.atReceipt ? ['receivedAt'] : [],
    nowSeconds: options.atReceipt ? Math.floor(receivedAtMs(record) / 1000) : options.now,
  };
}

/**
 * The verification prefix. A bare token (the spec's form) never needs the stored settings, so a cold
 * `verify --token` does not open them; a value with a space in it may be the service's prefixed form.
 */
async function prefixFor(options: VerifyCommandOptions, subject: Subject, ctx: CliContext) {
  if (options.verificationPrefix !== undefined || ctx.env.LEDGERHOOK_VERIFICATION_PREFIX !== undefined)
    return resolveVerificationPrefix(options, ctx);
  const { value } = findHeader(subject.headers, subject.headerName);
  return value?.trim().includes(' ') ? resolveVerificationPrefix(options, ctx) : undefined;
}

const MARK: Record<VerifyCheck['status'], string> = { pass: '✔', fail: '✖', warn: '!', skip: '-' };

/** A check whose outcome rests on a captured fact says so: it was not re-established now. */
function labelChecks(result: VerifyResult, subject: Subject): VerifyCheck[] {
  if (subject.asRecorded.length === 0) return result.checks;
  const at = subject.record?.receivedAt ?? '';
  return result.checks.map((check) =>
    check.name === 'freshness' ? { ...check, detail: `${check.detail} (as recorded: received at ${at})` } : check,
  );
}

function hintsFor(result: VerifyResult, subject: Subject): string[] {
  const hints = result.ok ? [] : [...result.hints];
  if (!result.ok && result.code === 'missing_token' && subject.givenName !== undefined)
    hints.push(
      `the header line is named ${subject.givenName}, the verification header is ${subject.headerName} (choose it with --header-name or LEDGERHOOK_HEADER_NAME)`,
    );
  if (!result.ok && result.prefixSeen !== undefined)
    hints.push(
      `if the service really sends it: --verification-prefix '${result.prefixSeen}', or \`ledgerhook config set verificationPrefix '${result.prefixSeen}'\``,
    );
  return hints;
}

function render(result: VerifyResult, subject: Subject, ctx: CliContext): void {
  const c = ctx.color;
  const paint = { pass: c.green, fail: c.red, warn: c.yellow, skip: c.dim } as const;
  const recorded = subject.asRecorded.length > 0 ? ' (as recorded)' : '';
  if (result.ok) writeLine(ctx.stdout, c.green.bold(`✔ authentic webhook${recorded}`));
  else
    writeLine(ctx.stdout, `${c.red.bold(`✖ not authentic (${result.code})${recorded}`)}: ${printable(result.message)}`);
  for (const check of labelChecks(result, subject))
    writeLine(
      ctx.stdout,
      `  ${paint[check.status](MARK[check.status])} ${check.name.padEnd(10)} ${printable(check.detail)}`,
    );
  for (const hint of hintsFor(result, subject)) writeLine(ctx.stdout, `  ${c.cyan('hint:')} ${printable(hint)}`);
  for (const warning of result.warnings) writeLine(ctx.stdout, `  ${c.yellow('warning:')} ${printable(warning)}`);
  if (subject.record)
    writeLine(ctx.stdout, c.dim(`  listen's verdict at receipt: ${printable(describeVerdict(subject.record))}`));
  if (result.claims) {
    const iat = result.claims.iat;
    const when = typeof iat === 'number' && Number.isFinite(iat) ? ` (iat ${new Date(iat * 1000).toISOString()})` : '';
    writeLine(
      ctx.stdout,
      c.dim(`  claims${result.ok ? '' : ' (untrusted)'}: ${printable(JSON.stringify(result.claims))}${when}`),
    );
  }
}

function jsonReport(result: VerifyResult, subject: Subject): Record<string, unknown> {
  const common = {
    authentic: result.ok,
    asRecorded: subject.asRecorded,
    receivedAt: subject.record?.receivedAt,
    capturedVerdict: subject.record ? describeVerdict(subject.record) : undefined,
    ageSeconds: result.ageSeconds,
    claims: result.claims,
    header: result.header,
    checks: labelChecks(result, subject),
    warnings: result.warnings,
  };
  if (result.ok) return { ...common, secret: result.secretLabel ?? `#${result.secretIndex + 1}` };
  return { ...common, code: result.code, message: result.message, hints: hintsFor(result, subject) };
}

export async function run(options: VerifyCommandOptions, ctx: CliContext): Promise<void> {
  if (options.now !== undefined && options.ignoreExpiry)
    throw usageError('--now and --ignore-expiry contradict each other: choose one', 'conflicting_flags');
  if (options.atReceipt && (options.delivery === undefined || options.now !== undefined || options.ignoreExpiry))
    throw usageError('--at-receipt goes with --delivery, and not with --now or --ignore-expiry', 'conflicting_flags');
  const subject =
    options.delivery !== undefined ? await fromCapture(options, options.delivery, ctx) : await fromFlags(options, ctx);
  if (subject.record && !options.json)
    writeLine(ctx.stdout, ctx.color.dim(`delivery ${printableLine(subject.record.id)} from ${options.delivery ?? ''}`));
  const secrets = await requireWebhookSecrets(options, ctx);
  const verificationPrefix = await prefixFor(options, subject, ctx);
  const nowSeconds = subject.nowSeconds;
  // Through the request verifier, so that a repeated header is refused exactly as listen refuses it.
  const result = await verifyWebhookRequest({
    headers: subject.headers,
    headerName: subject.headerName,
    verificationPrefix,
    body: subject.body,
    secrets,
    // Loaded only when a signature fails: it tells "this is the production secret's token".
    otherSecrets: () => otherEnvironmentSecrets(options, ctx),
    toleranceSeconds: await resolveTolerance(options, ctx),
    now: nowSeconds === undefined ? undefined : () => nowSeconds * 1000,
    ignoreExpiry: options.ignoreExpiry === true,
    allowFutureIat: options.allowFutureIat === true,
  });
  if (options.json) writeJson(ctx, jsonReport(result, subject));
  else render(result, subject, ctx);
  if (!result.ok) {
    const error = new LedgerhookError('ERR_CHECK_FAILED', `webhook is not authentic: ${result.code}`, {
      details: { reason: 'webhook_not_authentic', code: result.code },
    });
    // The verdict just printed says why; with --json the stderr line is the only human one.
    throw options.json ? error : alreadySaid(error);
  }
}
