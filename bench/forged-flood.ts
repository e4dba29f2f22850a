/**
 * Issue 17: forged traffic costs the listener almost nothing. A flood of 1,000 deliveries of 1 MB
 * at 200 concurrent, each carrying a GENUINE token (captured from a real delivery) over another
 * body: the signature verifies, the body does not match. Printed side by side in one run:
 *   - valid-delivery p99 latency during the flood vs without it (goal: under 1 s);
 *   - listener CPU per forged delivery vs per valid one;
 *   - the listener's peak RSS under the flood (goal: under 300 MB).
 * The load generator runs on the same 2 cores as the listener and steals CPU from it: the ratios
 * are pessimistic for the listener.
 */
import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { signWebhook } from '../src/index.js';
import { fmt, median, report } from './lib/measure.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';

const SECRET = 'bench-flood-secret';

/** utime + stime of a process in clock ticks (Linux /proc). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const peakRssMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function post(url: string, body: string | Buffer, token: string, dispatcher: Agent): Promise<number> {
  const response = await request(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'service-verification': token },
    dispatcher,
  });
  await response.body.dump();
  return response.statusCode;
}

/** Latencies (ms) of valid deliveries sent one after another until `until` resolves (at least `min`). */
async function probe(url: string, until: Promise<unknown>, min: number): Promise<number[]> {
  const dispatcher = new Agent({ connections: 1 });
  const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
  let done = false;
  void until.then(() => (done = true));
  const latencies: number[] = [];
  while (!done || latencies.length < min) {
    const token = await signWebhook(body, SECRET);
    const started = performance.now();
    const status = await post(url, body, token, dispatcher);
    if (status !== 200) throw new Error(`a valid delivery was answered ${status}`);
    latencies.push(performance.now() - started);
  }
  await dispatcher.close();
  return latencies;
}

async function flood(url: string, count: number, concurrency: number): Promise<void> {
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
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      // 400 (body_mismatch) or 503 (the body budget is full): both are refusals, as they should be.
      await post(url, forgedBody, token, dispatcher).catch(() => 0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await dispatcher.close();
}

const p99 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))]!;

export async function benchForgedFlood(count = 1000, concurrency = 200): Promise<void> {
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
  );
  const url = listen.value;
  const pid = listen.child.pid!;
  try {
    const quiet = await probe(url, Promise.resolve(), 200);
    const flooding = flood(url, count, concurrency);
    const loaded = await probe(url, flooding, 20);
    await flooding;
    const rss = peakRssMb(pid);
    // CPU per delivery: the same number of each, one kind at a time.
    const per = async (send: () => Promise<void>) => {
      const before = cpuTicks(pid);
      await send();
      return (cpuTicks(pid) - before) * 10; // ms at 100 ticks/s
    };
    const forgedMs = (await per(() => flood(url, 200, 20))) / 200;
    const validMs = (await per(async () => void (await probe(url, Promise.resolve(), 200)))) / 200;
    report(
      `Forged flood: ${count} x 1 MB genuine-token, wrong-body deliveries at ${concurrency} concurrent (load generator on the same 2 cores)`,
      [
        ['valid delivery p99, quiet', `${fmt(p99(quiet), 1)} ms (median ${fmt(median(quiet), 1)} ms)`],
        [
          'valid delivery p99, during the flood',
          `${fmt(p99(loaded), 1)} ms  ${fmt(p99(loaded) / p99(quiet), 1)}x quiet (goal: under 1000 ms)`,
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
