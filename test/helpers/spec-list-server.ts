/**
 * A list endpoint written from spec 4.3 alone (node:http, no ledgerhook code), deliberately
 * unlike the mock: offset cursors, items in a scrambled order, deletedIds on a chosen page, and
 * faults on a schedule. Sync tests use it as "a server the sync does not know".
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type Item = { id: number; type: string; amount: number; note: string };
export type Fault = '500' | '503' | '429' | 'reset' | 'truncated' | 'not-envelope' | 'cursor-loop';

export interface SpecListServerOptions {
  items?: number;
  token?: string;
  deletedIdsOn?: 'first' | 'last' | 'every';
  /** Fault for request number n (1-based), if any. */
  faultFor?: (n: number) => Fault | undefined;
  /** Return pages in a scrambled (not id) order. */
  scrambled?: boolean;
  /** Number of items per page when the request sends no limit header (the spec does not show one). */
  defaultLimit?: number;
}

/** What a request carried that spec 4.3 talks about: a test asserts on these. */
export interface LoggedRequest {
  method: string;
  path: string;
  query: string;
  authorization: string | undefined;
  contentType: string | undefined;
  limit: string | undefined;
  cursor: string | undefined;
  lastUpdatedDate: string | undefined;
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

export async function startSpecListServer(options: SpecListServerOptions = {}) {
  const token = options.token ?? 'spec-token';
  const items = new Map<number, { item: Item | null; at: number }>();
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const tick = () => (clock += 1000);
  let nextId = 1;
  const create = () => {
    const id = nextId++;
    items.set(id, {
      item: { id, type: id % 3 === 0 ? 'PENDING' : 'BUSINESS', amount: id * 1.5, note: `item ${id}` },
      at: clock,
    });
    return id;
  };
  for (let i = 0; i < (options.items ?? 50); i += 1) create();
  tick();
  let requests = 0;
  const log: LoggedRequest[] = [];

  const server: Server = createServer((req, res) => {
    requests += 1;
    const fault = options.faultFor?.(requests);
    const url = new URL(req.url ?? '/', 'http://x');
    log.push({
      method: req.method ?? '',
      path: url.pathname,
      query: url.search,
      authorization: header(req.headers.authorization),
      contentType: header(req.headers['content-type']),
      limit: header(req.headers.limit),
      cursor: header(req.headers.cursor),
      lastUpdatedDate: header(req.headers.lastupdateddate),
    });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (fault === 'reset') return req.socket.destroy();
    if (fault === '500' || fault === '503') return send(Number(fault), { error: 'fault' });
    if (fault === '429') return send(429, { error: 'slow down' }, { 'retry-after': '1' });
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'unauthorized' });
    if (url.pathname !== '/v5/things') return send(404, { error: 'not found' });
    const limit = Number(req.headers.limit ?? options.defaultLimit ?? 100);
    const since = req.headers.lastupdateddate ? Date.parse(String(req.headers.lastupdateddate)) : undefined;
    const type = url.searchParams.get('type');
    const matches = (item: Item | null) => item !== null && (type === null || item.type === type);
    let list = [...items.values()]
      .filter((entry) => (since === undefined ? true : entry.at > since) && matches(entry.item))
      .map((entry) => entry.item!);
    list.sort((a, b) => a.id - b.id);
    if (options.scrambled)
      list = [...list.filter((_, i) => i % 2 === 1), ...list.filter((_, i) => i % 2 === 0).reverse()];
    const deletedIds =
      since === undefined
        ? []
        : [...items.entries()].filter(([, entry]) => entry.at > since && !matches(entry.item)).map(([id]) => id);
    const offset = req.headers.cursor ? Number(Buffer.from(String(req.headers.cursor), 'base64url').toString()) : 0;
    const page = list.slice(offset, offset + limit);
    const more = offset + limit < list.length;
    const body: Record<string, unknown> = { data: page, lastUpdatedDate: new Date(clock).toISOString() };
    if (more)
      body.cursor =
        fault === 'cursor-loop' && req.headers.cursor
          ? String(req.headers.cursor)
          : Buffer.from(String(offset + limit)).toString('base64url');
    const on = options.deletedIdsOn ?? 'first';
    if (deletedIds.length > 0 && (on === 'every' || (on === 'first' && offset === 0) || (on === 'last' && !more)))
      body.deletedIds = deletedIds;
    if (fault === 'truncated') return send(200, JSON.stringify(body).slice(0, 30));
    if (fault === 'not-envelope') return send(200, { items: page });
    send(200, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v5`;
  return {
    baseUrl,
    token,
    path: '/things',
    requests: () => requests,
    /** Every request so far, in arrival order. */
    log: () => [...log],
    /** The ground truth: current items (matching the type filter if given), by id. */
    truth: (type?: string) =>
      [...items.values()]
        .map((entry) => entry.item)
        .filter((item): item is Item => item !== null && (type === undefined || item.type === type))
        .sort((a, b) => a.id - b.id),
    mutate(counts: { create?: number; update?: number; delete?: number; retype?: number }) {
      tick();
      const live = () => [...items.entries()].filter(([, entry]) => entry.item).map(([id]) => id);
      for (let i = 0; i < (counts.create ?? 0); i += 1) create();
      for (const id of live().slice(0, counts.update ?? 0))
        items.set(id, {
          item: { ...items.get(id)!.item!, amount: Math.round(Math.random() * 1000), note: 'updated' },
          at: clock,
        });
      const victims = counts.delete ? live().slice(-counts.delete) : [];
      for (const id of victims) items.set(id, { item: null, at: clock });
      const pending = live().filter((id) => items.get(id)!.item!.type === 'PENDING');
      for (const id of pending.slice(0, counts.retype ?? 0))
        items.set(id, { item: { ...items.get(id)!.item!, type: 'BUSINESS' }, at: clock });
      tick();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
