import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { LedgerhookError } from '../../src/errors.js';
import { createRedactor } from '../../src/redact/redactor.js';
import { startRecording } from '../../src/record/start-recording.js';
import { tempDir } from '../helpers/cli.js';

const redactor = createRedactor({ key: Buffer.alloc(32, 1) });
const PAGE = { data: [{ id: 1, email: 'alice@example.com', amount: 3 }], lastUpdatedDate: '2026-01-01T00:00:00Z' };

/** Not the mock: a service that logs what reached it and answers as the path says. */
async function service() {
  const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    if (req.url?.startsWith('/rest/v5/gzip')) {
      res
        .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        .end(gzipSync(JSON.stringify(PAGE)));
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'session=abc', 'x-ratelimit-remaining': '9' })
      .end(JSON.stringify(PAGE));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v5`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A raw request (so that paths with dot segments and any method reach the proxy as written). */
function send(url: string, path: string, options: { method?: string; headers?: Record<string, string> } = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest(
      { host: target.hostname, port: target.port, path, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const timeline = (dir: string) =>
  readFileSync(join(dir, 'recording.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe('the recording proxy', () => {
  it('forwards list requests to the base URL only; Authorization travels but is never written; the page comes back whole and is recorded redacted', async () => {
    const api = await service();
    cleanups.push(api.close);
    const dir = join(tempDir(), 'rec');
    const recording = await startRecording({ baseUrl: api.baseUrl, output: { dir, redactor } });
    cleanups.push(recording.close);
    const origin = new URL(recording.proxyUrl).origin;
    const page = await send(origin, '/rest/v5/expenses?type=PENDING&access_token=query-secret', {
      headers: { authorization: 'Bearer top-secret-token', limit: '10', 'accept-encoding': 'gzip', cookie: 'c=1' },
    });
    assert.equal(page.status, 200);
    assert.deepEqual(JSON.parse(page.body), PAGE, 'the client gets the service answer as it was');
    assert.equal(page.headers['x-ratelimit-remaining'], '9');
    const reached = api.seen[0];
    assert.equal(reached?.url, '/rest/v5/expenses?type=PENDING&access_token=query-secret');
    assert.equal(reached?.headers.authorization, 'Bearer top-secret-token');
    assert.equal(reached?.headers['accept-encoding'], undefined, 'the service is asked for plain bytes');
    assert.equal(reached?.headers.host, new URL(api.baseUrl).host);

    for (const [path, method, status] of [
      ['/rest/v5/../admin', 'GET', 404],
      ['/other/expenses', 'GET', 404],
      ['http://evil.example/rest/v5x', 'GET', 404],
      ['/rest/v5/expenses', 'POST', 405],
    ] as const)
      assert.equal((await send(origin, path, { method })).status, status, `${method} ${path}`);
    assert.equal(api.seen.length, 1, 'nothing refused reached the service');

    const zipped = await send(origin, '/rest/v5/gzip');
    assert.equal(zipped.status, 200);
    await recording.close();
    const text = readFileSync(join(dir, 'recording.jsonl'), 'utf8');
    for (const secret of ['top-secret-token', 'Bearer', 'query-secret', 'alice@example.com', 'session=abc', 'c=1'])
      assert.ok(!text.includes(secret), secret);
    const [header, first, second] = timeline(dir);
    assert.equal(header.baseUrl, api.baseUrl);
    assert.deepEqual(
      [first.path, first.query, first.request, first.status],
      ['/expenses', 'type=PENDING', { limit: '10' }, 200],
    );
    assert.deepEqual(first.headers, { 'content-type': 'application/json', 'x-ratelimit-remaining': '9' });
    assert.match(first.body.data[0].email, /^redacted:/);
    assert.match(second.body.data[0].email, /^redacted:/, 'a compressed answer is recorded as JSON');
  });

  it('bounded: an answer past the body cap is relayed but not recorded, the size limit answers 507, a dead service 502 (recorded)', async () => {
    const api = await service();
    cleanups.push(api.close);
    const dir = join(tempDir(), 'rec');
    const recording = await startRecording({
      baseUrl: api.baseUrl,
      output: { dir, redactor, maxRecordedBodyBytes: 10, maxBytes: 1 },
    });
    cleanups.push(recording.close);
    const origin = new URL(recording.proxyUrl).origin;
    const big = await send(origin, '/rest/v5/expenses');
    assert.deepEqual(JSON.parse(big.body), PAGE);
    const full = await send(origin, '/rest/v5/expenses');
    assert.equal(full.status, 507);
    assert.equal(api.seen.length, 1);
    await recording.close();
    const [, line] = timeline(dir);
    assert.deepEqual([line.bodyOmitted, line.body], [true, undefined]);

    await api.close();
    const deadDir = join(tempDir(), 'rec');
    const dead = await startRecording({ baseUrl: api.baseUrl, output: { dir: deadDir, redactor } });
    cleanups.push(dead.close);
    const answer = await send(new URL(dead.proxyUrl).origin, '/rest/v5/expenses');
    assert.equal(answer.status, 502);
    await dead.close();
    const [, unreachable] = timeline(deadDir);
    assert.equal(unreachable.status, 0);
    assert.match(unreachable.error, /nothing is listening|connection/);
  });

  it('never writes over a recording, and refuses a base URL that carries credentials', async () => {
    const dir = join(tempDir(), 'rec');
    const first = await startRecording({ baseUrl: 'http://127.0.0.1:9/rest/v5', output: { dir, redactor } });
    await first.close();
    const before = readFileSync(join(dir, 'recording.jsonl'));
    await assert.rejects(
      startRecording({ baseUrl: 'http://127.0.0.1:9/rest/v5', output: { dir, redactor } }),
      (error: LedgerhookError) => error.details.reason === 'recording_exists',
    );
    assert.deepEqual(readFileSync(join(dir, 'recording.jsonl')), before);
    await assert.rejects(
      startRecording({
        baseUrl: 'https://user:pw@sandbox.example/rest/v5',
        output: { dir: join(tempDir(), 'r'), redactor },
      }),
      /must not carry credentials/,
    );
  });
});
