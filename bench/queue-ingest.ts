/**
 * The queue path's two rates (`npm run bench queue-ingest`), each against its own floor, interleaved:
 *  - deliveries/s through `listen --sync --queue` (verify, then enqueue one deduplicated job per
 *    dataset into Redis, answering only once Redis has them) against `listen --capture` (verify and
 *    append to a file), same signed ENTITY_UPDATE, same load; two `ledgerhook worker` processes sync
 *    the jobs into Postgres beside the receiver meanwhile (goal: >= 0.5x);
 *  - what the workers commit per second into Postgres: a burst of deliveries for 100 users (two
 *    datasets each, 200 jobs) drained by 1 worker and by 2, rounds alternating (each run an
 *    incremental sync committed with its state).
 * Every process shares the machine's cores with the others (the API, Redis, Postgres, the load).
 * Needs Redis at LEDGERHOOK_TEST_REDIS_URL and Postgres at LEDGERHOOK_TEST_DATABASE_URL.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { queueStatus } from '../src/queue/queue-status.js';
import { signWebhook } from '../src/index.js';
import { runPool } from '../src/util/worker-pool.js';
import { startMultiUserApi } from '../test/scale/helpers/multi-user-api.js';
import {
  createTestSchema,
  dropQueueKeys,
  REDIS_URL,
  servicesSkip,
  testQueueName,
} from '../test/scale/helpers/services.js';
import { deliveryLoad } from './lib/delivery-load.js';
import { cpuSeconds } from './lib/process-cpu.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';
import { interleaved, loadNote, reportRatio } from './lib/ratio.js';

const SECRET = 'bench-queue-secret';
const USERS = 100;
const ROUNDS = Number(process.env.LEDGERHOOK_BENCH_ROUNDS ?? 5);
const SECONDS = 2;
const CONCURRENCY = 50;

/** How many lines of `file` mention `kind` (the processes' --json lines, written to files). */
const linesOf = (file: string, kind: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes(`"kind":"${kind}"`)).length;

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function benchQueueIngest(): Promise<void> {
  const skip = await servicesSkip();
  if (skip) {
    console.log(`\nqueue-ingest: skipped (${skip})`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-queue-'));
  const api = await startMultiUserApi({ backend: 'mock', users: USERS, items: 25 });
  const schema = await createTestSchema();
  const queueName = testQueueName('bench-ingest');
  const tokensFile = join(dir, 'tokens.json');
  writeFileSync(tokensFile, JSON.stringify(api.tokens));
  const env = { ...process.env, LEDGERHOOK_CONFIG_DIR: dir, LEDGERHOOK_WEBHOOK_SECRET: SECRET, NO_COLOR: '1' };
  const queueFlags = ['--queue', REDIS_URL, '--queue-name', queueName];
  const listening = (line: string) => (line.includes('"listening"') ? JSON.parse(line).url : undefined);
  const children: ChildProcess[] = [];
  const start = async (argv: string[], ready: (line: string) => string | undefined, out: string) => {
    const started = await startProcess([process.execPath, BIN, ...argv], ready, env, join(dir, out));
    children.push(started.child);
    return { ...started, out: join(dir, out) };
  };
  /** Every worker's output file, the stopped ones' too: what they committed is counted from them. */
  const workerOuts: string[] = [];
  const startWorker = () => {
    workerOuts.push(join(dir, `worker-${workerOuts.length + 1}.out`));
    return start(
      [
        'worker',
        ...queueFlags,
        '--store',
        schema.url,
        '--base-url',
        api.baseUrl,
        '--tokens',
        tokensFile,
        '--concurrency',
        '4',
        '--limit',
        '100',
        '--json',
      ],
      (line) => (line.includes('"worker-ready"') ? 'ready' : undefined),
      `worker-${workerOuts.length}.out`,
    );
  };
  try {
    const capture = await start(
      ['listen', '--port', '0', '--json', '--capture', join(dir, 'capture.jsonl')],
      listening,
      'capture.out',
    );
    const queue = await start(['listen', '--port', '0', '--json', '--sync', ...queueFlags], listening, 'queue.out');
    await startWorker();
    const second = await startWorker();
    const body = JSON.stringify({ userId: api.userIds[0], type: 'ENTITY_UPDATE', entities: ['expense', 'invoice'] });
    const token = await signWebhook(body, SECRET);
    const urls = { capture: capture.value, queue: queue.value };
    for (const url of Object.values(urls)) await deliveryLoad(url, body, token, 0.5, CONCURRENCY);

    const load = [loadNote()];
    const commits = () => workerOuts.reduce((sum, file) => sum + linesOf(file, 'sync-done'), 0);
    const committed: number[] = [];
    const cpu = { capture: [] as number[], queue: [] as number[] };
    const pids = { capture: capture.child.pid, queue: queue.child.pid };
    const rates = await interleaved(['capture', 'queue'] as const, ROUNDS, async (name) => {
      const [runs, cpuBefore, started] = [commits(), cpuSeconds(pids[name]), performance.now()];
      const rate = await deliveryLoad(urls[name], body, token, SECONDS, CONCURRENCY);
      const seconds = (performance.now() - started) / 1000;
      cpu[name].push(((cpuSeconds(pids[name]) - cpuBefore) / (rate * seconds)) * 1e6);
      if (name === 'queue') committed.push((commits() - runs) / seconds);
      return rate;
    });
    load.push(loadNote());
    reportRatio(
      `listen --sync --queue deliveries/s vs listen --capture, ${CONCURRENCY} concurrent, ${SECONDS}s rounds; 2 workers syncing the jobs into Postgres beside the queue's rounds`,
      { label: 'listen --capture (verify + capture)', samples: rates.capture },
      { label: 'listen --sync --queue (verify + enqueue, deduplicated)', samples: rates.queue },
      { better: 'higher', ratio: 0.5 },
      '/s',
    );
    // The same as the receiver's CPU per delivery (capture / queue, so higher is better as above): what
    // each would sustain with a core to itself, whatever else (the workers, Redis, Postgres) runs.
    reportRatio(
      'listen --sync --queue vs listen --capture, receiver CPU microseconds per delivery (ratio capture/queue)',
      { label: 'listen --sync --queue (verify + enqueue, deduplicated)', samples: cpu.queue },
      { label: 'listen --capture (verify + capture)', samples: cpu.capture },
      undefined,
      'µs CPU',
    );
    console.log(
      `  the 2 workers committed ${committed.map((v) => v.toFixed(0)).join(' / ')} runs/s during the queue's rounds (one user's deliveries coalesce: at most one run and one waiting per dataset)`,
    );

    // Commits per second: a burst of 200 jobs drained by 1 worker, then by 2, rounds alternating.
    const deliveries = await Promise.all(
      api.userIds.map(async (userId) => {
        const text = JSON.stringify({ userId, type: 'ENTITY_UPDATE', entities: ['expense', 'invoice'] });
        return { text, token: await signWebhook(text, SECRET) };
      }),
    );
    let sent = linesOf(queue.out, 'queued') + linesOf(queue.out, 'coalesced');
    const burst = async () => {
      const [runs, started] = [commits(), performance.now()];
      await runPool(deliveries.length, 20, async (index) => {
        const delivery = deliveries[index] as { text: string; token: string };
        const response = await fetch(urls.queue, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'service-verification': delivery.token },
          body: delivery.text,
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`a delivery was answered ${response.status}`);
      });
      sent += deliveries.length * 2;
      await until(() => linesOf(queue.out, 'queued') + linesOf(queue.out, 'coalesced') >= sent, 'the enqueues');
      await until(async () => {
        const status = await queueStatus({ url: REDIS_URL, queueName });
        return status.waiting + status.active + status.delayed === 0;
      }, 'the queue to drain');
      return (commits() - runs) / ((performance.now() - started) / 1000);
    };
    await burst(); // every dataset synced once before the rounds: each round is incremental runs
    const drained = { one: [] as number[], two: [] as number[] };
    let extra: Awaited<ReturnType<typeof startWorker>> | undefined = second;
    for (let round = 0; round < ROUNDS; round += 1)
      for (const size of round % 2 ? (['two', 'one'] as const) : (['one', 'two'] as const)) {
        if (size === 'one' && extra) {
          await stopProcess(extra.child, 'SIGTERM');
          extra = undefined;
        }
        if (size === 'two' && !extra) extra = await startWorker();
        drained[size].push(await burst());
      }
    load.push(loadNote());
    const failed = workerOuts.reduce((sum, file) => sum + linesOf(file, 'sync-failed'), 0);
    reportRatio(
      `Workers' commits into Postgres per second: a burst of ${deliveries.length} deliveries (${deliveries.length * 2} jobs, incremental syncs) drained by 2 workers vs 1 (concurrency 4 each)${failed ? `; ${failed} runs failed` : ''}`,
      { label: '1 worker', samples: drained.one },
      { label: '2 workers', samples: drained.two },
      undefined,
      'commits/s',
    );
    console.log(`  machine: ${load.join(' -> ')}`);
  } finally {
    for (const child of children) await stopProcess(child, 'SIGTERM');
    await api.close();
    await schema.drop();
    await dropQueueKeys(queueName);
    rmSync(dir, { recursive: true, force: true });
  }
}
