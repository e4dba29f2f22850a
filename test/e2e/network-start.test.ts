/**
 * What a network command costs before its own work: undici parses responses with llhttp compiled to
 * WebAssembly, and V8 handed llhttp's state machine to its optimizing compiler within the first
 * responses (~140 ms of CPU per start, waited for at exit). The CLI raises V8's wasm tiering budget
 * before undici loads (src/cli/wasm-tiering.ts). V8 says which compiler compiled each wasm function
 * (--trace-wasm-compilation-times), so the test reads that, not a time.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startPagedListServer } from '../helpers/paged-list-server.js';
import { BIN, tempDir } from '../helpers/cli.js';

function syncTraced(baseUrl: string, dir: string): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const args = ['--trace-wasm-compilation-times', BIN, 'sync', 'expenses', '--base-url', baseUrl, '--token', 't'];
  const child = spawn(process.execPath, [...args, '--out', join(dir, 'out'), '--limit', '10'], {
    env: { ...process.env, NO_COLOR: '1', LEDGERHOOK_CONFIG_DIR: join(dir, 'config') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a network command’s start', () => {
  it('a short sync parses its responses without compiling llhttp with the optimizing compiler', async () => {
    const server = await startPagedListServer(50);
    try {
      const result = await syncTraced(server.baseUrl, tempDir());
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /5 pages, 50 items/);
      // V8 prints one line per wasm function it compiles: llhttp is compiled (Liftoff), never optimized.
      assert.match(result.stdout + result.stderr, /using Liftoff/, 'the trace is there: llhttp was compiled');
      assert.doesNotMatch(result.stdout + result.stderr, /using TurboFan/);
    } finally {
      await server.close();
    }
  });
});
