import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { readCappedBytes } from '../http/fetch-attempt.js';
import { loadUndici } from '../http/load-undici.js';
import { networkError } from '../http/network-error.js';
import { sendJson } from '@ledgerhook/webhooks/node';
import { type AnswerFacts, exchangeLine, type ForwardPlan, planForward, type ProxyRequest } from './proxy-exchange.js';
import type { ResolvedRecordingOptions } from './recording-options.js';
import type { RecordingWriter } from './recording-writer.js';

/** Never sent back: they belong to the connection to the service. */
const NOT_RELAYED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'trailer', 'upgrade']);

/** The bytes as JSON can be read from them: a service that compresses although not asked is decoded (bounded). */
function decoded(body: Buffer, encoding: string | undefined, max: number): Buffer | undefined {
  const options = { maxOutputLength: max + 1 };
  try {
    if (encoding === undefined || encoding === 'identity') return body;
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(body, options);
    if (encoding === 'deflate') return inflateSync(body, options);
    if (encoding === 'br') return brotliDecompressSync(body, options);
  } catch {
    return undefined;
  }
  return undefined;
}

function relay(res: ServerResponse, status: number, headers: AnswerFacts['headers'], body: Buffer): void {
  if (res.headersSent || res.destroyed) return;
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !NOT_RELAYED.has(name)) out[name] = value;
  res.writeHead(status, { ...out, 'content-length': body.length }).end(body);
}

type Forwarded = { ok: true; answer: AnswerFacts; bytes: Buffer } | { ok: false; answer: AnswerFacts; status: number };

/** One request to the service: its answer within the bounds, or what went wrong. */
async function forward(
  plan: Extract<ForwardPlan, { ok: true }>,
  options: ResolvedRecordingOptions,
): Promise<Forwarded> {
  const { request } = await loadUndici();
  const { timeoutMs, maxResponseBytes: max } = options.limits;
  let response: Dispatcher.ResponseData;
  let bytes: Buffer | undefined;
  try {
    const base = { method: 'GET' as const, headers: plan.headers, signal: AbortSignal.timeout(timeoutMs) };
    response = await (options.dispatcher
      ? request(plan.upstream, { ...base, dispatcher: options.dispatcher })
      : request(plan.upstream, base));
    bytes = await readCappedBytes(response.body, max);
  } catch (error) {
    const message = networkError(error, 'GET', plan.upstream, timeoutMs).message;
    return {
      ok: false,
      status: 502,
      answer: { status: 0, headers: {}, body: undefined, bodyBytes: 0, error: message },
    };
  }
  if (bytes === undefined) {
    const error = `the answer was larger than ${max} bytes: not forwarded`;
    const answer = { status: response.statusCode, headers: response.headers, body: undefined, bodyBytes: max, error };
    return { ok: false, status: 502, answer };
  }
  const encoding = response.headers['content-encoding'];
  const body = decoded(bytes, Array.isArray(encoding) ? encoding[0] : encoding, options.output.maxRecordedBodyBytes);
  return {
    ok: true,
    bytes,
    answer: { status: response.statusCode, headers: response.headers, body, bodyBytes: body?.length ?? bytes.length },
  };
}

/**
 * The node:http side of the recording proxy: each list request is forwarded to the service, its
 * exchange written to the recording, and only then is the answer relayed (a client that got a page
 * knows the page is recorded). Bounded: an answer past the size cap is refused, and while lines wait
 * for the disk (or the recording is full) new requests get 503 without being forwarded.
 */
export function recordingProxyHandler(
  options: ResolvedRecordingOptions,
  writer: RecordingWriter,
): {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  drain(): Promise<void>;
} {
  const { now } = options;
  const inFlight = new Set<Promise<void>>();
  const refuse = (request: ProxyRequest, res: ServerResponse, status: number, error: string, message: string) => {
    const headers: Record<string, string> = status === 503 ? { 'retry-after': '1' } : {};
    sendJson(res, status, { error, message }, headers);
    options.onRefused?.({ method: request.method, path: request.url, status, reason: message });
  };
  const serveOne = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    req.resume();
    const request: ProxyRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers };
    const plan = planForward(request, options.baseUrl);
    if (!plan.ok) {
      sendJson(res, plan.status, plan.body, plan.headers);
      options.onRefused?.({
        method: request.method,
        path: request.url,
        status: plan.status,
        reason: plan.body.message,
      });
      return;
    }
    if (writer.full)
      return refuse(request, res, 507, 'recording_full', 'the recording reached its size limit; start another');
    if (!writer.hasRoom()) return refuse(request, res, 503, 'busy', 'the recording is catching up; retry later');
    const seq = writer.nextSeq();
    const at = now();
    const forwarded = await forward(plan, options);
    const line = exchangeLine(seq, at, now() - at, request, plan, forwarded.answer, {
      redactor: options.output.redactor,
      maxBodyBytes: options.output.maxRecordedBodyBytes,
    });
    try {
      await writer.append(line);
    } catch (error) {
      return refuse(
        request,
        res,
        503,
        'not_recorded',
        `the exchange could not be recorded: ${(error as Error).message}`,
      );
    }
    options.onExchange?.(line);
    if (forwarded.ok) relay(res, forwarded.answer.status, forwarded.answer.headers, forwarded.bytes);
    else sendJson(res, forwarded.status, { error: 'upstream_failed', message: forwarded.answer.error });
  };
  return {
    handler(req, res) {
      const task = serveOne(req, res).catch((error: unknown) => {
        sendJson(res, 500, { error: 'internal', message: (error as Error).message });
      });
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    },
    async drain() {
      await Promise.allSettled([...inFlight]);
    },
  };
}
