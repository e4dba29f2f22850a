/**
 * demo/: `ledgerhook demo`, the whole loop against the mock, checking itself as it goes (this
 * file, the folder's only one).
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { captureRecordFrom } from '../capture/capture-from-delivery.js';
import type { CaptureRecord } from '../capture/capture-record.js';
import { startListener } from '../listen/listener.js';
import { startMockServer } from '../mock/mock-server.js';
import type { MutationResult, MutationSpec } from '../mock/mock-types.js';
import { FileStore } from '../store/file/file-store.js';
import { datasetRef, type SyncSummary, syncDataset } from '../sync/sync-dataset.js';
import { createWebhookSync, type WebhookSyncEvent } from '../webhook-sync/webhook-sync.js';

export type DemoEvent =
  | { type: 'started'; apiUrl: string; receiverUrl: string; outDir: string; userId: string }
  | { type: 'full-sync'; summary: SyncSummary }
  | { type: 'mutation'; result: MutationResult }
  | { type: 'delivery'; record: CaptureRecord }
  | { type: 'sync'; event: WebhookSyncEvent }
  | { type: 'checked'; dataset: string; equal: boolean; items: number };

export interface DemoOptions {
  /** Where the files go (a user subdirectory is created inside). */
  outDir: string;
  onEvent?: (event: DemoEvent) => void;
}

export interface DemoResult {
  ok: boolean;
  apiUrl: string;
  userDir: string;
  datasets: Array<{ dataset: string; file: string; items: number; equal: boolean }>;
}

const DATASETS = ['/expenses', '/invoices', '/bankTransfers'] as const;
const CHANGES: MutationSpec[] = [
  { path: '/expenses', create: 2, update: 2, delete: 1, retype: 1 },
  { path: '/invoices', create: 1, update: 1 },
];

/**
 * The whole loop of spec 1, locally: a mock of the API, a full sync, data changing on
 * the service, signed webhooks to a verifying receiver, and the incremental syncs they trigger.
 * Ends by comparing the local files with the mock's data.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const emit = (event: DemoEvent) => options.onEvent?.(event);
  const secret = `whsec_demo_${randomBytes(12).toString('hex')}`;
  // The demo's state stays with its files: it never touches the user's own sync state.
  const store = new FileStore({ outDir: options.outDir, stateFile: join(options.outDir, '.demo-state.json') });
  let sync: ReturnType<typeof createWebhookSync> | undefined;
  const listener = await startListener({
    port: 0,
    verification: { secrets: [secret] },
    onEvent: (event) =>
      event.type === 'delivery' && emit({ type: 'delivery', record: captureRecordFrom(event.delivery) }),
    onAccepted: (record) => sync?.handle(record),
  });
  const mock = await startMockServer({
    port: 0,
    webhookUrl: new URL(listener.url),
    webhookSecret: secret,
    onMutation: (result) => emit({ type: 'mutation', result }),
  });
  const userId = mock.service.userId;
  const fileOf = (path: string) => store.fileFor(datasetRef({ baseUrl: mock.url, token: mock.token, path, userId }));
  const userDir = join(fileOf('/expenses'), '..');
  sync = createWebhookSync({
    baseUrl: mock.url,
    tokenFor: () => mock.token,
    store,
    onEvent: (event) => emit({ type: 'sync', event }),
  });
  try {
    emit({ type: 'started', apiUrl: mock.url, receiverUrl: listener.url, outDir: options.outDir, userId });
    for (const path of DATASETS) {
      emit({
        type: 'full-sync',
        summary: await syncDataset({
          baseUrl: mock.url,
          token: mock.token,
          path,
          userId,
          store,
        }),
      });
    }
    for (const change of CHANGES) mock.service.mutate(change);
    // Every webhook answered (the receiver answers before it syncs), then every sync finished.
    await mock.webhooksIdle();
    await sync.idle();
    const datasets: DemoResult['datasets'] = [];
    for (const path of DATASETS) {
      const file = fileOf(path);
      const local = await readFile(file, 'utf8');
      const truth = mock.service.dataset(path).data;
      const equal = JSON.stringify(JSON.parse(local)) === JSON.stringify(truth);
      datasets.push({ dataset: path, file, items: truth.length, equal });
      emit({ type: 'checked', dataset: path, equal, items: truth.length });
    }
    return { ok: datasets.every((d) => d.equal), apiUrl: mock.url, userDir, datasets };
  } finally {
    await mock.close();
    await listener.close();
  }
}
