/**
 * The scale path: 1,000 signed ENTITY_UPDATE deliveries for 200 users (expense and invoice each)
 * through `listen --sync --queue`, drained by 1 and then 2 `ledgerhook worker` processes into
 * Postgres: how many jobs the deliveries became (coalescing ratio), how many runs the workers made,
 * and the time from the first delivery until the queue is drained. Needs Redis and Postgres.
 */
import { availableParallelism, loadavg } from 'node:os';
import { runPool } from '../src/util/worker-pool.js';
import { DATASETS, startMultiUserApi } from '../test/scale/helpers/multi-user-api.js';
import { sendWebhook, startRig } from '../test/scale/helpers/scale-rig.js';
import { fmt, report } from './lib/measure.js';

const USERS = 200;
const DELIVERIES = 1000;

async function drainWith(workers: number) {
  const api = await startMultiUserApi({ backend: 'mock', users: USERS, items: 25, latencyMs: 2 });
  const rig = await startRig(`bench-${workers}`, { baseUrl: api.baseUrl, tokens: api.tokens });
  try {
    for (let i = 0; i < workers; i += 1) await rig.startWorker();
    const started = performance.now();
    await runPool(DELIVERIES, 20, async (index) => {
      const status = await sendWebhook(rig.url, api.userIds[index % USERS]!, ['expense', 'invoice']);
      if (status !== 200) throw new Error(`delivery answered ${status}`);
    });
    const sent = (performance.now() - started) / 1000;
    await rig.drained(DELIVERIES * DATASETS.length, 300_000);
    const seconds = (performance.now() - started) / 1000;
    const outcomes = rig.listener.lines.map((line) => /"kind":"(queued|coalesced)"/.exec(line)?.[1]).filter(Boolean);
    const jobs = outcomes.filter((kind) => kind === 'queued').length;
    const runs = rig.workers.reduce(
      (sum, worker) => sum + worker.lines.filter((line) => line.includes('"kind":"sync-done"')).length,
      0,
    );
    return { seconds, sent, jobs, runs, requests: outcomes.length };
  } finally {
    await rig.close();
    await api.close();
  }
}

export async function benchScaleQueue(): Promise<void> {
  const one = await drainWith(1);
  const two = await drainWith(2);
  const row = (label: string, r: Awaited<ReturnType<typeof drainWith>>) =>
    [
      label,
      `${r.requests} dataset requests → ${r.jobs} jobs (${fmt(r.requests / r.jobs, 1)}:1), ${r.runs} runs; all sent in ${fmt(r.sent, 2)} s, drained in ${fmt(r.seconds, 2)} s (${fmt(r.runs / r.seconds, 0)} runs/s)`,
    ] as [string, string];
  report(
    `Webhooks through listen --queue: ${DELIVERIES} deliveries for ${USERS} users (2 datasets each), concurrency 4 per worker`,
    [
      row('1 worker', one),
      row('2 workers', two),
      ['2 workers against 1', `${fmt(one.seconds / two.seconds, 2)}x faster`],
      [
        'machine',
        `${availableParallelism()} cores, load average ${loadavg()
          .map((l) => fmt(l, 1))
          .join(' ')} (API, receiver, workers, Redis and Postgres share them)`,
      ],
    ],
  );
}
