/**
 * Requests per second of an Express app receiving deliveries with
 * `createNodeMiddleware` against the same Express app with a hand-written `express.raw` +
 * `jsonwebtoken` verification (and the same recipe given a KeyObject), same load, interleaved
 * round by round, loopback only. Goal: ledgerhook >= 3.5x the hand-written recipe.
 * Each server's CPU time per request is printed too: steadier than a rate on a shared machine. And
 * the floor: the same Express app reading the body and answering, verifying nothing; what
 * createNodeMiddleware adds to it is the library's own cost.
 */
import { signWebhook } from '../src/index.js';
import { deliveryLoad } from './lib/delivery-load.js';
import { cpuSeconds } from './lib/process-cpu.js';
import { interleaved, reportRatio } from './lib/ratio.js';
import { startProcess, stopProcess } from './lib/processes.js';

const SERVER = new URL('./receiver-express-server.ts', import.meta.url).pathname;

export async function benchReceiverExpress(seconds = 1.5, concurrency = 32, rounds = 5): Promise<void> {
  const secret = 'bench-secret';
  const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense', 'invoice'] });
  const token = await signWebhook(body, secret); // valid for the whole run (tolerance 300 s)
  const env = { ...process.env, BENCH_SECRET: secret };
  const start = (variant: string) =>
    startProcess([process.execPath, '--import', 'tsx', SERVER, variant], (line) => /^port (\d+)/.exec(line)?.[1], env);
  const variants = ['hand', 'hand-key', 'ledgerhook', 'floor'] as const;
  const started = await Promise.all(variants.map(start));
  const servers = Object.fromEntries(variants.map((name, index) => [name, started[index]!])) as unknown as Record<
    (typeof variants)[number],
    { child: { pid?: number | undefined }; value: string }
  >;
  const url = (name: (typeof variants)[number]) => `http://127.0.0.1:${servers[name].value}/webhooks`;
  const cpu = { hand: [] as number[], 'hand-key': [] as number[], ledgerhook: [] as number[], floor: [] as number[] };
  try {
    // Warm every server (JIT) before measuring.
    for (const name of variants) await deliveryLoad(url(name), body, token, 0.3, concurrency);
    const rates = await interleaved(variants, rounds, async (name) => {
      const before = cpuSeconds(servers[name].child.pid);
      const begun = performance.now();
      const rate = await deliveryLoad(url(name), body, token, seconds, concurrency);
      const requests = (rate * (performance.now() - begun)) / 1000;
      cpu[name].push(((cpuSeconds(servers[name].child.pid) - before) / requests) * 1e6);
      return rate;
    });
    const title = `Express webhook receiver, ${concurrency} concurrent, ${seconds}s rounds (loopback; the load generator shares the cores)`;
    const goal = { better: 'higher', ratio: 3.5 } as const;
    const hand = { label: 'express.raw + jsonwebtoken, secret string (hand-written)', samples: rates.hand };
    const lib = { label: 'createNodeMiddleware(webhooks)', samples: rates.ledgerhook };
    reportRatio(`${title}: requests/s`, hand, lib, goal, '/s');
    reportRatio(
      `${title}: requests/s against the KeyObject recipe (jsonwebtoken without its failed public-key attempt; no goal)`,
      { label: 'express.raw + jsonwebtoken, secret as KeyObject', samples: rates['hand-key'] },
      lib,
      { better: 'higher', ratio: 1 },
      '/s',
    );
    reportRatio(
      `${title}: server CPU microseconds per request (ratio hand/ledgerhook, so higher is better)`,
      { label: 'createNodeMiddleware(webhooks)', samples: cpu.ledgerhook },
      { label: 'express.raw + jsonwebtoken, secret string (hand-written)', samples: cpu.hand },
      goal,
      'µs CPU',
      1,
    );
    const floor = { label: 'express.raw + answer, no verification (the floor)', samples: cpu.floor };
    reportRatio(
      `${title}: server CPU microseconds per request against Express alone (ratio floor/ledgerhook: the share of it that is Express's own)`,
      { label: 'createNodeMiddleware(webhooks)', samples: cpu.ledgerhook },
      floor,
      undefined,
      'µs CPU',
      1,
    );
  } finally {
    for (const server of started) await stopProcess(server.child as never);
  }
}
