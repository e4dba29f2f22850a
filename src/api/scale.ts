/**
 * `ledgerhook/scale`: past one machine. PostgreSQL as the store (`PostgresStore`, a
 * `DatasetStore`), BullMQ jobs per (user, dataset) (`SyncQueue`), workers that run them
 * (`startSyncWorker` with `storeSync`), the per-token limiter shared through Redis, and
 * `queueStatus`. The only entry that loads pg, bullmq, ioredis and rate-limiter-flexible.
 */
export { PostgresStore, type PostgresStoreOptions } from '../store/postgres/postgres-store.js';
export type { MigrationResult } from '../store/postgres/postgres-schema.js';
export { SyncQueue, type SyncQueueOptions, type EnqueueOutcome } from '../queue/sync-queue.js';
export { createQueueRecorder, type QueueableDelivery, type QueueRecorderEvent } from '../queue/queue-recorder.js';
export {
  startSyncWorker,
  type SyncWorkerOptions,
  type SyncWorkerEvent,
  type RunningSyncWorker,
  type RunSync,
  type SyncRunSummary,
} from '../queue/sync-worker.js';
export { storeSync } from '../queue/store-sync.js';
export type { TokenRateLimit } from '../queue/token-rate-gate.js';
export { queueStatus, type QueueStatus } from '../queue/queue-status.js';
export { DEFAULT_QUEUE_NAME } from '../queue/queue-target.js';
