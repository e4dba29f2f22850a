import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FileStore } from '../../src/index.js';
import { tempDir } from '../helpers/cli.js';
import { runnable } from '../helpers/runnable.js';
import { startClockedListServer } from '../helpers/clocked-list-server.js';

const CHILD = fileURLToPath(new URL('../../test/helpers/state-writer-child.ts', import.meta.url));

function runChild(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...runnable(CHILD), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

// 10 syncs per process by default; the full 30 only in the soak tier (LEDGERHOOK_SOAK=1).
const SYNCS = process.env.LEDGERHOOK_SOAK === '1' ? 30 : 10;

describe('the state file under concurrent writers', () => {
  it(`4 processes x ${SYNCS} syncs into one state file: no record lost`, async () => {
    const server = await startClockedListServer({ accounts: { t: 3 } });
    const outDir = tempDir();
    const stateFile = join(tempDir(), 'state.json');
    try {
      const results = await Promise.all(
        ['w1', 'w2', 'w3', 'w4'].map((worker) =>
          runChild([server.baseUrl, 't', outDir, stateFile, worker, String(SYNCS)]),
        ),
      );
      for (const result of results) assert.equal(result.code, 0, result.stderr);
      const records = await new FileStore({ outDir, stateFile }).records();
      assert.equal(records.length, 4 * SYNCS);
    } finally {
      await server.close();
    }
  });
});
