import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LedgerhookError } from '../errors.js';
import { createMockWebhookSender, type MockWebhookEvent } from './mock-webhooks.js';
import { MOCK_BASE_PATH, MockService, type MockServiceOptions, type MutationResult } from './mock-service.js';

export const DEFAULT_MOCK_PORT = 4010;

export interface MockServerOptions extends Omit<MockServiceOptions, 'onMutation'> {
  port?: number;
  host?: string;
  /** Mutate on its own every this many seconds. */
  churnSeconds?: number;
  /** Send signed webhooks for every mutation to this URL (needs webhookSecret). */
  webhookUrl?: URL;
  webhookSecret?: string;
  headerName?: string;
  onMutation?: (result: MutationResult) => void;
  onWebhook?: (event: MockWebhookEvent) => void;
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

function readSmallBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_CONTROL_BODY) reject(new Error('body too large'));
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** Which datasets churn mutates, and how: mostly new and changed expenses, like a bank sync. */
const CHURN_PATHS = ['/expenses', '/expenses', '/expenses', '/bankTransfers', '/invoices', '/revenues'];

/** Serves a MockService over node:http (port 0 picks a free port). */
export async function startMockServer(options: MockServerOptions = {}): Promise<RunningMockServer> {
  if (options.webhookUrl && !options.webhookSecret) throw new LedgerhookError('ERR_USAGE', 'sending webhooks needs a webhook secret to sign them with');
  const sender = options.webhookUrl ? createMockWebhookSender({
    url: options.webhookUrl, secret: options.webhookSecret!,
    ...(options.headerName ? { headerName: options.headerName } : {}),
    ...(options.onWebhook ? { onEvent: options.onWebhook } : {}),
  }) : undefined;
  const service = new MockService({
    ...options,
    onMutation: (result) => {
      options.onMutation?.(result);
      sender?.send(result);
    },
  });
  let churn: NodeJS.Timeout | undefined;
  const setChurn = (seconds: number | undefined) => {
    if (churn) clearInterval(churn);
    churn = undefined;
    if (!seconds) return;
    let round = 0;
    churn = setInterval(() => {
      const path = CHURN_PATHS[round++ % CHURN_PATHS.length]!;
      service.mutate({ path, create: 1 + (round % 3), update: 1 + (round % 2), delete: round % 4 === 0 ? 1 : 0, retype: path === '/expenses' && round % 2 === 0 ? 1 : 0 });
    }, seconds * 1000);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/__mock/churn' && req.method === 'POST') {
      // { "seconds": 2 } starts (or changes) churn, { "seconds": 0 } stops it; answers once webhooks so far are sent.
      const seconds = Number((JSON.parse((await readSmallBody(req)) || '{}') as { seconds?: unknown }).seconds ?? 0);
      setChurn(Number.isFinite(seconds) && seconds > 0 ? seconds : undefined);
      await sender?.idle();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ churnSeconds: seconds > 0 ? seconds : null }));
      return;
    }
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value[0] : value;
    const body = req.method === 'POST' ? await readSmallBody(req) : (req.resume(), undefined);
    const response = await service.handle({ method: req.method ?? 'GET', url: req.url ?? '/', headers, ...(body !== undefined ? { body } : {}) });
    if (response.delayMs) await new Promise((resolve) => setTimeout(resolve, response.delayMs));
    if (response.drop) {
      req.socket.resetAndDestroy();
      return;
    }
    const text = JSON.stringify(response.body);
    res.writeHead(response.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...response.headers }).end(text);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'internal_error', message: error.message }));
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new LedgerhookError('ERR_USAGE', error.code === 'EADDRINUSE' ? `port ${options.port ?? DEFAULT_MOCK_PORT} is already in use; choose another with --port (0 picks a free one)` : `cannot listen: ${error.message}`, { cause: error })));
    server.listen(options.port ?? DEFAULT_MOCK_PORT, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  setChurn(options.churnSeconds);
  return {
    url: `http://${host}:${address.port}${MOCK_BASE_PATH}`,
    token: service.token,
    service,
    webhooksIdle: () => sender?.idle() ?? Promise.resolve(),
    async close() {
      if (churn) clearInterval(churn);
      await sender?.idle();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
