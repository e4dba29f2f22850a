/**
 * A list endpoint written for the reconcile tests from spec 4.3 alone (node:http, no ledgerhook
 * code): offset cursors, the `limit` header, lastUpdatedDate as a header filtering by each item's
 * change time, deletedIds for items removed since. Its items are the test's to change behind the
 * consumer's back (a lost webhook), and it counts the pages it served.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type PagedItem = { id: number; amount: number; type: string } & Record<string, unknown>;

export async function startPagedListServer(initial: number) {
  let clock = Date.parse('2026-11-24T10:00:00.000Z');
  const items = new Map<number, { item: PagedItem | null; at: number }>();
  for (let id = 1; id <= initial; id += 1)
    items.set(id, { item: { id, amount: id, type: id % 3 === 0 ? 'PENDING' : 'BUSINESS' }, at: clock });
  let pages = 0;
  const http = createServer((request, response) => {
    pages += 1;
    const since = request.headers.lastupdateddate;
    const after = typeof since === 'string' ? Date.parse(since) : undefined;
    const limit = Number(request.headers.limit ?? 100);
    const offset = Number(request.headers.cursor ?? 0);
    // Spec 4.3: the filter (?type=PENDING) applies to incremental reads too; an item that no longer
    // matches it is reported in deletedIds like a deleted one.
    const type = new URL(request.url ?? '/', 'http://x').searchParams.get('type');
    const matches = (item: PagedItem | null): item is PagedItem =>
      item !== null && (type === null || item.type === type);
    const changed = [...items.entries()]
      .filter(([, entry]) => after === undefined || entry.at > after)
      .sort(([a], [b]) => a - b);
    const live = changed.filter(([, entry]) => matches(entry.item)).map(([, entry]) => entry.item as PagedItem);
    const slice = live.slice(offset, offset + limit);
    const body: Record<string, unknown> = { data: slice, lastUpdatedDate: new Date(clock).toISOString() };
    if (offset + limit < live.length) body.cursor = String(offset + limit);
    if (after !== undefined && offset === 0)
      body.deletedIds = changed.filter(([, entry]) => !matches(entry.item)).map(([id]) => id);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const tick = () => (clock += 1000);
  return {
    baseUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}/rest/v5`,
    get pages() {
      return pages;
    },
    items: () => [...items.values()].flatMap((entry) => (entry.item ? [entry.item] : [])),
    put(item: PagedItem) {
      items.set(item.id, { item, at: tick() });
    },
    /** A change an incremental read never sees (its change time is left as it was): only a full read finds it. */
    putSilently(item: PagedItem) {
      items.set(item.id, { item, at: items.get(item.id)?.at ?? 0 });
    },
    remove(id: number) {
      items.set(id, { item: null, at: tick() });
    },
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}
