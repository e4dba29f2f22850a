/**
 * A list endpoint (spec 4.3, node:http, no ledgerhook code) for the data-safety tests of sync:
 * - every answer is stamped with the server's own clock at that moment (which ticks on every
 *   request and every edit), like a real service reading live data page by page;
 * - each access token has its own data (two accounts, one server);
 * - `onRequest` runs before each answer, so a test can edit items already served mid-read;
 * - ids and deletedIds can come as numeric strings; hostile modes send endless cursors, hang,
 *   or answer huge bodies.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Item = { id: number | string; type: string; amount: number; owner: string };
type Entry = { item: Item | null; at: number };
export type Hostile = 'endless-empty' | 'endless-repeat' | 'hang' | 'huge' | 'not-envelope' | 'bad-cursor';

export interface ClockedListServerOptions {
  /** Items per access token. */
  accounts?: Record<string, number>;
  /** Send deletedIds as numeric strings ("7"). */
  deletedIdsAsStrings?: boolean;
  /** Send item ids as numeric strings ("7") on incremental answers. */
  idsAsStringsWhenIncremental?: boolean;
  hostile?: Hostile;
}

export async function startClockedListServer(options: ClockedListServerOptions = {}) {
  let clock = Date.parse('2026-03-01T00:00:00.000Z');
  const tick = () => (clock += 1000);
  const accounts = new Map<string, Map<number, Entry>>();
  for (const [token, count] of Object.entries(options.accounts ?? { 'token-a': 20 })) {
    const items = new Map<number, Entry>();
    for (let id = 1; id <= count; id += 1)
      items.set(id, { item: { id, type: id % 2 ? 'PENDING' : 'BUSINESS', amount: id, owner: token }, at: clock });
    accounts.set(token, items);
  }
  tick();
  let requests = 0;
  let onRequest: ((n: number, headers: Record<string, unknown>) => void) | undefined;
  const hanging = new Set<import('node:http').ServerResponse>();

  const server: Server = createServer((req, res) => {
    requests += 1;
    onRequest?.(requests, req.headers);
    tick();
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const items = accounts.get(token);
    if (!items) return send(401, { error: 'unauthorized' });
    const url = new URL(req.url ?? '/', 'http://x');
    const cursor = req.headers.cursor ? Number(req.headers.cursor) : 0;
    if (options.hostile === 'hang') return void hanging.add(res);
    if (options.hostile === 'not-envelope') return send(200, { items: [] });
    if (options.hostile === 'bad-cursor')
      return send(200, { data: [], lastUpdatedDate: new Date(clock).toISOString(), cursor: 'next\r\nx-injected: 1' });
    if (options.hostile === 'huge') return send(200, { data: [], lastUpdatedDate: 'x', pad: 'x'.repeat(2_000_000) });
    if (options.hostile?.startsWith('endless'))
      return send(200, {
        data: options.hostile === 'endless-repeat' ? [{ id: 1, type: 'PENDING', amount: 1, owner: token }] : [],
        lastUpdatedDate: new Date(clock).toISOString(),
        cursor: String(cursor + 1),
      });
    const limit = Number(req.headers.limit ?? 100);
    const since = req.headers.lastupdateddate ? Date.parse(String(req.headers.lastupdateddate)) : undefined;
    const type = url.searchParams.get('type');
    const matches = (item: Item | null) => item !== null && (type === null || item.type === type);
    const live = [...items.values()]
      .filter((entry) => (since === undefined || entry.at > since) && matches(entry.item))
      .map((entry) => entry.item as Item)
      .sort((a, b) => Number(a.id) - Number(b.id));
    const page = live
      .slice(cursor, cursor + limit)
      .map((item) =>
        since !== undefined && options.idsAsStringsWhenIncremental ? { ...item, id: String(item.id) } : item,
      );
    const body: Record<string, unknown> = { data: page, lastUpdatedDate: new Date(clock).toISOString() };
    if (cursor + limit < live.length) body.cursor = String(cursor + limit);
    if (since !== undefined && cursor === 0) {
      const gone = [...items.entries()].filter(([, entry]) => entry.at > since && !matches(entry.item));
      if (gone.length) body.deletedIds = gone.map(([id]) => (options.deletedIdsAsStrings ? String(id) : id));
    }
    send(200, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const account = (token: string) => {
    const items = accounts.get(token);
    if (!items) throw new Error(`no account ${token}`);
    return items;
  };
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v5`,
    requests: () => requests,
    /** Runs before each answer (n is 1-based). */
    onRequest(hook: typeof onRequest) {
      onRequest = hook;
    },
    /** The current items of an account (matching the type filter if given), by id. */
    truth(token: string, type?: string): Item[] {
      return [...account(token).values()]
        .map((entry) => entry.item)
        .filter((item): item is Item => item !== null && (type === undefined || item.type === type))
        .sort((a, b) => Number(a.id) - Number(b.id));
    },
    /** Changes an item now (its update time is the current clock, after every answer so far). */
    edit(token: string, id: number, change: Partial<Item> | null) {
      const entry = account(token).get(id);
      const item = entry?.item ?? { id, type: 'PENDING', amount: 0, owner: token };
      account(token).set(id, { item: change === null ? null : { ...item, ...change }, at: tick() });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
