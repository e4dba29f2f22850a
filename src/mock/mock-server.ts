import type { IncomingMessage, ServerResponse } from 'node:http';
import { readRequestBody } from '@ledgerhook/webhooks/node';
import { sendJson } from '@ledgerhook/webhooks/node';
import { DEFAULT_MOCK_PORT } from '../defaults.js';
import { LedgerhookError } from '../errors.js';
import { serve } from '../http/serve.js';
import { delay } from '../util/delay.js';
import { type ChurnTimer, createChurn } from './churn.js';
import { createMockWebhookSender, type MockWebhookEvent } from './mock-webhooks.js';
import { MockService } from './mock-service.js';
import {
  MOCK_BASE_PATH,
  type MockRequest,
  type MockResponse,
  type MockServiceOptions,
  type MutationResult,
} from './mock-types.js';

export interface MockServerOptions extends Omit<MockServiceOptions, 'onMutation' | 'onChurn'> {
  port?: number | undefined;
  host?: string | undefined;
  /** Mutate on its own every this many seconds. */
  churnSeconds?: number | undefined;
  /** The churn timer (tests inject one that they fire themselves). */
  churnTimer?: ChurnTimer | undefined;
  /** Send signed webhooks for every mutation to this URL (needs webhookSecret). */
  webhookUrl?: URL | undefined;
  webhookSecret?: string | undefined;
  headerName?: string | undefined;
  /** What the service puts before the JWT in the header (e.g. "Bearer "); default none (spec 5.2). */
  verificationPrefix?: string | undefined;
  onMutation?: ((result: MutationResult) => void) | undefined;
  onWebhook?: ((event: MockWebhookEvent) => void) | undefined;
  /** Retry webhooks not answered 2xx after each of these waits (re-signed each time); default never. */
  webhookRetryScheduleMs?: readonly number[] | undefined;
}

export interface RunningMockServer {
  /** The API root, e.g. http://127.0.0.1:4010/rest/v5 */
  url: string;
  token: string;
  service: MockService;
  /** Resolves once every webhook queued so far has been sent. */
  webhooksIdle(): Promise<void>;
  close(): Promise<void>;
}

const MAX_CONTROL_BODY = 64 * 1024;

/** A control request's body (POST /__mock/mutate), within the same reader every edge uses. */
async function readSmallBody(req: IncomingMessage): Promise<string> {
  const read = await readRequestBody(req, MAX_CONTROL_BODY);
  if (!read.ok) throw new Error(read.reason === 'too_large' ? 'body too large' : 'the upload was cut off');
  return read.body.toString('utf8');
}

/** The node:http adapter: bytes in, bytes out; every decision is the service's `handle` (generated or recorded). */
export function httpAdapter(service: { handle(request: MockRequest): Promise<MockResponse> }) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value[0] : value;
    let body: string | undefined;
    if (req.method === 'POST') body = await readSmallBody(req);
    else req.resume();
    const response = await service.handle({ method: req.method ?? 'GET', url: req.url ?? '/', headers, body });
    if (response.delayMs) await delay(response.delayMs);
    if (response.drop) {
      req.socket.resetAndDestroy();
      return;
    }
    if (response.text === undefined) sendJson(res, response.status, response.body, response.headers);
    else if (!res.headersSent && !res.destroyed)
      res
        .writeHead(response.status, { ...response.headers, 'content-length': Buffer.byteLength(response.text) })
        .end(response.text);
  };
}

export type MockSenderOptions = Pick<
  MockServerOptions,
  'webhookUrl' | 'webhookSecret' | 'headerName' | 'verificationPrefix' | 'onWebhook' | 'webhookRetryScheduleMs'
>;

/** A mock's webhook sender (generated or recorded): none without a URL; a URL without a secret is refused. */
export function mockWebhookSender(options: MockSenderOptions) {
  const { webhookUrl, webhookSecret } = options;
  if (webhookUrl && !webhookSecret)
    throw new LedgerhookError('ERR_USAGE', 'sending webhooks needs a webhook secret to sign them with', {
      details: { reason: 'mock_webhook_secret_missing' },
    });
  return webhookUrl && webhookSecret
    ? createMockWebhookSender({
        url: webhookUrl,
        secret: webhookSecret,
        headerName: options.headerName,
        verificationPrefix: options.verificationPrefix,
        onEvent: options.onWebhook,
        retryScheduleMs: options.webhookRetryScheduleMs,
      })
    : undefined;
}

/** A mock service (generated or recorded) on node:http; port 0 picks a free port. */
export function serveMock(
  service: { handle(request: MockRequest): Promise<MockResponse> },
  options: { port?: number | undefined; host?: string | undefined },
) {
  const handle = httpAdapter(service);
  return serve(
    (req, res) => {
      handle(req, res).catch((error: Error) => sendJson(res, 500, { error: 'internal_error', message: error.message }));
    },
    {
      port: options.port ?? DEFAULT_MOCK_PORT,
      host: options.host,
      serverOptions: { keepAliveTimeout: 5000 },
      closeGraceMs: 0,
    },
  );
}

/** The service with its edges attached: webhooks for every mutation, and the churn timer. */
function wireService(options: MockServerOptions) {
  const sender = mockWebhookSender(options);
  const service = new MockService({
    ...options,
    onMutation: (result) => {
      options.onMutation?.(result);
      sender?.send(result);
    },
    onChurn: async (seconds) => {
      churn.set(seconds);
      await sender?.idle();
    },
  });
  const churn = createChurn((spec) => service.mutate(spec), options.churnTimer);
  return { service, sender, churn };
}

/** Serves a MockService over node:http (port 0 picks a free port). */
export async function startMockServer(options: MockServerOptions = {}): Promise<RunningMockServer> {
  const { service, sender, churn } = wireService(options);
  const served = await serveMock(service, options);
  churn.set(options.churnSeconds);
  return {
    url: `${served.origin}${MOCK_BASE_PATH}`,
    token: service.token,
    service,
    webhooksIdle: () => sender?.idle() ?? Promise.resolve(),
    async close() {
      churn.stop();
      sender?.stop();
      await sender?.idle();
      await served.close();
    },
  };
}
