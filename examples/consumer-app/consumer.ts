/**
 * A small consumer of the service's webhooks, as a team would write one: it verifies each delivery with
 * the receiver SDK, syncs every dataset of each entity an ENTITY_UPDATE names into a file store, and
 * shows what its store holds on GET /state, in the shape `ledgerhook check-consumer --state` reads.
 * `skipSeenDeliveries` plants a bug on purpose (see below): check-consumer's own tests must catch it.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ENTITIES } from '@ledgerhook/webhooks';
import { FileStore, syncDataset } from 'ledgerhook/sync';
import { createNodeMiddleware, Webhooks } from 'ledgerhook/webhooks';

export interface ConsumerOptions {
  secret: string | undefined;
  /** The API root, e.g. http://127.0.0.1:4010/rest/v5 (`ledgerhook mock`). */
  apiUrl: string;
  apiToken: string;
  dataDir: string;
  port?: number;
  /** PLANTED BUG: a delivery whose id (its token's iat and body hash) was seen before is ignored. */
  skipSeenDeliveries?: boolean;
}

interface Dataset {
  path: string;
  filter?: Record<string, string>;
}

/** What this app keeps of an entity: its list; for expenses also the PENDING ones (an approval inbox). */
function datasetsOf(entity: string): Dataset[] {
  const path = ENTITIES.find((candidate) => candidate.name === entity)?.path;
  if (path === undefined) return [];
  return entity === 'expense' ? [{ path }, { path, filter: { type: 'PENDING' } }] : [{ path }];
}

/**
 * At most one sync of a dataset at a time, plus one follow-up that starts after it and so covers every
 * delivery that came in meanwhile: a burst of deliveries costs two syncs, and no change is left behind.
 */
function coalescing() {
  const running = new Map<string, Promise<void>>();
  const following = new Map<string, Promise<void>>();
  const start = (key: string, task: () => Promise<void>) => {
    const run: Promise<void> = task().finally(() => {
      if (running.get(key) === run) running.delete(key);
    });
    running.set(key, run);
    return run;
  };
  return (key: string, task: () => Promise<void>): Promise<void> => {
    const queued = following.get(key);
    if (queued) return queued;
    const current = running.get(key);
    if (!current) return start(key, task);
    const next = current
      .catch(() => {})
      .then(() => {
        following.delete(key);
        return start(key, task);
      });
    following.set(key, next);
    return next;
  };
}

/** Every dataset of the store, by user: the JSON `check-consumer --state` reads. */
export async function storeState(store: FileStore): Promise<{ users: Record<string, Record<string, unknown[]>> }> {
  const users: Record<string, Record<string, unknown[]>> = {};
  for (const { ref, place } of await store.list()) {
    const data: unknown = JSON.parse(await readFile(place, 'utf8'));
    if (!Array.isArray(data)) continue; // a document endpoint (/userTaxSetup), not a list
    users[ref.userId] = { ...users[ref.userId], [ref.dataset]: data };
  }
  return { users };
}

export function fileStore(dataDir: string): FileStore {
  return new FileStore({ outDir: dataDir, stateFile: join(dataDir, 'state.json') });
}

export async function startConsumer(options: ConsumerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const store = fileStore(options.dataDir);
  const sync = coalescing();
  const seen = new Set<string>();
  const webhooks = new Webhooks({ secret: options.secret });

  webhooks.on('ENTITY_UPDATE', async ({ userId, entities }, delivery) => {
    if (options.skipSeenDeliveries) {
      // THE PLANTED BUG: "we handled this one already". But an ENTITY_UPDATE says "fetch again", not
      // what changed: the same bytes can announce a new change (two in one second sign alike).
      const id = `${delivery.claims.iat}:${delivery.claims.request_body_sha256}`;
      if (seen.has(id)) return;
      seen.add(id);
    }
    // Answered once the data is in the store: a 2xx means synced, and a failure (500) may be retried.
    await Promise.all(
      entities.flatMap(datasetsOf).map((dataset) =>
        sync(JSON.stringify([userId, dataset.path, dataset.filter]), async () => {
          await syncDataset({ baseUrl: options.apiUrl, token: options.apiToken, userId, store, ...dataset });
        }),
      ),
    );
  });
  webhooks.onError((error) => console.error(`webhook ${error.reason}: ${String(error.cause)}`));

  const receive = createNodeMiddleware(webhooks, { path: '/webhooks' });
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/state') return receive(req, res);
    storeState(store).then(
      (state) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(state));
      },
      (error: Error) => {
        res.statusCode = 500;
        res.end(JSON.stringify({ error: error.message }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 3000, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
