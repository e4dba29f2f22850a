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
import { DEFAULT_MAX_CONNECTIONS } from '../defaults.js';
import type { DeliverySubscriber } from '../delivery/delivery-events.js';
import { serve } from '../http/serve.js';
import { type RunningListener, startListener } from '../listen/listener.js';
import { redactCaptureRecord } from '../redact/redact-capture.js';
import { basePathOf } from './proxy-exchange.js';
import { DELIVERIES_FILE } from './recording-format.js';
import { normalizeRecordingOptions, type RecordingOptions } from './recording-options.js';
import { recordingProxyHandler } from './recording-proxy.js';
import { RecordingWriter } from './recording-writer.js';

export {
  checkRecordBaseUrl,
  type RecordingListenerOptions,
  type RecordingOptions,
  type RecordingRefusal,
} from './recording-options.js';

export interface RunningRecording {
  /** Where to point the client: the proxy's origin plus the base URL's path. */
  proxyUrl: string;
  listener: RunningListener | undefined;
  /** Lines written to the timeline so far (exchanges and delivery marks). */
  readonly written: number;
  close(): Promise<void>;
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
export async function startRecording(input: RecordingOptions): Promise<RunningRecording> {
  const options = normalizeRecordingOptions(input);
  const { baseUrl: base, output } = options;
  let handler: ReturnType<typeof recordingProxyHandler> | undefined;
  const served = await serve(
    (req, res) => {
      if (handler) handler.handler(req, res);
      else res.writeHead(503, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"error":"starting"}');
    },
    {
      port: options.port,
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
      dir: output.dir,
      sync: output.sync,
      maxBytes: output.maxBytes,
      header: {
        startedAt: new Date(options.now()).toISOString(),
        baseUrl: `${base.origin}${basePathOf(base)}`,
        basePath: basePathOf(base),
        redaction: { keyId: output.redactor.keyId, fields: [...output.redactor.fields] },
        ...(options.paths ? { paths: options.paths } : {}),
      },
    });
    const recording = writer;
    if (options.listener)
      listener = await startListener({
        ...options.listener,
        capture: {
          path: join(output.dir, DELIVERIES_FILE),
          sync: output.sync,
          redact: (record) => redactCaptureRecord(record, output.redactor),
        },
        subscribers: [markSubscriber(recording)],
      });
  } catch (error) {
    await served.close();
    // A recording that never started leaves nothing behind: the next run may use the directory.
    if (writer) await writer.close().then(() => unlink(writer?.path ?? ''));
    throw error;
  }
  handler = recordingProxyHandler(options, writer);
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
