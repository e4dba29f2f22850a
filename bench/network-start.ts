/**
 * What a network command costs from start to exit, against the least any such process
 * costs. `ledgerhook sync` of 5 pages of 10 items (--full, so every run reads and writes them all)
 * from `ledgerhook mock`, against an ES module that GETs the same 5 pages with node:http on one
 * keep-alive connection and parses them (nothing written), interleaved run by run on every Node this
 * machine has (as cli-startup). No goal: the row shows the distance. The mock shares the 2 cores.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coldStartEnv, nodes } from './cli-startup.js';
import { timeProcessSamples } from './lib/measure.js';
import { reportRatio } from './lib/ratio.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';

/** The floor: node:http, sequential pages on one connection, each parsed. */
const FLOOR = `
const http = process.getBuiltinModule('node:http');
const [url, token] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true });
const get = (cursor) => new Promise((resolve, reject) => {
  const headers = { authorization: 'Bearer ' + token, limit: '10', ...(cursor ? { cursor } : {}) };
  http.get(url, { agent, headers }, (response) => {
    if (response.statusCode !== 200) {
      response.resume();
      reject(new Error('floor: GET answered ' + response.statusCode));
      return;
    }
    let text = '';
    response.setEncoding('utf8').on('data', (chunk) => (text += chunk)).on('end', () => resolve(JSON.parse(text)));
  }).on('error', reject);
});
let page = await get();
while (page.cursor) page = await get(page.cursor);
agent.destroy();
`;

export async function benchNetworkStart(runs = Number(process.env.LEDGERHOOK_BENCH_RUNS ?? 15)): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-'));
  writeFileSync(join(dir, 'floor.mjs'), FLOOR);
  const mock = await startProcess([process.execPath, BIN, 'mock', '--port', '0', '--json', '--items', '50'], (line) =>
    line.includes('baseUrl') ? line : undefined,
  );
  const { baseUrl, token } = JSON.parse(mock.value) as { baseUrl: string; token: string };
  writeFileSync(join(dir, 'token'), token);
  const env = coldStartEnv(dir);
  try {
    for (const [label, node] of nodes()) {
      const out = join(dir, `out-${label.split(' ')[1]}`);
      const sync = [node, BIN, 'sync', 'expenses', '--base-url', baseUrl, '--token-file', join(dir, 'token')];
      const variants = {
        floor: [node, join(dir, 'floor.mjs'), `${baseUrl}/expenses`, token],
        sync: [...sync, '--limit', '10', '--full', '--out', out],
      };
      timeProcessSamples(variants, 1, env); // one untimed start: Node 22+'s compile cache, the page cache
      const times = timeProcessSamples(variants, runs, env);
      reportRatio(
        `Network command, ${label}: ledgerhook sync of 5 pages (10 items each, --full) from the mock, start to exit, vs node:http getting and parsing the same pages`,
        { label: 'node floor.mjs (node:http, 5 GETs, JSON.parse)', samples: times.floor ?? [] },
        { label: 'ledgerhook sync expenses --full', samples: times.sync ?? [] },
        undefined,
        'ms',
        1,
      );
    }
  } finally {
    await stopProcess(mock.child);
  }
}
