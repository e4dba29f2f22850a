/** `npm run bench [name...]`: every benchmark prints ratios against a baseline measured in the same run. */
import { benchCliStartup } from './cli-startup.js';
import { benchVerifyThroughput } from './verify-throughput.js';
import { benchListenThroughput } from './listen-throughput.js';
import { benchMockPaging } from './mock-paging.js';
import { benchSyncThroughput } from './sync-throughput.js';
import { benchScaleStore } from './scale-store.js';
import { benchScaleQueue } from './scale-queue.js';
import { benchQueueIngest } from './queue-ingest.js';
import { benchReceiverExpress } from './receiver-express.js';
import { benchForgedFlood } from './forged-flood.js';
import { benchReconcile } from './reconcile.js';
import { benchScale } from './scale.js';
import { benchFileMerge } from './file-merge.js';
import { benchNetworkStart } from './network-start.js';

const only = process.argv.slice(2);
const benches: Record<string, () => Promise<void>> = {
  'cli-startup': () => benchCliStartup(),
  'network-start': () => benchNetworkStart(),
  'verify-throughput': () => benchVerifyThroughput(),
  'listen-throughput': () => benchListenThroughput(),
  'mock-paging': () => benchMockPaging(),
  'sync-throughput': () => benchSyncThroughput(),
  'scale-store': () => benchScaleStore(),
  'scale-queue': () => benchScaleQueue(),
  'queue-ingest': () => benchQueueIngest(),
  'receiver-express': () => benchReceiverExpress(),
  'forged-flood': () => benchForgedFlood(),
  reconcile: () => benchReconcile(),
  scale: () => benchScale(),
  'file-merge': () => benchFileMerge(),
};
for (const [name, bench] of Object.entries(benches)) {
  if (only.length > 0 && !only.includes(name)) continue;
  await bench();
}
