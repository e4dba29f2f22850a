/**
 * A list endpoint (spec 4.3, node:http, no ledgerhook code) for the tests of resumed reads:
 * - each access token has its own items; every answer carries the server's clock at that moment
 *   (it ticks on every request and edit), so a test can tell which run's first page a state names;
 * - cursors are opaque offsets of a cursor "generation": `expireCursors()` makes every cursor handed
 *   out so far unacceptable, answered with `expiredStatus` (default 410) and an error body;
 * - `holdFrom(n)` leaves request n and later unanswered until `release()`, so that a test can stop
 *   a client at an exact page, however fast or slow the machine is;
 * - every request is logged with the headers spec 4.3 talks about.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '../scale/helpers/wait.js';
import { BIN } from './cli.js';

export type Item = { id: number; type: string; amount: number; owner: string };

export interface LoggedRequest {
  token: string;
  cursor: string | undefined;
  lastUpdatedDate: string | undefined;
  limit: string | undefined;
  /** The lastUpdatedDate the answer carried (a 200), set once answered. */
  answered?: string;
  status?: number;
}

export async function startResumableListServer(
  options: { accounts?: Record<string, number>; expiredStatus?: number; expiredBody?: unknown } = {},
) {
  let clock = Date.parse('2026-05-01T00:00:00.000Z');
  const tick = () => (clock += 1000);
  const accounts = new Map<string, Map<number, { item: Item | null; at: number }>>();
  for (const [token, count] of Object.entries(options.accounts ?? { 'token-a': 100 })) {
    const items = new Map<number, { item: Item | null; at: number }>();
    for (let id = 1; id <= count; id += 1)
      items.set(id, { item: { id, type: id % 2 ? 'PENDING' : 'BUSINESS', amount: id, owner: token }, at: clock });
    accounts.set(token, items);
  }
  tick();
  let generation = 1;
  let holdAt = Number.POSITIVE_INFINITY;
  const held = new Set<ServerResponse>();
  const log: LoggedRequest[] = [];

  const answer = (req: IncomingMessage, res: ServerResponse, logged: LoggedRequest) => {
    tick();
    const send = (status: number, body: unknown) => {
      logged.status = status;
      if (status === 200) logged.answered = (body as { lastUpdatedDate: string }).lastUpdatedDate;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const items = accounts.get(token);
    if (!items) return send(401, { error: 'unauthorized' });
    const raw = req.headers.cursor === undefined ? undefined : String(req.headers.cursor);
    let offset = 0;
    if (raw !== undefined) {
      const [gen, at] = Buffer.from(raw, 'base64url').toString().split(':').map(Number);
      if (gen !== generation || !Number.isSafeInteger(at))
        return send(options.expiredStatus ?? 410, options.expiredBody ?? { error: 'cursor expired' });
      offset = at ?? 0;
    }
    const limit = Number(req.headers.limit ?? 100);
    const since = req.headers.lastupdateddate ? Date.parse(String(req.headers.lastupdateddate)) : undefined;
    const type = new URL(req.url ?? '/', 'http://x').searchParams.get('type');
    const matches = (item: Item | null) => item !== null && (type === null || item.type === type);
    const live = [...items.values()]
      .filter((entry) => (since === undefined || entry.at > since) && matches(entry.item))
      .map((entry) => entry.item as Item)
      .sort((a, b) => a.id - b.id);
    const body: Record<string, unknown> = {
      data: live.slice(offset, offset + limit),
      lastUpdatedDate: new Date(clock).toISOString(),
    };
    if (offset + limit < live.length)
      body.cursor = Buffer.from(`${generation}:${offset + limit}`).toString('base64url');
    if (since !== undefined && offset === 0) {
      const gone = [...items.entries()].filter(([, entry]) => entry.at > since && !matches(entry.item));
      if (gone.length) body.deletedIds = gone.map(([id]) => id);
    }
    send(200, body);
  };

  const server: Server = createServer((req, res) => {
    const logged: LoggedRequest = {
      token: String(req.headers.authorization ?? '').replace(/^Bearer /, ''),
      cursor: req.headers.cursor === undefined ? undefined : String(req.headers.cursor),
      lastUpdatedDate: req.headers.lastupdateddate === undefined ? undefined : String(req.headers.lastupdateddate),
      limit: req.headers.limit === undefined ? undefined : String(req.headers.limit),
    };
    log.push(logged);
    if (log.length >= holdAt) return void held.add(res);
    answer(req, res, logged);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const account = (token: string) => {
    const items = accounts.get(token);
    if (!items) throw new Error(`no account ${token}`);
    return items;
  };
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v5`,
    /** Requests received so far (held ones included). */
    requests: () => log.length,
    log: () => [...log],
    /** The current items of an account, by id. */
    truth: (token: string): Item[] =>
      [...account(token).values()]
        .map((entry) => entry.item)
        .filter((item): item is Item => item !== null)
        .sort((a, b) => a.id - b.id),
    /**
     * Changes an item now (its update time is the current clock, after every answer so far), or, with
     * `at`, as of that earlier time: a write that became visible late, which an incremental read
     * since a later date never reports (what a window re-read repairs).
     */
    edit(token: string, id: number, change: Partial<Item> | null, at?: string) {
      const entry = account(token).get(id);
      const item = entry?.item ?? { id, type: 'PENDING', amount: 0, owner: token };
      const when = at === undefined ? tick() : Date.parse(at);
      account(token).set(id, { item: change === null ? null : { ...item, ...change }, at: when });
    },
    /** The token is no longer accepted (401), as when it is revoked mid-read. */
    revoke(token: string) {
      accounts.delete(token);
    },
    /** Every cursor handed out so far is no longer accepted. */
    expireCursors() {
      generation += 1;
    },
    /** Request number `n` (1-based, counted from the server's start) and later wait for `release()`. */
    holdFrom(n: number) {
      holdAt = n;
    },
    /** Drops the held requests (their client is gone, or is to be failed) and answers again. */
    release() {
      holdAt = Number.POSITIVE_INFINITY;
      for (const res of held) res.destroy();
      held.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Starts `args` as a user would and SIGKILLs it once it has read `pages` pages: the server holds the
 * next request but one (so the client cannot get further, however fast the machine), the test polls
 * the server's request count with a deadline, kills, and lets the server answer again.
 */
export async function killedAfter(
  api: Awaited<ReturnType<typeof startResumableListServer>>,
  args: string[],
  env: Record<string, string>,
  pages: number,
): Promise<void> {
  const base = api.requests();
  // Request base+pages+1 is sent once page base+pages-1 is kept (the next page is always fetched ahead).
  api.holdFrom(base + pages + 1);
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env, NO_COLOR: '1' },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    await waitUntil(() => api.requests() >= base + pages + 1, `page ${pages} of the first run`, 30_000);
  } finally {
    child.kill('SIGKILL');
    await exited;
    api.release();
  }
}
