/**
 * A request's time is bounded as documented: each attempt's timeout covers the whole answer (a
 * server trickling one byte at a time does not stretch it), and a request with its retries ends
 * within the later of --timeout and --max-wait. A server written in the test (not the mock).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { fetchJson } from '../../src/http/fetch-json.js';
import { DEFAULT_RETRY_POLICY, SharedBackoff } from '../../src/http/retry-policy.js';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';

/** Answers 200 with a JSON body it sends one byte per `everyMs`, never finishing; notes each request's span. */
async function tricklingServer(everyMs: number) {
  const requests: Array<{ start: number; end?: number }> = [];
  const server = createServer((request, response) => {
    const seen: { start: number; end?: number } = { start: performance.now() };
    requests.push(seen);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{');
    const timer = setInterval(() => response.write(' '), everyMs);
    response.on('close', () => {
      clearInterval(timer);
      seen.end = performance.now();
    });
    request.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    /** Resolves once every request's connection is closed. */
    settled: async () => {
      const deadline = performance.now() + 10_000;
      while (requests.some((r) => r.end === undefined) && performance.now() < deadline)
        await new Promise((resolve) => setImmediate(resolve));
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a request ends within max(--timeout, --max-wait), its timeout covering the whole answer', () => {
  it('in process: timeout 1 s, budget 1.5 s: over in about 1.5 s, not five attempts of 1 s', async () => {
    const server = await tricklingServer(100);
    const started = performance.now();
    try {
      await assert.rejects(
        fetchJson({
          url: new URL(`${server.origin}/rest/v5/invoices`),
          headers: {},
          timeoutMs: 1000,
          retry: { ...DEFAULT_RETRY_POLICY, maxWaitMs: 1500 },
        }),
        (error: Error & { code: string; details: Record<string, unknown> }) => {
          assert.equal(error.code, 'ERR_NETWORK');
          assert.equal(error.details.reason, 'no_answer');
          assert.equal(error.details.maxWaitMs, 1500);
          assert.match(error.message, /no retry past the 1\.5s wait budget\)$/);
          return true;
        },
      );
      const elapsed = performance.now() - started;
      await server.settled();
      // Each attempt was cut at its deadline although bytes kept coming (a per-byte timeout never fires).
      for (const { start, end = Number.POSITIVE_INFINITY } of server.requests)
        assert.ok(end - start < 1000 + 700, `an attempt lasted ${Math.round(end - start)} ms`);
      assert.ok(server.requests.length <= 3, `${server.requests.length} attempts`);
      // Five attempts of 1 s would take 5 s; load on a shared machine gets room, not that much.
      assert.ok(elapsed < 1500 + 1500, `${Math.round(elapsed)} ms`);
    } finally {
      await server.close();
    }
  });

  it("a pause another request's 429 asked for is not this request's time: its first attempt gets its whole timeout", async () => {
    const server = createServer((_request, response) =>
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"data":[],"lastUpdatedDate":"2026-01-01T00:00:00Z"}'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const backoff = new SharedBackoff();
    backoff.pauseUntil(Date.now() + 600);
    try {
      const { body } = await fetchJson({
        url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v5/invoices`),
        headers: {},
        backoff,
        timeoutMs: 300,
        retry: { ...DEFAULT_RETRY_POLICY, maxWaitMs: 200 },
      });
      assert.deepEqual(body, { data: [], lastUpdatedDate: '2026-01-01T00:00:00Z' });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('sync --timeout 1 --max-wait 2s against a one-byte-a-second server: exit 3 in about 2 s, one line naming the budget', async () => {
    const server = await tricklingServer(1000);
    try {
      const out = tempDir();
      const result = await runCli(
        [
          'sync',
          'invoices',
          '--base-url',
          `${server.origin}/rest/v5`,
          '--out',
          out,
          '--timeout',
          '1',
          '--max-wait',
          '2s',
        ],
        { env: { LEDGERHOOK_TOKEN: 't' } },
      );
      assert.equal(result.code, 3, result.stderr);
      assertOneLineError(result);
      assert.match(
        result.stderr,
        /did not answer within \d+ ms \(gave up after \d attempts in \d\.\d s: no retry past the 2s wait budget\)/,
      );
      await server.settled();
      const first = server.requests[0]?.start ?? 0;
      const last = Math.max(...server.requests.map((r) => r.end ?? Number.POSITIVE_INFINITY));
      // Measured at the server, so the CLI's start-up does not count: 2 s and some room for load.
      assert.ok(last - first < 2000 + 1000, `${Math.round(last - first)} ms from the first request to the last close`);
      assert.ok(server.requests.length <= 3, `${server.requests.length} requests`);
    } finally {
      await server.close();
    }
  });
});
