/**
 * Deliveries per second into `ledgerhook listen --capture --json` (verifying,
 * capturing and printing each) against a bare node:http server that only reads the body and answers
 * 200, same load, interleaved round by round, same body, token header, keep-alive connections and
 * concurrency; both servers' stdout go to files (listen's line per delivery is written, as to a
 * terminal, and not read back by the generator). Goals: deliveries/s >= 0.75x the bare
 * server with no round under 0.6x, and server CPU per delivery >= 0.5x (bare/listen). Both share the cores
 * with the load generator; LEDGERHOOK_BENCH_PIN=1 puts the servers on core 0 and the generator on
 * core 1 (for profiling: on 2 cores the generator alone then cannot saturate the bare server, so the
 * ratio says more about the generator than the listener).
 *
 * A third server, measured in the same rounds, is the floor of listen's own promises: the same
 * verification, capture line, printed line and answer written by hand on node:http and node:crypto
 * (lib/listen-floor.mjs). Listen against it (no goal) is what listen's design costs beyond the work.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signWebhook } from '../src/index.js';
import { deliveryLoad } from './lib/delivery-load.js';
import { corePinning } from './lib/pinning.js';
import { cpuSeconds } from './lib/process-cpu.js';
import { interleaved, reportRatio } from './lib/ratio.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';

const FLOOR = fileURLToPath(new URL('./lib/listen-floor.mjs', import.meta.url));

const BARE_SERVER =
  "require('http').createServer((q,r)=>{q.resume();q.on('end',()=>r.end('ok'))}).listen(0,'127.0.0.1',function(){console.log('port '+this.address().port)})";

export async function benchListenThroughput(seconds = 2, concurrency = 50, rounds = 8): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-'));
  const secret = 'bench-secret';
  const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense', 'invoice'] });
  // Issued now, valid for the whole run (the tolerance is 300 s).
  const token = await signWebhook(body, secret);
  const pin =
    process.env.LEDGERHOOK_BENCH_PIN === '1' ? corePinning() : { server: (argv: string[]) => argv, note: 'not pinned' };
  const bare = await startProcess(
    pin.server([process.execPath, '-e', BARE_SERVER]),
    (line) => /^port (\d+)/.exec(line)?.[1],
    process.env,
    join(dir, 'bare.out'),
  );
  const listen = await startProcess(
    pin.server([process.execPath, BIN, 'listen', '--port', '0', '--json', '--capture', join(dir, 'capture.jsonl')]),
    (line) => (line.includes('"listening"') ? JSON.parse(line).url : undefined),
    { ...process.env, LEDGERHOOK_CONFIG_DIR: dir, LEDGERHOOK_WEBHOOK_SECRET: secret },
    // listen prints a JSON line per delivery: into a file, as the bare server's (silent) stdout, so that
    // reading them does not load the generator's process (a pipe into it would, for listen only).
    join(dir, 'listen.out'),
  );
  const floor = await startProcess(
    pin.server([process.execPath, FLOOR, join(dir, 'floor-capture.jsonl')]),
    (line) => /^port (\d+)/.exec(line)?.[1],
    { ...process.env, LEDGERHOOK_WEBHOOK_SECRET: secret },
    join(dir, 'floor.out'),
  );
  const urls = {
    bare: `http://127.0.0.1:${bare.value}/`,
    floor: `http://127.0.0.1:${floor.value}/`,
    listen: listen.value,
  };
  try {
    // Warm every server (JIT) before measuring.
    for (const url of Object.values(urls)) await deliveryLoad(url, body, token, 0.5, concurrency);
    const pids = { bare: bare.child.pid, floor: floor.child.pid, listen: listen.child.pid };
    const cpuPerDelivery = { bare: [] as number[], floor: [] as number[], listen: [] as number[] };
    const rates = await interleaved(['bare', 'floor', 'listen'] as const, rounds, async (name) => {
      const cpuBefore = cpuSeconds(pids[name]);
      const started = performance.now();
      const rate = await deliveryLoad(urls[name], body, token, seconds, concurrency);
      const deliveries = (rate * (performance.now() - started)) / 1000;
      cpuPerDelivery[name].push(((cpuSeconds(pids[name]) - cpuBefore) / deliveries) * 1e6);
      return rate;
    });
    reportRatio(
      `listen --capture deliveries/s vs bare node:http, ${concurrency} concurrent, ${seconds}s rounds; ${pin.note}`,
      { label: 'bare node:http server (reads the body, answers 200)', samples: rates.bare },
      { label: 'ledgerhook listen --capture (verify + capture)', samples: rates.listen },
      { better: 'higher', ratio: 0.75, worst: 0.6 },
      '/s',
    );
    // The same comparison as server CPU time per delivery (bare / listen, so higher is better as above):
    // what each server would sustain with a core to itself, whatever else the machine is running.
    reportRatio(
      'listen --capture vs bare node:http, server CPU microseconds per delivery (ratio bare/listen)',
      { label: 'ledgerhook listen --capture (verify + capture)', samples: cpuPerDelivery.listen },
      { label: 'bare node:http server (reads the body, answers 200)', samples: cpuPerDelivery.bare },
      { better: 'higher', ratio: 0.5 },
      'µs CPU',
      1,
    );
    reportRatio(
      `listen --capture deliveries/s vs the same promises kept by hand (node:http + node:crypto), ${concurrency} concurrent`,
      { label: 'by hand: verify, capture line, printed line, answer', samples: rates.floor },
      { label: 'ledgerhook listen --capture (verify + capture)', samples: rates.listen },
      undefined,
      '/s',
    );
    reportRatio(
      'listen --capture vs the same promises kept by hand, server CPU microseconds per delivery (ratio hand/listen)',
      { label: 'ledgerhook listen --capture (verify + capture)', samples: cpuPerDelivery.listen },
      { label: 'by hand: verify, capture line, printed line, answer', samples: cpuPerDelivery.floor },
      undefined,
      'µs CPU',
      1,
    );
  } finally {
    await stopProcess(bare.child);
    await stopProcess(floor.child);
    await stopProcess(listen.child);
  }
}
