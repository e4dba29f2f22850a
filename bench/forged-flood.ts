/**
 * Forged traffic costs the listener almost nothing, and valid deliveries do not
 * wait behind it. 200 concurrent senders replay a GENUINE token (captured from a real delivery) over
 * 1 MB bodies, so that the body must be hashed before it is refused (body_mismatch). Meanwhile a
 * probe in its own process sends small valid deliveries one after another, each on a NEW connection
 * as a webhook service sends them (a new connection waits for the listener to accept it: under a
 * flood that is where a delivery would wait if accepting fell behind). Rounds interleave quiet and
 * flooded probes. Printed:
 *   - valid-delivery latency p50/p90/p99/max, quiet and during the flood (goal: p99 under 250 ms);
 *   - the forged deliveries answered per second and how (400 after the hash, 503 no room);
 *   - listener CPU per forged delivery vs per valid one; its peak RSS (goal: under 300 MB).
 * The load generator runs on the same 2 cores as the listener and steals CPU from it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { signWebhook } from '../src/index.js';
import { cpuSeconds } from './lib/process-cpu.js';
import { fmt, loadNote, report } from './lib/measure.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';

const SECRET = 'bench-flood-secret';
const PROBE = fileURLToPath(new URL('./lib/valid-probe.ts', import.meta.url));

const peakRssMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Latencies (ms) of valid deliveries, each on a new connection, from the probe's own process. */
async function probe(url: string, seconds: number): Promise<number[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--import',
    'tsx',
    PROBE,
    url,
    SECRET,
    String(seconds),
  ]);
  return JSON.parse(stdout) as number[];
}

/** Forged 1 MB deliveries with a genuine token from `concurrency` keep-alive senders until `until` resolves. */
async function flood(url: string, concurrency: number, until: Promise<unknown>) {
  const genuineBody = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['invoice'] });
  const token = await signWebhook(genuineBody, SECRET);
  // JSON, so that anything re-serialising it would really pay for it (as the first trust round's flood did).
  const forgedBody = Buffer.from(
    JSON.stringify({
      userId: 'user_1',
      type: 'ENTITY_UPDATE',
      entities: ['invoice'],
      pad: 'x'.repeat(1024 * 1024 - 80),
    }),
  );
  const dispatcher = new Agent({ connections: concurrency });
  const statuses = new Map<string, number>();
  let done = false;
  void until.finally(() => (done = true));
  const started = performance.now();
  const worker = async () => {
    while (!done) {
      const status = await request(url, {
        method: 'POST',
        body: forgedBody,
        headers: { 'content-type': 'application/json', 'service-verification': token },
        dispatcher,
      }).then(
        async (response) => {
          await response.body.dump();
          return String(response.statusCode);
        },
        (error: NodeJS.ErrnoException) => error.code ?? 'error',
      );
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  return { statuses, seconds };
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? Number.NaN;
const spread = (values: number[]) =>
  `p50 ${fmt(quantile(values, 0.5), 1)}  p90 ${fmt(quantile(values, 0.9), 1)}  p99 ${fmt(quantile(values, 0.99), 1)}  max ${fmt(Math.max(...values), 1)} ms  (${values.length} deliveries)`;

export async function benchForgedFlood(concurrency = 200, rounds = 3, probeSeconds = 5): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-flood-'));
  const secretFile = join(dir, 'secret');
  writeFileSync(secretFile, SECRET);
  const listen = await startProcess(
    [
      process.execPath,
      BIN,
      'listen',
      '--port',
      '0',
      '--json',
      '--secret-file',
      secretFile,
      '--capture',
      join(dir, 'c.jsonl'),
    ],
    (line) => (line.includes('"listening"') ? JSON.parse(line).url : undefined),
    { ...process.env, LEDGERHOOK_CONFIG_DIR: dir },
    // A JSON line per delivery: into a file, so that reading them does not load this process.
    join(dir, 'listen.out'),
  );
  const url = listen.value;
  const pid = listen.child.pid!;
  const quiet: number[] = [];
  const flooded: number[] = [];
  const perRound: number[] = [];
  const answered = new Map<string, number>();
  let floodSeconds = 0;
  try {
    for (let round = 0; round < rounds; round += 1) {
      quiet.push(...(await probe(url, Math.max(1, probeSeconds / 2))));
      let stop!: () => void;
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      const flooding = flood(url, concurrency, stopped);
      // The flood at full strength first, then the probe through it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const latencies = await probe(url, probeSeconds).finally(stop);
      const { statuses, seconds } = await flooding;
      flooded.push(...latencies);
      perRound.push(quantile(latencies, 0.99));
      floodSeconds += seconds;
      for (const [status, count] of statuses) answered.set(status, (answered.get(status) ?? 0) + count);
    }
    const rss = peakRssMb(pid);
    // CPU per delivery: forged ones alone, then valid ones alone.
    const cpuMsPer = async (send: () => Promise<number>) => {
      const before = cpuSeconds(pid);
      const count = await send();
      return ((cpuSeconds(pid) - before) * 1000) / count;
    };
    const forgedMs = await cpuMsPer(async () => {
      const { statuses } = await flood(url, 20, new Promise((resolve) => setTimeout(resolve, 2000)));
      return [...statuses.values()].reduce((a, b) => a + b, 0);
    });
    const validMs = await cpuMsPer(async () => (await probe(url, 2)).length);
    const forged = [...answered.values()].reduce((a, b) => a + b, 0);
    const p99 = quantile(flooded, 0.99);
    report(
      `Forged flood: ${concurrency} concurrent senders of 1 MB bodies under a genuine token, ${rounds} rounds; valid deliveries on new connections from their own process [${loadNote()}]`,
      [
        ['valid delivery, quiet', spread(quiet)],
        ['valid delivery, during the flood', spread(flooded)],
        [
          'valid delivery p99 during the flood',
          `${fmt(p99, 1)} ms (rounds: ${perRound.map((v) => fmt(v, 0)).join(', ')})  goal < 250 ms  ${p99 < 250 ? 'met' : 'NOT met'}`,
        ],
        [
          'forged deliveries answered',
          `${fmt(forged / floodSeconds, 0)}/s (${[...answered].map(([status, count]) => `${status}: ${count}`).join(', ')})`,
        ],
        ['listener CPU per valid delivery', `${fmt(validMs, 3)} ms`],
        [
          'listener CPU per forged 1 MB delivery',
          `${fmt(forgedMs, 3)} ms  ${fmt(forgedMs / Math.max(validMs, 0.001), 1)}x valid (reading + one SHA-256 of 1 MB)`,
        ],
        ['listener peak RSS under the flood', `${fmt(rss, 0)} MB (goal: under 300 MB)`],
      ],
    );
  } finally {
    await stopProcess(listen.child);
  }
}
