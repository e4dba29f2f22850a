/**
 * record/: `ledgerhook record`, a recording proxy in front of the API with a webhook listener in
 * the same timeline (this file).
 *   proxy-exchange.ts    where a request may go and what of it is written (pure)
 *   recording-proxy.ts   the node:http side: record, then answer
 *   recording-format.ts  the timeline's lines, each checked as hostile input
 *   recording-writer.ts  one sequence, whole lines through the capture writer, bounded
 *   read-recording.ts    both files read back, bounded
 */
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_RECORDED_BODY_BYTES } from '../defaults.js';
import type { DeliverySubscriber } from '../delivery/delivery-events.js';
import { LedgerhookError } from '../errors.js';
import { serve } from '../http/serve.js';
import { type ListenerOptions, type RunningListener, startListener } from '../listen/listener.js';
import { redactCaptureRecord } from '../redact/redact-capture.js';
import type { Redactor } from '../redact/redactor.js';
import { basePathOf } from './proxy-exchange.js';
import { DELIVERIES_FILE, type RecordedExchange } from './recording-format.js';
import { recordingProxyHandler, type RecordingProxyOptions } from './recording-proxy.js';
import { RecordingWriter } from './recording-writer.js';

/** The webhook listener of a recording: listen's options, but the capture and its redaction are the recording's. */
export type RecordingListenerOptions = Omit<ListenerOptions, 'capture' | 'subscribers'>;

export interface RecordingOptions {
  /** The API root every request is forwarded to (http or https, no credentials, no query). */
  baseUrl: string;
  /** The recording's directory (created; an existing recording in it is never touched). */
  dir: string;
  redactor: Redactor;
  /** The entity list paths that differ from the catalogue's (`paths.expense`), kept in the header for the replay. */
  paths?: Readonly<Partial<Record<string, string>>> | undefined;
  port?: number | undefined;
  host?: string | undefined;
  /** A webhook listener in the same run, recording into the same timeline. */
  listener?: RecordingListenerOptions | undefined;
  /** fdatasync each batch of lines. */
  sync?: boolean | undefined;
  /** The timeline file's size limit. */
  maxBytes?: number | undefined;
  maxRecordedBodyBytes?: number | undefined;
  maxResponseBytes?: number | undefined;
  timeoutMs?: number | undefined;
  dispatcher?: Dispatcher | undefined;
  now?: (() => number) | undefined;
  onExchange?: ((line: RecordedExchange) => void) | undefined;
  onRefused?: RecordingProxyOptions['onRefused'];
}

export interface RunningRecording {
  /** Where to point the client: the proxy's origin plus the base URL's path. */
  proxyUrl: string;
  listener: RunningListener | undefined;
  /** Lines written to the timeline so far (exchanges and delivery marks). */
  readonly written: number;
  close(): Promise<void>;
}

/** The API root as a URL a request may be forwarded to; anything else is refused here, naming it. */
export function checkRecordBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LedgerhookError('ERR_USAGE', `the base URL "${text.slice(0, 200)}" is not a URL`, {
      details: { reason: 'invalid_base_url' },
    });
  }
  const why =
    url.protocol !== 'http:' && url.protocol !== 'https:'
      ? `must be http or https, not ${url.protocol}`
      : url.username || url.password
        ? 'must not carry credentials (the client sends its own Authorization header, which is forwarded and never recorded)'
        : url.search || url.hash
          ? 'must not carry a query or a fragment'
          : undefined;
  if (why) throw new LedgerhookError('ERR_USAGE', `the base URL ${why}`, { details: { reason: 'invalid_base_url' } });
  return url;
}

function definedPaths(paths: Readonly<Partial<Record<string, string>>>): Record<string, string> {
  return Object.fromEntries(Object.entries(paths).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The listener's deliveries take their place in the timeline: a mark per delivery, before it is answered. */
function markSubscriber(writer: RecordingWriter): DeliverySubscriber {
  return {
    record: (delivery) =>
      writer.append({ kind: 'delivery', seq: writer.nextSeq(), at: delivery.receivedAt, id: delivery.id }),
    hasRoom: () => writer.hasRoom(),
  };
}

/**
 * Records real traffic: a loopback proxy in front of the API (every exchange written, redacted, in
 * order) and, optionally, a webhook listener whose deliveries join the same timeline. Requests are
 * answered 503 until everything is open, so that an answer always means "recorded".
 */
export async function startRecording(options: RecordingOptions): Promise<RunningRecording> {
  const base = checkRecordBaseUrl(options.baseUrl);
  let handler: ReturnType<typeof recordingProxyHandler> | undefined;
  const served = await serve(
    (req, res) => {
      if (handler) handler.handler(req, res);
      else res.writeHead(503, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"error":"starting"}');
    },
    {
      port: options.port ?? 0,
      host: options.host,
      serverOptions: { keepAliveTimeout: 5000 },
      // Each request holds its answer (up to the response cap) until it is recorded: connections are bounded.
      maxConnections: DEFAULT_MAX_CONNECTIONS,
    },
  );
  let writer: RecordingWriter | undefined;
  let listener: RunningListener | undefined;
  try {
    writer = await RecordingWriter.create({
      dir: options.dir,
      sync: options.sync,
      maxBytes: options.maxBytes,
      header: {
        startedAt: new Date((options.now ?? Date.now)()).toISOString(),
        baseUrl: `${base.origin}${basePathOf(base)}`,
        basePath: basePathOf(base),
        redaction: { keyId: options.redactor.keyId, fields: [...options.redactor.fields] },
        ...(options.paths ? { paths: definedPaths(options.paths) } : {}),
      },
    });
    const recording = writer;
    if (options.listener)
      listener = await startListener({
        ...options.listener,
        capture: {
          path: join(options.dir, DELIVERIES_FILE),
          sync: options.sync,
          redact: (record) => redactCaptureRecord(record, options.redactor),
        },
        subscribers: [markSubscriber(recording)],
      });
  } catch (error) {
    await served.close();
    // A recording that never started leaves nothing behind: the next run may use the directory.
    if (writer) await writer.close().then(() => unlink(writer?.path ?? ''));
    throw error;
  }
  handler = recordingProxyHandler({
    base,
    writer,
    redactor: options.redactor,
    maxResponseBytes: options.maxResponseBytes,
    maxRecordedBodyBytes: options.maxRecordedBodyBytes ?? DEFAULT_MAX_RECORDED_BODY_BYTES,
    timeoutMs: options.timeoutMs,
    dispatcher: options.dispatcher,
    now: options.now,
    onExchange: options.onExchange,
    onRefused: options.onRefused,
  });
  const open = { writer, handler, listener };
  let closing: Promise<void> | undefined;
  return {
    proxyUrl: `${served.origin}${basePathOf(base)}`,
    listener,
    get written() {
      return open.writer.written;
    },
    close() {
      closing ??= (async () => {
        await served.close(() => open.handler.drain());
        await open.listener?.close();
        await open.writer.close();
      })();
      return closing;
    },
  };
}
