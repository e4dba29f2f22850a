/**
 * Issue 2: cold-process wall time of `ledgerhook --help` and `ledgerhook verify` (valid token)
 * against `node -e 0` in the same run. Goal: at most 1.5x bare Node for both.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signWebhook } from '../src/index.js';
import { fmt, report, timeProcesses } from './lib/measure.js';

export async function benchCliStartup(runs = 21): Promise<void> {
  const bin = fileURLToPath(new URL('../bin/ledgerhook.js', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-'));
  const body = '{"userId":"u-1","type":"ENTITY_UPDATE","entities":["expense","invoice"]}';
  writeFileSync(join(dir, 'body.json'), body);
  const token = await signWebhook(body, 'bench-secret', { iat: Math.floor(Date.now() / 1000) + 3600 });
  const env = { ...process.env, LEDGERHOOK_CONFIG_DIR: dir, NO_COLOR: '1' };
  const times = timeProcesses(
    {
      'node -e 0': [process.execPath, '-e', '0'],
      'ledgerhook --help': [process.execPath, bin, '--help'],
      'ledgerhook verify': [
        process.execPath,
        bin,
        'verify',
        join(dir, 'body.json'),
        '--token',
        token,
        '--secret',
        'bench-secret',
        '--ignore-expiry',
      ],
    },
    runs,
    env,
  );
  const base = times['node -e 0']!;
  report(
    `CLI start-up, median of ${runs} cold processes (goal: <= 1.5x node -e 0)`,
    Object.entries(times).map(([name, ms]) => [name, `${fmt(ms)} ms  ${fmt(ms / base, 2)}x`]),
  );
}
