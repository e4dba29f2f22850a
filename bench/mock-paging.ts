/**
 * Pages per second of a full paginated read of 1,000,000 expenses at limit 1000 from
 * `ledgerhook mock`, and the mock's peak RSS, against a bare node:http server answering the same
 * size of page from memory (pre-serialised), in the same run.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { fmt, report } from './lib/measure.js';
import { BIN, startProcess, stopProcess } from './lib/processes.js';

const BARE_SERVER = `
const page = JSON.stringify({ data: Array.from({ length: 1000 }, (_, i) => ({ id: 600001 + i, type: 'PENDING', date: '2026-06-03 07:19:31.072', amount: 2089.16, categoryId: 8, personalCategoryId: 11, description: 'SHELL #832', vendor: 'Shell', bankAccountId: 3102, currency: 'USD' })), lastUpdatedDate: new Date().toISOString(), cursor: 'x'.repeat(60) });
require('http').createServer((q, r) => { q.resume(); r.writeHead(200, { 'content-type': 'application/json' }); r.end(page); }).listen(0, '127.0.0.1', function () { console.log('port ' + this.address().port); });`;

function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

async function readAll(
  baseUrl: string,
  token: string,
  maxPages: number,
  dispatcher: Agent,
): Promise<{ pages: number; items: number; seconds: number }> {
  let cursor: string | undefined;
  let pages = 0;
  let items = 0;
  const started = performance.now();
  do {
    const response = await request(`${baseUrl}/expenses`, {
      headers: { authorization: `Bearer ${token}`, limit: '1000', ...(cursor ? { cursor } : {}) },
      dispatcher,
    });
    const page = (await response.body.json()) as { data: unknown[]; cursor?: string };
    items += page.data.length;
    pages += 1;
    cursor = pages < maxPages ? page.cursor : undefined;
  } while (cursor);
  return { pages, items, seconds: (performance.now() - started) / 1000 };
}

export async function benchMockPaging(): Promise<void> {
  const dispatcher = new Agent();
  const bare = await startProcess([process.execPath, '-e', BARE_SERVER], (line) => /^port (\d+)/.exec(line)?.[1]);
  const baseline = await readAll(`http://127.0.0.1:${bare.value}`, '', 1000, dispatcher);
  await stopProcess(bare.child);
  const mock = await startProcess(
    [process.execPath, BIN, 'mock', '--port', '0', '--json', '--items', '1000000'],
    (line) => (line.includes('baseUrl') ? line : undefined),
  );
  const { baseUrl, token } = JSON.parse(mock.value) as { baseUrl: string; token: string };
  const result = await readAll(baseUrl, token, Infinity, dispatcher);
  const rss = peakRssMb(mock.child.pid!);
  await stopProcess(mock.child);
  await dispatcher.close();
  const rate = (r: { pages: number; seconds: number }) => r.pages / r.seconds;
  report('Mock service: full read of 1,000,000 expenses at limit 1000', [
    ['bare node:http, same page from memory', `${fmt(rate(baseline), 0)} pages/s`],
    [
      'ledgerhook mock',
      `${fmt(rate(result), 0)} pages/s  ${fmt(rate(result) / rate(baseline), 2)}x  (${result.items} items in ${fmt(result.seconds, 1)} s)`,
    ],
    ['ledgerhook mock peak RSS', `${fmt(rss, 0)} MB`],
  ]);
}
