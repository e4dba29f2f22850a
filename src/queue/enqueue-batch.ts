import { randomUUID } from 'node:crypto';
import type { JobsOptions } from 'bullmq';

/** One job as BullMQ's addBulk takes it. */
export interface BulkJob {
  name: string;
  data: unknown;
  opts: JobsOptions;
}

/** A job as a caller asks for it: built into BullMQ's form only when it is sent. */
export interface PendingJob {
  /** Jobs of one deduplication id in a batch go once. */
  dedupeId?: string | undefined;
  /** The job as addBulk takes it, under the id the batch gives it. */
  build(jobId: string): BulkJob;
}

/** What became of one job: the id Redis has it under, and whether that is a new job of its own. */
export interface EnqueuedJob {
  id: string;
  /** False when it joined a job already there (in Redis, or earlier in its batch). */
  queued: boolean;
}

interface Waiting {
  jobs: readonly PendingJob[];
  resolve: (jobs: EnqueuedJob[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Jobs handed to Redis together: one addBulk (one pipeline: one write, one round trip) at a time,
 * taking every job asked for since the last one was sent, so that a receiver under load pays neither
 * a round trip nor a write per job: the busier Redis or the receiver, the larger each batch, and a
 * lone delivery's job goes at once. Jobs of one deduplication id in a batch go once, the first:
 * Redis would coalesce the others into it (a burst's job is the first delivery's), and they are
 * answered with its id as having joined it; only the jobs sent are built and given an id. Each
 * caller learns what became of its jobs once Redis has taken the whole batch, or the batch's failure.
 */
export class EnqueueBatch {
  readonly #addBulk: (jobs: BulkJob[]) => Promise<ReadonlyArray<{ id?: string | undefined }>>;
  readonly #newId: () => string;
  #waiting: Waiting[] = [];
  /** A batch is on its way: the jobs asked for meanwhile wait for it to come back. */
  #sending = false;

  constructor(
    addBulk: (jobs: BulkJob[]) => Promise<ReadonlyArray<{ id?: string | undefined }>>,
    newId: () => string = randomUUID,
  ) {
    this.#addBulk = addBulk;
    this.#newId = newId;
  }

  /** What became of `jobs`, in order. */
  add(jobs: readonly PendingJob[]): Promise<EnqueuedJob[]> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.length === 0 && !this.#sending) setImmediate(() => this.#flush());
      this.#waiting.push({ jobs, resolve, reject });
    });
  }

  #flush(): void {
    const batch = this.#waiting;
    this.#waiting = [];
    if (batch.length === 0) return;
    this.#sending = true;
    const sent: BulkJob[] = [];
    const sentIds: string[] = [];
    const byDedupe = new Map<string, number>();
    // Where each caller's job went: its position among the jobs sent, or -1 - position when it
    // joined a job sent before it in this batch.
    const positions = batch.map((waiting) =>
      waiting.jobs.map((job) => {
        const earlier = job.dedupeId === undefined ? undefined : byDedupe.get(job.dedupeId);
        if (earlier !== undefined) return -1 - earlier;
        const id = this.#newId();
        sent.push(job.build(id));
        sentIds.push(id);
        if (job.dedupeId !== undefined) byDedupe.set(job.dedupeId, sent.length - 1);
        return sent.length - 1;
      }),
    );
    this.#addBulk(sent)
      .then(
        (added) => {
          for (const [index, waiting] of batch.entries())
            waiting.resolve(
              (positions[index] ?? []).map((position) => {
                const at = position < 0 ? -1 - position : position;
                const own = sentIds[at] as string;
                const id = added[at]?.id ?? own;
                return { id, queued: position >= 0 && id === own };
              }),
            );
        },
        (error: unknown) => {
          for (const waiting of batch) waiting.reject(error);
        },
      )
      .finally(() => {
        this.#sending = false;
        this.#flush();
      });
  }
}
