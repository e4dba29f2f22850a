/**
 * Issue 12: requests per second of an Express app receiving deliveries with `createNodeMiddleware`
 * against the same Express app with a hand-written `express.raw` + `jsonwebtoken` verification,
 * same load, same run, loopback only. Goal: at least 3x.
 */
import { signWebhook } from '../src/index.js';
import { deliveryLoad } from './lib/delivery-load.js';
import { fmt, median, report } from './lib/measure.js';
import { startProcess, stopProcess } from './lib/processes.js';

const SERVER = new URL('./receiver-express-server.ts', import.meta.url).pathname;

export async function benchReceiverExpress(seconds = 1.5, concurrency = 32, rounds = 3): Promise<void> {
  const secret = 'bench-secret';
  const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense', 'invoice'] });
  const token = await signWebhook(body, secret); // valid for the whole run (tolerance 300 s)
  const env = { ...process.env, BENCH_SECRET: secret };
  const start = (variant: string) =>
    startProcess([process.execPath, '--import', 'tsx', SERVER, variant], (line) => /^port (\d+)/.exec(line)?.[1], env);
  const variants = ['hand', 'hand-key', 'ledgerhook'] as const;
  const servers = await Promise.all(variants.map(start));
  const urls = servers.map((server) => `http://127.0.0.1:${server.value}/webhooks`);
  const rates: number[][] = variants.map(() => []);
  try {
    // Warm every server (JIT) before measuring, then interleave rounds so machine noise hits all alike.
    for (const url of urls) await deliveryLoad(url, body, token, 0.3, concurrency);
    for (let round = 0; round < rounds; round += 1) {
      for (const [index, url] of urls.entries())
        rates[index]?.push(await deliveryLoad(url, body, token, seconds, concurrency));
    }
  } finally {
    for (const server of servers) await stopProcess(server.child);
  }
  const [hand = NaN, handKey = NaN, lib = NaN] = rates.map(median);
  report(
    `Express webhook receiver, requests/s, ${concurrency} concurrent, median of ${rounds} x ${seconds}s (goal: ledgerhook >= 3x hand-written; loopback, and the load generator shares the machine's 2 cores with the servers)`,
    [
      ['express.raw + jsonwebtoken, secret string (hand-written)', `${fmt(hand, 0)} /s`],
      ['express.raw + jsonwebtoken, secret as KeyObject', `${fmt(handKey, 0)} /s  ${fmt(handKey / hand, 2)}x`],
      [
        'createNodeMiddleware(webhooks)',
        `${fmt(lib, 0)} /s  ${fmt(lib / hand, 2)}x  (${fmt(lib / handKey, 2)}x the KeyObject recipe)`,
      ],
    ],
  );
}
