import { resolveSampleType } from '../../../catalogue/resolve.js';
import { roundMs } from '../../../util/percentiles.js';
import { LedgerhookError, usageError } from '../../../errors.js';
import { buildDelivery, type OutgoingDelivery } from '../../../delivery/build-delivery.js';
import { sendDeliveries, sendSummaryError, type SendSummary } from '../../../delivery/send-deliveries.js';
import { postWebhook, type DeliveryResponse } from '../../../delivery/post-webhook.js';
import { resolveTarget } from '../../../delivery/target.js';
import { buildSampleBody } from '../../../samples/sample-body.js';
import { isObject } from '../../../util/is-object.js';
import { parseWebhookBody } from '@ledgerhook/webhooks';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import type { SendSampleCommandOptions } from './definition.js';
import { createProgressView } from '../../progress.js';
import { readInputFile } from '../../read-input.js';
import {
  requireSigningSecret,
  resolveEnvironment,
  resolveHeaderName,
  resolveVerificationPrefix,
} from '../../resolve-settings.js';
import { localListenerTarget, meansLocalListener } from '../../local-listener.js';
import { configDirOf } from '../../local-environment.js';
import { commaList } from '../../parsers.js';

function parseEventData(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw usageError(`--event-data is not valid JSON (${(error as Error).message})`, 'invalid_flag_value');
  }
  if (!isObject(value)) throw usageError('--event-data must be a JSON object', 'invalid_flag_value');
  return value;
}

async function bodyFor(options: SendSampleCommandOptions): Promise<Buffer> {
  if (options.body !== undefined) {
    const conflicting = ['type', 'event', 'user', 'entities', 'eventData', 'set'].filter(
      (key) => options[key as keyof SendSampleCommandOptions] !== undefined,
    );
    if (conflicting.length > 0)
      throw usageError(
        `--body sends a file exactly as it is; it cannot be combined with ${conflicting.map((k) => (k === 'type' ? 'TYPE' : `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`)).join(', ')}`,
        'conflicting_flags',
      );
    return readInputFile(options.body, 'body file');
  }
  if (options.type === undefined)
    throw usageError(
      'say what to send: ENTITY_UPDATE, LIFECYCLE_EVENT --event NAME, an event name, or --body FILE',
      'missing_target',
    );
  const { type, event } = resolveSampleType(options.type);
  const eventData = parseEventData(options.eventData);
  const entities = commaList(options.entities);
  const body = buildSampleBody({
    type,
    event: event?.name ?? options.event,
    userId: options.user,
    entities,
    eventData,
    set: options.set,
  });
  return Buffer.from(JSON.stringify(body), 'utf8');
}

function describeBody(body: Buffer): string {
  const parsed = parseWebhookBody(body);
  if (!parsed.ok) return `${body.length} bytes (${parsed.reason})`;
  const b = parsed.body;
  return b.type === 'ENTITY_UPDATE'
    ? `ENTITY_UPDATE for ${b.userId}: ${b.entities.join(', ')}`
    : `LIFECYCLE_EVENT ${b.event} for ${b.userId}`;
}

function excerpt(response: DeliveryResponse): string {
  const text = response.bodyExcerpt.replace(/\s+/g, ' ').trim();
  const short = text.length > 160 ? `${text.slice(0, 160)}…` : text;
  return short ? short + (response.bodyTruncated ? ' (answer cut off)' : '') : '(empty answer)';
}

const isSuccess = (status: number) => status >= 200 && status < 300;

/** What every delivery of this run shares: where it goes, its body and how it is signed. */
interface Send {
  url: URL;
  /** Listen's default port, tried because no running listener is recorded (local-listener.ts). */
  listenDefault: boolean;
  body: Buffer;
  signed: boolean;
  timeoutMs: number;
  makeDelivery: () => Promise<OutgoingDelivery>;
}

/** Resolves the target, the body and the signing settings, refusing bad flags before anything is sent. */
async function prepareSend(options: SendSampleCommandOptions, ctx: CliContext): Promise<Send> {
  if (options.unsigned && (options.iat !== undefined || options.secret || options.secretFile))
    throw usageError(
      '--unsigned sends no token: it cannot be combined with --iat, --secret or --secret-file',
      'conflicting_flags',
    );
  // The body first: a missing --body FILE is the first thing said, whatever the target.
  const body = await bodyFor(options);
  const { url, listenDefault } = await targetOf(options, ctx);
  const secret = options.unsigned ? undefined : await requireSigningSecret(options, ctx, { createLocal: true });
  const headerName = await resolveHeaderName(options, ctx);
  const verificationPrefix = await resolveVerificationPrefix(options, ctx);
  return {
    url,
    listenDefault,
    body,
    signed: secret !== undefined,
    timeoutMs: Math.round(options.timeout * 1000),
    makeDelivery: () =>
      buildDelivery({
        body,
        headerName,
        verificationPrefix,
        secret,
        iat: options.iat,
      }),
  };
}

/**
 * --to as typed; none, or `localhost` with no port, means the `ledgerhook listen` running on this
 * machine for the environment (local-listener.ts), else listen's default port.
 */
