/**
 * A list endpoint (spec 4.3, node:http, no ledgerhook code) that answers items as the test writes
 * them, byte for byte: each item is its JSON text, so that a test can send what JSON.stringify never
 * writes (9007199254740993, -0, \u0000 escapes, lone surrogates). Offset cursors, the `limit` header,
 * lastUpdatedDate as a header filtering by each item's change time, deletedIds (as written) for
 * items removed since. Items are keyed by the test's own name for them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startRawListServer(token = 'raw-token') {
  let clock = Date.parse('2026-11-24T10:00:00.000Z');
  const items = new Map<string, { text: string | null; deletedId?: string; at: number }>();
  let pages = 0;
  const http = createServer((request, response) => {
    pages += 1;
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const since = request.headers.lastupdateddate;
    const after = typeof since === 'string' ? Date.parse(since) : undefined;
    const limit = Number(request.headers.limit ?? 100);
    const offset = Number(request.headers.cursor ?? 0);
    const changed = [...items.values()].filter((entry) => after === undefined || entry.at > after);
    const live = changed.flatMap((entry) => (entry.text === null ? [] : [entry.text]));
    const parts = [
      `"data":[${live.slice(offset, offset + limit).join(',')}]`,
      `"lastUpdatedDate":"${new Date(clock).toISOString()}"`,
    ];
    if (offset + limit < live.length) parts.push(`"cursor":"${offset + limit}"`);
    const deleted = changed.flatMap((entry) => (entry.text === null && entry.deletedId ? [entry.deletedId] : []));
    if (after !== undefined && offset === 0 && deleted.length > 0) parts.push(`"deletedIds":[${deleted.join(',')}]`);
    response.writeHead(200, { 'content-type': 'application/json' }).end(`{${parts.join(',')}}`);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const tick = () => (clock += 1000);
  return {
    token,
    baseUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}/rest/v5`,
    get pages() {
      return pages;
    },
    /** Adds or replaces the item the test calls `name`, as the JSON text given. */
    put(name: string, text: string) {
      items.set(name, { text, at: tick() });
    },
    /** Removes it: an incremental read then finds `deletedId` (JSON text) in deletedIds. */
    remove(name: string, deletedId: string) {
      items.set(name, { text: null, deletedId, at: tick() });
    },
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}
