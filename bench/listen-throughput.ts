/**
 * Issue 4: deliveries per second into `ledgerhook listen --capture` (verifying and capturing each)
 * against a bare node:http server that only reads the body and answers 200, same load, same run.
 * Goal: at least 0.5x.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhook } from '../src/index.js';
import { deliveryLoad } from './lib/delivery-load.js';
import { fmt, report } from './lib/measure.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';

const BARE_SERVER =
  "require('http').createServer((q,r)=>{q.resume();q.on('end',()=>r.end('ok'))}).listen(0,'127.0.0.1',function(){console.log('port '+this.address().port)})";

export async function benchListenThroughput(seconds = 3, concurrency = 50): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-'));
  const secret = 'bench-secret';
  const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense', 'invoice'] });
  // Issued now, valid for the whole run (the tolerance is 300 s).
  const token = await signWebhook(body, secret);
  const bare = await startProcess([process.execPath, '-e', BARE_SERVER], (line) => /^port (\d+)/.exec(line)?.[1]);
  const listen = await startProcess(
    [
      process.execPath,
      BIN,
      'listen',
      '--port',
      '0',
      '--json',
      '--secret',
      secret,
      '--capture',
      join(dir, 'capture.jsonl'),
    ],
    (line) => (line.includes('"listening"') ? JSON.parse(line).url : undefined),
    { ...process.env, LEDGERHOOK_CONFIG_DIR: dir },
  );
  const rates = { bare: [] as number[], listen: [] as number[] };
  for (let round = 0; round < 3; round += 1) {
    rates.bare.push(await deliveryLoad(`http://127.0.0.1:${bare.value}/`, body, token, seconds, concurrency));
    rates.listen.push(await deliveryLoad(listen.value, body, token, seconds, concurrency));
  }
  await stopProcess(bare.child);
  await stopProcess(listen.child);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!; // the median of 3 interleaved rounds
  report(`Deliveries per second, ${concurrency} concurrent, median of 3 x ${seconds}s (goal: listen >= 0.5x bare)`, [
    ['bare node:http server', `${fmt(median(rates.bare), 0)} /s`],
    [
      'ledgerhook listen --capture (verify + capture)',
      `${fmt(median(rates.listen), 0)} /s  ${fmt(median(rates.listen) / median(rates.bare), 2)}x`,
    ],
  ]);
}
