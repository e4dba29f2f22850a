import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileStore } from '../../src/store/file/file-store.js';
import { syncDataset, type SyncDatasetOptions } from '../../src/sync/sync-dataset.js';
import { readdirSync } from 'node:fs';
import { runCli, startCli, tempDir } from '../helpers/cli.js';

type Handler = (request: IncomingMessage, response: ServerResponse, count: number) => void;

/** Not the mock: a tiny server written from the spec that answers as the test says, and logs each request. */
async function server(handler: Handler) {
  const requests: Array<{ cursor: string | undefined }> = [];
  const http = createServer((request, response) => {
    requests.push({ cursor: request.headers.cursor as string | undefined });
    handler(request, response, requests.length);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}/rest/v5`,
    requests,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const page = (ids: number[], extra: Record<string, unknown> = {}) => ({
  data: ids.map((id) => ({ id })),
  lastUpdatedDate: '2026-11-24T10:00:00Z',
  ...extra,
});

/** syncDataset with an injected sleep: no real waiting, every wait recorded. */
function run(baseUrl: string, extra: Partial<SyncDatasetOptions> = {}) {
  const dir = tempDir();
  const waits: number[] = [];
  const result = syncDataset({
    baseUrl,
    token: 'tok',
    path: '/invoices',
    store: new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') }),
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });
  return { result, waits };
}

describe('rate limits and slow answers are ridden out', () => {
  it('429 without Retry-After, 12 times (past the old 5 attempts), then 200: the sync completes', async () => {
    const api = await server((_q, response, count) =>
      count <= 12 ? json(response, 429, { error: 'slow down' }) : json(response, 200, page([1, 2])),
    );
    try {
      const { result, waits } = run(api.baseUrl);
      const summary = await result;
      assert.equal(summary.total, 2);
      assert.equal(waits.length, 12);
    } finally {
      await api.close();
    }
  });

  it('Retry-After in seconds and as an HTTP-date are honoured', async () => {
    const now = Date.UTC(2026, 10, 24, 12, 0, 0);
    const date = new Date(now + 7000).toUTCString();
    const api = await server((_q, response, count) => {
      if (count === 1) return json(response, 429, {}, { 'retry-after': '2' });
      if (count === 2) return json(response, 503, {}, { 'retry-after': date });
      return json(response, 200, page([1]));
    });
    try {
      const { result, waits } = run(api.baseUrl, { now: () => now });
      await result;
      assert.deepEqual(waits, [2000, 7000]);
    } finally {
      await api.close();
    }
  });

  it('a Retry-After past the budget stops at once, naming the budget; a budget spent stops too', async () => {
    const far = await server((_q, response) => json(response, 429, {}, { 'retry-after': '900' }));
    const always = await server((_q, response) => json(response, 503, {}));
    try {
      await assert.rejects(run(far.baseUrl).result, (error: { details: { reason: string }; message: string }) => {
        assert.equal(error.details.reason, 'retry_after_too_long');
        assert.match(error.message, /900 s .*300 s wait budget/);
        return true;
      });
      assert.equal(far.requests.length, 1);
      await assert.rejects(run(always.baseUrl, { limits: { maxWaitMs: 10_000 } }).result, /wait budget/);
    } finally {
      await far.close();
      await always.close();
    }
  });

  it('a multi-page read keeps its pages across the wait: only the limited page is asked again', async () => {
    const api = await server((request, response, count) => {
      if (request.headers.cursor === undefined) return json(response, 200, page([1, 2], { cursor: 'c2' }));
      if (count <= 4) return json(response, 429, {}, { 'retry-after': '1' });
      return json(response, 200, page([3]));
    });
    try {
      const summary = await run(api.baseUrl).result;
      assert.equal(summary.total, 3);
      assert.equal(api.requests.filter((request) => request.cursor === undefined).length, 1);
    } finally {
      await api.close();
    }
  });
});

describe('envelope quirks a real serialiser produces', () => {
  for (const [end, quirk] of [
    [null, 'cursor-null'],
    ['', 'cursor-empty'],
  ] as const) {
    it(`cursor: ${JSON.stringify(end)} on the last page ends the read, recorded as ${quirk}`, async () => {
      const api = await server((request, response) =>
        request.headers.cursor === undefined
          ? json(response, 200, page([1], { cursor: 'next' }))
          : json(response, 200, page([2], { cursor: end })),
      );
      try {
        const summary = await run(api.baseUrl).result;
        assert.equal(summary.total, 2);
        assert.deepEqual(summary.quirks, [quirk]);
        assert.equal(api.requests.length, 2);
      } finally {
        await api.close();
      }
    });
  }

  it('a cursor of another type is still refused', async () => {
    const api = await server((_q, response) => json(response, 200, page([1], { cursor: 5 })));
    try {
      await assert.rejects(run(api.baseUrl).result, /cursor is a number/);
    } finally {
      await api.close();
    }
  });

  it('an HTML 200 fails at once with its content type and first bytes; a cut JSON body is still retried', async () => {
    const html = await server((_q, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>Sign in</title>'),
    );
    const cut = await server((_q, response, count) =>
      count === 1
        ? response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"id":1}')
        : json(response, 200, page([1])),
    );
    try {
      await assert.rejects(run(html.baseUrl).result, /answered 200 with text\/html, not JSON .*<!DOCTYPE html>/);
      assert.equal(html.requests.length, 1);
      assert.equal((await run(cut.baseUrl).result).total, 1);
      assert.equal(cut.requests.length, 2);
    } finally {
      await html.close();
      await cut.close();
    }
  });

  it('a redirect is not followed, and the error says where it pointed', async () => {
    const api = await server((_q, response) =>
      response.writeHead(301, { location: 'https://api.example.com/rest/v5/invoices' }).end(),
    );
    try {
      await assert.rejects(
        run(api.baseUrl).result,
        /redirect to "https:\/\/api\.example\.com\/rest\/v5\/invoices".*base URL/,
      );
      assert.equal(api.requests.length, 1);
    } finally {
      await api.close();
    }
  });
});

describe('sync rides out a rate limit end to end', () => {
  it('429 with Retry-After 0, three times, then the page: exit 0 and the progress says it was rate limited', async () => {
    const api = await server((_q, response, count) =>
      count <= 3 ? json(response, 429, {}, { 'retry-after': '0' }) : json(response, 200, page([1, 2, 3])),
    );
    try {
      const result = await runCli(
        ['sync', 'invoices', '--base-url', api.baseUrl, '--out', tempDir(), '--env', 'sandbox'],
        {
          env: { LEDGERHOOK_TOKEN: 'tok' },
        },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout + result.stderr, /rate limited, retrying in 0\.0 s/);
    } finally {
      await api.close();
    }
  });

  it('Ctrl-C during a rate-limit wait stops at once, says what was done, and writes nothing half-way', async () => {
    const api = await server((_q, response, count) =>
      count === 1
        ? json(response, 200, page([1, 2], { cursor: 'page-2' }))
        : json(response, 429, {}, { 'retry-after': '120' }),
    );
    const out = tempDir();
    const sync = startCli(['sync', 'invoices', '--base-url', api.baseUrl, '--out', out, '--env', 'sandbox'], {
      env: { LEDGERHOOK_TOKEN: 'tok' },
    });
    try {
      // The wait has begun when its progress line is out (stderr): no sleep, a condition polled by event.
      await sync.waitForStderr(/rate limited, retrying in 120/);
      const { code } = await sync.stop('SIGINT');
      assert.equal(code, 130, sync.stderr());
      assert.match(sync.stderr(), /interrupted|stopped/i);
      assert.match(sync.stderr(), /1 page|2 items|nothing (was )?(written|committed)/i);
      // A full read is all or nothing: no data file. Its page is kept, hidden, for the next run.
      assert.match(sync.stderr(), /kept: the next run goes on at page 2/);
      assert.deepEqual(
        readdirSync(out).map((name) => name.replace(/\.\d+\.[0-9a-f]{8}\./, '.PID.NONCE.')),
        ['.invoices.json.PID.NONCE.checkpoint', '.invoices.json.PID.NONCE.staging'],
        'no data file; only the read kept for the next run',
      );
    } finally {
      await api.close();
    }
  });
});
