/**
 * Sends small valid deliveries one after another for SECONDS, each on a NEW connection (as a
 * webhook service sends them), from its own process so that the latency is the listener's and not
 * the load generator's; prints the latencies (ms) as one JSON array.
 * Usage: node --import tsx bench/lib/valid-probe.ts URL SECRET SECONDS
 */
import { request } from 'node:http';
import { signWebhook } from '../../src/index.js';

const [url = '', secret = '', seconds = '5'] = process.argv.slice(2);
const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });

function send(token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'service-verification': token,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const latencies: number[] = [];
const deadline = performance.now() + Number(seconds) * 1000;
while (performance.now() < deadline) {
  const token = await signWebhook(body, secret);
  const started = performance.now();
  const status = await send(token);
  if (status !== 200) throw new Error(`a valid delivery was answered ${status}`);
  latencies.push(performance.now() - started);
}
process.stdout.write(JSON.stringify(latencies));
