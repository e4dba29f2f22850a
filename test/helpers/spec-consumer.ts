/**
 * A consumer of the service's webhooks written from the spec alone (node:http, node:crypto and fetch; no
 * ledgerhook code), as a team would write one: it verifies each delivery as spec 5.2 says (the checks of
 * spec-receiver.ts), answers 200, and on an ENTITY_UPDATE naming expense reads its two datasets,
 * /expenses and /expenses?type=PENDING, incrementally as spec 4.3 says (every page, deletedIds, the
 * page's lastUpdatedDate kept for the next read, 429 waited out). One read of a dataset at a time: a
 * delivery that comes during a read asks for one more read after it. Its store is in memory, shown in
 * the shape `check-consumer --state` reads (state(), or GET /state).
 *
 * Each planted bug is one flag, one of the ways consumers really lose data; check-consumer's tests
 * must catch each on the case made for it.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type SpecReceiverOptions, verify } from './spec-receiver.js';

export const PLANTED_BUGS = {
  /** One read at a time, and a delivery that comes during it is dropped (no "read again" flag). */
  'drop-during-read': 'change-during-fetch',
  /** Every delivery starts its own read at once; reads write their answers as they end, in any order. */
  'unlocked-reads': 'overlapping-fetches',
  /** Items in deletedIds stay in the store. */
  'ignore-deleted-ids': 'retype-out-of-filter',
  /** The time the read ended, by this consumer's clock, is kept as lastUpdatedDate. */
  'own-clock': 'stale-page-after-change',
  /** Only the first page of a read; its cursor is not followed. */
  'first-page-only': 'baseline',
  /** A delivery whose body was seen before is skipped. */
  'dedupe-by-body': 'duplicate-immediate',
} as const;
export type PlantedBug = keyof typeof PLANTED_BUGS;

const DATASETS = ['/expenses', '/expenses?type=PENDING'] as const;
type Item = { id: number; [field: string]: unknown };
interface Dataset {
  items: Map<number, Item>;
  lastUpdatedDate?: string;
}

export interface SpecConsumer {
  /** Where deliveries go. */
  url: string;
  /** GET: the store, as check-consumer reads it. */
  stateUrl: string;
  state(): { users: Record<string, Record<string, Item[]>> };
  /** The API it reads (the mock may start after the consumer). */
  setApi(apiUrl: string, token: string): void;
  close(): Promise<void>;
}

export interface SpecConsumerOptions {
  secret: string;
  bug?: PlantedBug | undefined;
  apiUrl?: string;
  token?: string;
  /** Checks of spec 5.2 done wrong on purpose (e.g. `anyAlgorithm`: alg none accepted). */
  checks?: Omit<SpecReceiverOptions, 'secret'>;
  /** Not bugs: read every dataset again this long after each delivery (a debounced follow-up). */
  followUpMs?: number;
  /** Not bugs: read every dataset it has this often, with no delivery (a consumer that polls). */
  pollMs?: number;
}

export async function startSpecConsumer(options: SpecConsumerOptions): Promise<SpecConsumer> {
  const { bug } = options;
  const timers = new Set<NodeJS.Timeout>();
  let api = { url: options.apiUrl ?? '', token: options.token ?? '' };
  const users = new Map<string, Map<string, Dataset>>();
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const seenBodies = new Set<string>();

  const datasetOf = (userId: string, key: string): Dataset => {
    const datasets = users.get(userId) ?? new Map<string, Dataset>();
    users.set(userId, datasets);
    const dataset = datasets.get(key) ?? { items: new Map() };
    datasets.set(key, dataset);
    return dataset;
  };

  async function read(userId: string, key: string): Promise<void> {
    const dataset = datasetOf(userId, key);
    const since = dataset.lastUpdatedDate;
    const changed: Item[] = [];
    const deleted: number[] = [];
    let cursor: string | undefined;
    let stamp = '';
    for (;;) {
      const headers: Record<string, string> = { authorization: `Bearer ${api.token}`, limit: '100' };
      if (cursor) headers.cursor = cursor;
      if (since) headers.lastUpdatedDate = since;
      const response = await fetch(`${api.url}${key}`, { headers });
      if (response.status === 429) {
        await response.arrayBuffer();
        const seconds = Number(response.headers.get('retry-after') ?? 1);
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        continue;
      }
      if (response.status !== 200) throw new Error(`GET ${key} answered ${response.status}`);
      const page = (await response.json()) as {
        data: Item[];
        lastUpdatedDate: string;
        cursor?: string;
        deletedIds?: number[];
      };
      changed.push(...page.data);
      deleted.push(...(page.deletedIds ?? []));
      stamp = page.lastUpdatedDate;
      cursor = page.cursor;
      if (!cursor || bug === 'first-page-only') break;
    }
    if (!since) dataset.items.clear();
    if (bug !== 'ignore-deleted-ids') for (const id of deleted) dataset.items.delete(id);
    for (const item of changed) dataset.items.set(item.id, item);
    dataset.lastUpdatedDate = bug === 'own-clock' ? new Date().toISOString() : stamp;
  }

  /** A read of one dataset, as this consumer schedules them (started before the delivery is answered). */
  function requestRead(userId: string, key: string): void {
    const name = JSON.stringify([userId, key]);
    const once = () => read(userId, key).catch(() => {});
    if (bug === 'unlocked-reads') return void once();
    if (running.has(name)) {
      if (bug !== 'drop-during-read') again.add(name);
      return;
    }
    const loop = async () => {
      do {
        again.delete(name);
        await once();
      } while (again.has(name));
      running.delete(name);
    };
    running.set(name, loop());
  }

  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/state') {
      res.setHeader('content-type', 'application/json');
      return void res.end(JSON.stringify(state()));
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const header = req.headers['service-verification'];
      const value = Array.isArray(header) ? header[0] : header;
      const failure = verify({ ...options.checks, secret: options.secret }, value, body);
      if (failure) return void res.writeHead(400).end(JSON.stringify({ error: failure }));
      const hash = createHash('sha256').update(body).digest('hex');
      const seen = seenBodies.has(hash);
      seenBodies.add(hash);
      let parsed: { userId?: unknown; type?: unknown; entities?: unknown } = {};
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        return void res.writeHead(400).end('{"error":"not JSON"}');
      }
      const { userId, type, entities } = parsed;
      const skip = bug === 'dedupe-by-body' && seen;
      if (!skip && type === 'ENTITY_UPDATE' && typeof userId === 'string' && Array.isArray(entities))
        if (entities.includes('expense')) {
          for (const key of DATASETS) requestRead(userId, key);
          if (options.followUpMs !== undefined) later(options.followUpMs, () => readAll(userId));
        }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });

  const readAll = (userId: string) => {
    for (const key of DATASETS) requestRead(userId, key);
  };
  const later = (ms: number, task: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      task();
    }, ms);
    timers.add(timer);
  };
  if (options.pollMs !== undefined) {
    const poll = setInterval(() => {
      for (const userId of users.keys()) readAll(userId);
    }, options.pollMs);
    timers.add(poll);
  }

  function state() {
    const shown: Record<string, Record<string, Item[]>> = {};
    for (const [userId, datasets] of users) {
      shown[userId] = {};
      for (const [key, dataset] of datasets)
        if (dataset.lastUpdatedDate !== undefined)
          shown[userId][key] = [...dataset.items.values()].sort((a, b) => a.id - b.id);
    }
    return { users: shown };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/webhooks`,
    stateUrl: `${origin}/state`,
    state,
    setApi(apiUrl, token) {
      api = { url: apiUrl, token };
    },
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
