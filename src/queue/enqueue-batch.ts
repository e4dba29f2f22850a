import type { JobsOptions } from 'bullmq';

/** One job as BullMQ's addBulk takes it. */
export interface BulkJob {
  name: string;
  data: unknown;
  opts: JobsOptions;
}

interface Waiting {
  jobs: readonly BulkJob[];
  resolve: (ids: Array<string | undefined>) => void;
  reject: (error: unknown) => void;
}

/**
 * Jobs handed to Redis together: one addBulk (one pipeline: one write, one round trip) at a time,
 * taking every job asked for since the last one was sent, so that a receiver under load pays neither
 * a round trip nor a write per job: the busier Redis or the receiver, the larger each batch, and a
 * lone delivery's job goes at once. Jobs of one deduplication id in a
 * batch go once, the first: Redis would coalesce the others into it (a burst's job is the first
 * delivery's), and they are answered with its id as having joined it. Each caller learns its own
 * jobs' ids once Redis has taken the whole batch, or the batch's failure.
 */
export class EnqueueBatch {
  readonly #addBulk: (jobs: BulkJob[]) => Promise<ReadonlyArray<{ id?: string | undefined }>>;
  #waiting: Waiting[] = [];
  /** A batch is on its way: the jobs asked for meanwhile wait for it to come back. */
  #sending = false;

  constructor(addBulk: (jobs: BulkJob[]) => Promise<ReadonlyArray<{ id?: string | undefined }>>) {
    this.#addBulk = addBulk;
  }

  /** The ids Redis gave `jobs`, in order (another job's id where one joined a job already there). */
  add(jobs: readonly BulkJob[]): Promise<Array<string | undefined>> {
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
    const byDedupe = new Map<string, number>();
    // Where each caller's job went: its position among the jobs sent.
    const positions = batch.map((waiting) =>
      waiting.jobs.map((job) => {
        const dedupe = job.opts.deduplication?.id;
        const earlier = dedupe === undefined ? undefined : byDedupe.get(dedupe);
        if (earlier !== undefined) return earlier;
        sent.push(job);
        if (dedupe !== undefined) byDedupe.set(dedupe, sent.length - 1);
        return sent.length - 1;
      }),
    );
    this.#addBulk(sent)
      .then(
        (added) => {
          for (const [index, waiting] of batch.entries())
            waiting.resolve((positions[index] ?? []).map((position) => added[position]?.id));
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
