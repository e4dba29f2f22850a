/**
 * Output that cannot be written is one line on stderr and a usage exit, never a stack trace: stdout to
 * /dev/full (ENOSPC) for a command that writes through the stream (events), one that prints its --json
 * document straight to the descriptor, and verify. Skipped with one loud line where /dev/full is missing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN, tempDir } from '../helpers/cli.js';

const full = existsSync('/dev/full');
if (!full) console.log('*** /dev/full is missing: output-failure tests skipped ***');

test('stdout that cannot be written: one line, exit 2', { skip: !full }, () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'body.json'), '{}');
  for (const args of [
    ['events'],
    ['events', '--json'],
    ['verify', join(dir, 'body.json'), '--token', 'a.b.c', '--secret', 's'],
  ]) {
    const out = openSync('/dev/full', 'w');
    const result = spawnSync(process.execPath, [BIN, ...args], {
      stdio: ['ignore', out, 'pipe'],
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', LEDGERHOOK_CONFIG_DIR: dir },
    });
    const lines = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('warning:'));
    assert.deepEqual(lines, ['error: cannot write to stdout: the disk is full'], args.join(' '));
    assert.equal(result.status, 2, args.join(' '));
  }
});

test('an empty secret file: its advice said once', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'secret'), '\n');
  const result = spawnSync(process.execPath, [BIN, 'sign', '--data', '{}', '--secret-file', join(dir, 'secret')], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', LEDGERHOOK_CONFIG_DIR: dir },
  });
  assert.equal(result.status, 2);
  assert.equal(result.stderr.match(/webhook_secret the API team sent/g)?.length, 1, result.stderr);
});

test('a long-running command whose stdout fails stops, as at Ctrl-C, and exits 2', { skip: !full }, () => {
  const dir = tempDir();
  const out = openSync('/dev/full', 'w');
  // listen --json writes its first JSON line at once: the failure stops it (a deadline, not a sleep).
  const result = spawnSync(process.execPath, [BIN, 'listen', '--port', '0', '--json'], {
    stdio: ['ignore', out, 'pipe'],
    encoding: 'utf8',
    // A deadline, killed hard: a graceful stop on SIGTERM would pass for stopping by itself.
    timeout: 15_000,
    killSignal: 'SIGKILL',
    env: { ...process.env, NO_COLOR: '1', LEDGERHOOK_CONFIG_DIR: dir },
  });
  assert.equal(result.signal, null, 'it stopped by itself');
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^error: cannot write to stdout: the disk is full$/m);
  assert.equal(result.stderr.match(/cannot write to stdout/g)?.length, 1);
});

test('--help to a stdout not open for writing: one line, exit 2', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'read-only'), '');
  for (const args of [['--help'], ['events']]) {
    const out = openSync(join(dir, 'read-only'), 'r');
    const result = spawnSync(process.execPath, [BIN, ...args], {
      stdio: ['ignore', out, 'pipe'],
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', LEDGERHOOK_CONFIG_DIR: dir },
    });
    assert.equal(result.stderr, 'error: cannot write to stdout: bad file descriptor\n', args.join(' '));
    assert.equal(result.status, 2, args.join(' '));
  }
});
