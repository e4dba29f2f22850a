/**
 * One HTTP API serving many users, each with its own token and data, for the scale tests. Two
 * backends: ledgerhook's own MockService (one per user), or an independent list server written
 * from spec 4.3 alone (offset cursors, ids served in a scrambled order). Both keep a request log
 * from which the runs of each dataset are rebuilt: a run starts with a request without a cursor
 * and owns every later request carrying a cursor it was given.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockService } from '../../../src/mock/mock-service.js';

export type Backend = 'mock' | 'independent';
export const DATASETS = ['/expenses', '/invoices'] as const;

interface UserData {
  handle(path: string, headers: Record<string, string | undefined>): Promise<{ status: number; body: any }>;
  truth(path: string): Array<Record<string, unknown>>;
  mutate(path: string, counts: { create: number; update: number; delete: number }): void;
}

function mockUser(userId: string, token: string, seed: number, items: number): UserData {
  const service = new MockService({ userId, token, seed, items, otherItems: Math.ceil(items / 2) });
  return {
    async handle(path, headers) {
      const response = await service.handle({ method: 'GET', url: `/rest/v5${path}`, headers });
      return { status: response.status, body: response.body };
    },
    truth: (path) => service.dataset(path).data as Array<Record<string, unknown>>,
    mutate: (path, counts) => void service.mutate({ path, ...counts }),
  };
}

/** Written from the spec, not from ledgerhook: a map of items with change times and offset cursors. */
function independentUser(token: string, items: number): UserData {
  const datasets = new Map<string, Map<number, { item: Record<string, unknown> | null; at: number }>>();
  let clock = Date.parse('2026-03-01T00:00:00.000Z');
  let nextId = 1;
  const create = (rows: Map<number, { item: Record<string, unknown> | null; at: number }>, path: string) => {
    const id = nextId++;
    rows.set(id, { item: { id, kind: path.slice(1), amount: id * 3, note: `n${id}` }, at: clock });
  };
  for (const path of DATASETS) {
    const rows = new Map();
    for (let i = 0; i < items; i += 1) create(rows, path);
    datasets.set(path, rows);
  }
  clock += 1000;
  const live = (rows: Map<number, { item: Record<string, unknown> | null }>) =>
    [...rows.entries()].filter(([, row]) => row.item).map(([id]) => id);
  return {
    async handle(path, headers) {
      if (headers.authorization !== `Bearer ${token}`) return { status: 401, body: { error: 'unauthorized' } };
      const rows = datasets.get(path);
      if (!rows) return { status: 404, body: { error: 'not found' } };
      const limit = Number(headers.limit ?? 100);
      const since = headers.lastupdateddate ? Date.parse(headers.lastupdateddate) : undefined;
      const changed = [...rows.entries()].filter(([, row]) => since === undefined || row.at > since);
      const list = changed.filter(([, row]) => row.item).map(([, row]) => row.item as Record<string, unknown>);
      // Odd ids first, then even ids backwards: nothing in the spec promises an order.
      const scrambled = [
        ...list.filter((item) => Number(item.id) % 2),
        ...list.filter((item) => !(Number(item.id) % 2)).reverse(),
      ];
      const offset = headers.cursor ? Number(Buffer.from(headers.cursor, 'base64url').toString()) : 0;
      const body: Record<string, unknown> = {
        data: scrambled.slice(offset, offset + limit),
        lastUpdatedDate: new Date(clock).toISOString(),
      };
      if (offset + limit < scrambled.length) body.cursor = Buffer.from(String(offset + limit)).toString('base64url');
      const deleted = since === undefined ? [] : changed.filter(([, row]) => !row.item).map(([id]) => id);
      if (deleted.length > 0 && offset === 0) body.deletedIds = deleted;
      return { status: 200, body };
    },
    truth: (path) =>
      [...(datasets.get(path) ?? new Map()).values()]
        .map((row) => row.item)
        .filter((item): item is Record<string, unknown> => item !== null)
        .sort((a, b) => Number(a.id) - Number(b.id)),
    mutate(path, counts) {
      const rows = datasets.get(path);
      if (!rows) return;
      clock += 1000;
      for (let i = 0; i < counts.create; i += 1) create(rows, path);
      for (const id of live(rows).slice(0, counts.update))
        rows.set(id, {
          item: { ...rows.get(id)?.item, amount: Math.round(Math.random() * 1e6) / 100, note: 'updated' },
          at: clock,
        });
      for (const id of live(rows).slice(-counts.delete)) if (counts.delete > 0) rows.set(id, { item: null, at: clock });
      clock += 1000;
    },
  };
}

