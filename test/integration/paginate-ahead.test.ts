/**
 * paginate requests the next page while the caller works on the current one, and while it parses
 * it, on the cursor the page's bytes end with: a caller that stops cancels that request, a page
 * refused after it went out cancels it too, nothing it leaves behind rejects unhandled, and
 * `beforeNext` holds the read back until the caller's background work on the page before has ended.
 */
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { paginate } from '../../src/api/sync.js';

const DATE = '2026-01-01T00:00:00.000Z';

/**
 * Pages 1..`pages` (one item each, cursor = next page number, last unless `cursorFirst`); `answer`
 * may take a request over.
 */
async function listServer(
  pages: number,
  answer?: (page: number, req: IncomingMessage, res: ServerResponse) => boolean,
  cursorFirst = false,
) {
  const requested: number[] = [];
  const server = createServer((req, res) => {
    const page = Number(req.headers.cursor ?? 1);
    requested.push(page);
    if (answer?.(page, req, res)) return;
    const cursor = page < pages ? { cursor: String(page + 1) } : {};
    const body = cursorFirst
      ? { ...cursor, data: [{ id: page }], lastUpdatedDate: DATE }
      : { data: [{ id: page }], lastUpdatedDate: DATE, ...cursor };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return { baseUrl, requested, close };
}

/** Collects unhandled rejections while `run` runs and a little after (two turns of the event loop). */
async function unhandledDuring(run: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onUnhandled = (reason: unknown) => seen.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    await run();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  return seen;
}

describe('paginate reads one page ahead', () => {
  // Before, the request ahead ran on until answered: here, never (the test would hang to its timeout).
  it('a caller that stops after page 1 cancels the request of page 2 that was already sent; nothing is left unhandled', {
    timeout: 30_000,
  }, async () => {
    let closed: () => void = () => {};
    const page2Closed = new Promise<void>((resolve) => (closed = resolve));
    let page2Arrived: () => void = () => {};
    const page2Sent = new Promise<void>((resolve) => (page2Arrived = resolve));
    // Page 2 is never answered: only a cancelled request ends.
    const api = await listServer(3, (page, _req, res) => {
      if (page !== 2) return false;
      res.on('close', closed);
      page2Arrived();
      return true;
    });
    try {
      const unhandled = await unhandledDuring(async () => {
        for await (const item of paginate({ baseUrl: api.baseUrl, token: 't', path: '/things', limit: 1 })) {
          assert.equal(item.kind, 'page');
          await page2Sent; // already requested while page 1 is handed over
          break;
        }
        await page2Closed;
      });
      assert.deepEqual(unhandled, []);
      assert.deepEqual(api.requested, [1, 2]);
    } finally {
      await api.close();
    }
  });

  it('a request ahead that fails after the caller stopped (a failure of its own) rejects nothing unhandled and is not retried', async () => {
    let failed: () => void = () => {};
    const page2Failed = new Promise<void>((resolve) => (failed = resolve));
    let page2Arrived: () => void = () => {};
    const page2Sent = new Promise<void>((resolve) => (page2Arrived = resolve));
    const api = await listServer(3, (page, _req, res) => {
      if (page !== 2) return false;
      page2Arrived();
      // Answered late with a 503 (retryable), once the caller has already given up.
      setTimeout(() => {
        res.writeHead(503).end('busy');
        failed();
      }, 30);
      return true;
    });
    try {
      const unhandled = await unhandledDuring(async () => {
        await assert.rejects(async () => {
          for await (const _item of paginate({ baseUrl: api.baseUrl, token: 't', path: '/things', limit: 1 })) {
            await page2Sent;
            throw new Error('the caller failed');
          }
        }, /the caller failed/);
        await page2Failed;
      });
      assert.deepEqual(unhandled, []);
      assert.deepEqual(api.requested, [1, 2], 'the cancelled request was not tried again');
    } finally {
      await api.close();
    }
  });

  it('the next request is written before the page is parsed, on the cursor its bytes end with; the pages come in order', async () => {
    const api = await listServer(4);
    const events: string[] = [];
    const sent = (message: unknown) => {
      const headers = String((message as { headers?: unknown }).headers ?? '');
      events.push(`sent ${/cursor: (\d+)/i.exec(headers)?.[1] ?? 1}`);
    };
    const parse = JSON.parse;
    diagnostics.subscribe('undici:client:sendHeaders', sent);
    JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
      const value = parse(text, reviver);
      if (Array.isArray(value?.data)) events.push(`parsed ${value.data[0]?.id}`);
      return value;
    }) as typeof JSON.parse;
    try {
      const pages: number[] = [];
      for await (const item of paginate({ baseUrl: api.baseUrl, token: 't', path: '/things', limit: 1 }))
        if (item.kind === 'page') pages.push(item.index + 1);
      assert.deepEqual(pages, [1, 2, 3, 4]);
      assert.deepEqual(events, [
        'sent 1',
        'sent 2',
        'parsed 1',
        'sent 3',
        'parsed 2',
        'sent 4',
        'parsed 3',
        'parsed 4',
      ]);
      assert.deepEqual(api.requested, [1, 2, 3, 4]);
    } finally {
      JSON.parse = parse;
      diagnostics.unsubscribe('undici:client:sendHeaders', sent);
      await api.close();
    }
  });

  it('a page whose bytes do not end with its cursor is read as before: its next request after its parse', async () => {
    const api = await listServer(3, undefined, true);
    try {
      const pages: number[] = [];
      for await (const item of paginate({ baseUrl: api.baseUrl, token: 't', path: '/things', limit: 1 }))
        if (item.kind === 'page') pages.push(item.index + 1);
      assert.deepEqual(pages, [1, 2, 3]);
      assert.deepEqual(api.requested, [1, 2, 3]);
    } finally {
      await api.close();
    }
  });

  it('a page refused once its next request went out (an item without an id) cancels that request; nothing is left unhandled', {
    timeout: 30_000,
  }, async () => {
    let closed: () => void = () => {};
    const page2Closed = new Promise<void>((resolve) => (closed = resolve));
    const api = await listServer(3, (page, _req, res) => {
      if (page === 1) {
        const body = { data: [{ name: 'no id' }], lastUpdatedDate: DATE, cursor: '2' };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        return true;
      }
      // Page 2 is never answered: only a cancelled request ends.
      res.on('close', closed);
      return true;
    });
    try {
      const unhandled = await unhandledDuring(async () => {
        await assert.rejects(async () => {
          for await (const _item of paginate({ baseUrl: api.baseUrl, token: 't', path: '/things', limit: 1 }));
        }, /data\[0\] has no id/);
        await page2Closed;
      });
      assert.deepEqual(unhandled, []);
      assert.deepEqual(api.requested, [1, 2]);
    } finally {
      await api.close();
    }
  });

  it('beforeNext: the page after is neither handed over nor requested ahead until it settles; its failure ends the read', async () => {
    const api = await listServer(4);
    try {
      const log: string[] = [];
      for await (const item of paginate({
        baseUrl: api.baseUrl,
        token: 't',
        path: '/things',
        limit: 1,
        // The caller's background work on the page before (a checkpoint) ends a few turns of the event
        // loop after it is asked for; what the server was asked for is noted then too. (A timer started
        // with the page raced the answer of the next one: under load it fired before this was called.)
        beforeNext: () => {
          log.push(`before next, requested ${api.requested.length}`);
          const work = new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
          return work.then(() => log.push(`settled, requested ${api.requested.length}`));
        },
      })) {
        assert.equal(item.kind, 'page');
        log.push(`page ${item.kind === 'page' ? item.index + 1 : 0}`);
      }
      assert.deepEqual(log, [
        'page 1',
        'before next, requested 2',
        'settled, requested 2',
        'page 2',
        'before next, requested 3',
        'settled, requested 3',
        'page 3',
        'before next, requested 4',
        'settled, requested 4',
        'page 4',
      ]);

      const failing = paginate({
        baseUrl: api.baseUrl,
        token: 't',
        path: '/things',
        limit: 1,
        beforeNext: () => Promise.reject(new Error('checkpoint failed')),
      });
      const before = api.requested.length;
      await assert.rejects(async () => {
        for await (const _item of failing);
      }, /checkpoint failed/);
      assert.equal(api.requested.length - before, 2, 'page 3 was never requested');
    } finally {
      await api.close();
    }
  });
});