async function targetOf(
  options: Pick<SendSampleCommandOptions, 'to' | 'env'>,
  ctx: CliContext,
): Promise<{ url: URL; listenDefault: boolean }> {
  if (!meansLocalListener(options.to)) return { url: resolveTarget(options.to ?? ''), listenDefault: false };
  const { url, recorded } = localListenerTarget(configDirOf(ctx.env), await resolveEnvironment(options.env, ctx));
  return { url, listenDefault: !recorded };
}

/** Nothing answered on listen's default port: said as such, with how to start listen. */
function noListener(error: unknown, send: Send): unknown {
  if (!send.listenDefault || !(error instanceof LedgerhookError) || error.details.reason !== 'connection_refused')
    return error;
  return new LedgerhookError(
    'ERR_NETWORK',
    `nothing is listening on ${send.url.host}, the port \`ledgerhook listen\` uses by default, and no running listen is recorded for this environment`,
    { cause: error, details: { ...error.details, listenDefault: true } },
  );
}

function printAnswer(
  send: Send,
  response: DeliveryResponse,
  options: Pick<SendSampleCommandOptions, 'json'>,
  ctx: CliContext,
) {
  if (options.json) {
    writeJson(ctx, {
      url: send.url.href,
      status: response.status,
      ok: isSuccess(response.status),
      latencyMs: roundMs(response.latencyMs),
      response: response.bodyExcerpt,
      responseTruncated: response.bodyTruncated,
      location: response.location,
      body: send.body.toString('utf8'),
      signed: send.signed,
    });
    return;
  }
  const paint = isSuccess(response.status) ? ctx.color.green : ctx.color.red;
  const redirect = response.location ? ` (redirect to ${response.location}; deliveries are not redirected)` : '';
  writeLine(
    ctx.stdout,
    `${paint(String(response.status))} in ${response.latencyMs.toFixed(1)} ms${redirect}: ${excerpt(response)}`,
  );
}

/** One delivery (the default): its answer printed, and anything but 2xx a failed check. */
async function sendOne(send: Send, options: Pick<SendSampleCommandOptions, 'json'>, ctx: CliContext): Promise<void> {
  const delivery = await send.makeDelivery();
  if (!options.json)
    writeLine(ctx.stdout, `${ctx.color.bold('POST')} ${send.url.href}  ${ctx.color.dim(describeBody(send.body))}`);
  const response = await postWebhook({
    url: send.url,
    body: delivery.body,
    headers: delivery.headers,
    timeoutMs: send.timeoutMs,
    signal: ctx.signal,
  }).catch((error: unknown) => {
    throw noListener(error, send);
  });
  printAnswer(send, response, options, ctx);
  if (!isSuccess(response.status))
    throw new LedgerhookError('ERR_CHECK_FAILED', `the receiver answered ${response.status}, not 2xx`);
}

function printSummary(
  url: URL,
  summary: SendSummary,
  options: Pick<SendSampleCommandOptions, 'json'>,
  ctx: CliContext,
): void {
  if (options.json) {
    const rate = Math.round(summary.sent / Math.max(0.001, summary.elapsedMs / 1000));
    writeJson(ctx, { url: url.href, ...summary, elapsedMs: Math.round(summary.elapsedMs), perSecond: rate });
    return;
  }
  const rate = summary.sent / (summary.elapsedMs / 1000);
  writeLine(ctx.stdout, `sent ${summary.sent} in ${(summary.elapsedMs / 1000).toFixed(2)} s (${rate.toFixed(0)}/s)`);
  for (const [status, count] of Object.entries(summary.statusCounts)) {
    const paint = status !== 'network' && isSuccess(Number(status)) ? ctx.color.green : ctx.color.red;
    writeLine(ctx.stdout, `  ${paint(status.padEnd(8))}${count}`);
  }
  const l = summary.latencyMs;
  writeLine(ctx.stdout, `  latency p50 ${l.p50.toFixed(1)} ms, p95 ${l.p95.toFixed(1)} ms, max ${l.max.toFixed(1)} ms`);
}

/** --count N: sent with a progress line, each with a fresh token, then summarised. */
async function sendMany(
  send: Send,
  options: Pick<SendSampleCommandOptions, 'json' | 'count' | 'concurrency'>,
  ctx: CliContext,
): Promise<void> {
  const progress = await createProgressView(ctx, { json: Boolean(options.json) });
  if (!options.json)
    writeLine(
      ctx.stderr,
      `sending ${options.count} × ${describeBody(send.body)} to ${send.url.href}, ${options.concurrency} at a time`,
    );
  const { summary } = await sendDeliveries({
    url: send.url,
    count: options.count,
    concurrency: options.concurrency,
    makeDelivery: send.makeDelivery,
    timeoutMs: send.timeoutMs,
    signal: ctx.signal,
    onProgress: ({ done, total }) => progress.update(`${done}/${total} sent`),
  });
  progress.stop();
  printSummary(send.url, summary, options, ctx);
  const failed = sendSummaryError(summary, send.url);
  if (failed) throw noListener(failed, send);
}

export async function run(options: SendSampleCommandOptions, ctx: CliContext): Promise<void> {
  const send = await prepareSend(options, ctx);
  if (options.count === 1) await sendOne(send, options, ctx);
  else await sendMany(send, options, ctx);
}