export interface RunRecord {
  userId: string;
  path: string;
  start: number;
  end: number;
  requests: number;
}

export async function startMultiUserApi(options: {
  backend: Backend;
  users: number;
  items: number;
  /** Added to every answer, so that runs take long enough to be caught mid-way. */
  latencyMs?: number;
}) {
  const users = new Map<string, { userId: string; data: UserData }>();
  const tokens: Record<string, string> = {};
  for (let index = 0; index < options.users; index += 1) {
    const userId = `user-${index}`;
    const token = `token-${index}-${options.backend}`;
    tokens[userId] = token;
    const data =
      options.backend === 'mock'
        ? mockUser(userId, token, index + 1, options.items)
        : independentUser(token, options.items);
    users.set(token, { userId, data });
  }
  const runs: RunRecord[] = [];
  const cursorRun = new Map<string, RunRecord>();
  // The dataset as it was when a run's first page was served, by that page's lastUpdatedDate.
  const snapshots = new Map<string, Array<Record<string, unknown>>>();
  const requestListeners = new Set<(count: number, path: string) => void>();
  let requestCount = 0;
  const server: Server = createServer((req, res) => {
    const started = performance.now();
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const user = users.get(token);
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/rest\/v5/, '');
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value[0] : value;
    const cursor = headers.cursor;
    let run = cursor ? cursorRun.get(cursor) : undefined;
    if (user && !run) {
      run = { userId: user.userId, path, start: started, end: started, requests: 0 };
      runs.push(run);
    }
    const answer = async () => {
      if (!user) return { status: 401, body: { error: 'unauthorized' } };
      if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
      return user.data.handle(path, headers);
    };
    void answer().then(({ status, body }) => {
      requestCount += 1;
      for (const listener of requestListeners) listener(requestCount, path);
      if (user && !cursor && status === 200 && typeof body?.lastUpdatedDate === 'string')
        snapshots.set(`${user.userId} ${path} ${body.lastUpdatedDate}`, user.data.truth(path));
      if (run) {
        run.requests += 1;
        if (typeof body?.cursor === 'string') cursorRun.set(body.cursor, run);
      }
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json' }).end(text, () => {
        if (run) run.end = performance.now();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v5`;
  const byUser = new Map([...users.values()].map((entry) => [entry.userId, entry.data]));
  return {
    baseUrl,
    tokens,
    userIds: [...byUser.keys()],
    truth: (userId: string, path: string) => byUser.get(userId)?.truth(path) ?? [],
    mutate: (userId: string, path: string, counts: { create: number; update: number; delete: number }) =>
      byUser.get(userId)?.mutate(path, counts),
    runs: () => runs,
    /** The dataset as served to the run whose first page carried this lastUpdatedDate. */
    snapshot: (userId: string, path: string, lastUpdatedDate: string) =>
      snapshots.get(`${userId} ${path} ${lastUpdatedDate}`),
    requests: () => requestCount,
    /** Calls back after every answered request with the running count and its path; returns an unsubscribe. */
    onRequest(listener: (count: number, path: string) => void): () => void {
      requestListeners.add(listener);
      return () => requestListeners.delete(listener);
    },
    /** Pairs of runs of one dataset whose request spans overlap: must be none. */
    overlaps(): Array<[RunRecord, RunRecord]> {
      const found: Array<[RunRecord, RunRecord]> = [];
      const byDataset = new Map<string, RunRecord[]>();
      for (const run of runs) {
        const key = `${run.userId} ${run.path}`;
        byDataset.set(key, [...(byDataset.get(key) ?? []), run]);
      }
      for (const list of byDataset.values()) {
        const sorted = [...list].sort((a, b) => a.start - b.start);
        let latest: RunRecord | undefined;
        for (const run of sorted) {
          if (latest && run.start < latest.end) found.push([latest, run]);
          if (!latest || run.end > latest.end) latest = run;
        }
      }
      return found;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
