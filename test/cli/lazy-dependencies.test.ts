/**
 * The heavy dependencies load only in the commands that use them (docs/architecture.md, "Lazy
 * loading"): `--help`, `verify` and `sign` never load undici, ora, conf, pg, bullmq or ioredis. Each
 * start runs with a module resolve hook (node:module's register) that writes every URL resolved to a
 * file; a sync, which does send, is the check that the hook sees undici when it is loaded.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { signWebhook } from '../../src/index.js';
import { runCli, tempDir } from '../helpers/cli.js';

const HEAVY = /\/node_modules\/(undici|ora|conf|pg|bullmq|ioredis)\//;

const HOOKS = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.LEDGERHOOK_TEST_RESOLVED, resolved.url + '\\n');
  return resolved;
}
`;

/** What a start of the CLI resolved, as URLs (each once). */
async function resolvedBy(args: string[]): Promise<string[]> {
  const dir = tempDir();
  writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
  const hooks = pathToFileURL(join(dir, 'hooks.mjs')).href;
  writeFileSync(
    join(dir, 'preload.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(hooks)});\n`,
  );
  const log = join(dir, 'resolved.txt');
  writeFileSync(log, '');
  const result = await runCli(args, {
    env: { NODE_OPTIONS: `--import=${pathToFileURL(join(dir, 'preload.mjs')).href}`, LEDGERHOOK_TEST_RESOLVED: log },
  });
  assert.ok(result.code !== null && result.code <= 3, `${args[0]}: ${result.stderr}`);
  return [
    ...new Set(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line !== ''),
    ),
  ];
}

describe('what a start loads', () => {
  it('--help, verify and sign load none of undici, ora, conf, pg, bullmq, ioredis', async () => {
    const dir = tempDir();
    const body = '{"userId":"u-1","type":"ENTITY_UPDATE","entities":["expense"]}';
    const file = join(dir, 'body.json');
    writeFileSync(file, body);
    const token = await signWebhook(body, 'whsec-test');
    for (const args of [
      ['--help'],
      ['verify', file, '--token', token, '--secret', 'whsec-test'],
      ['sign', file, '--secret', 'whsec-test'],
    ]) {
      const resolved = await resolvedBy(args);
      assert.ok(
        resolved.some((url) => url.includes('/bin/ledgerhook.js')),
        'the hook saw the start',
      );
      assert.deepEqual(
        resolved.filter((url) => HEAVY.test(url)),
        [],
        args[0],
      );
    }
  });

  it('a command that sends loads undici (the hook sees it)', async () => {
    const resolved = await resolvedBy([
      'sync',
      'expenses',
      '--base-url',
      'http://127.0.0.1:9',
      '--token',
      't',
      '--out',
      tempDir(),
    ]);
    assert.ok(
      resolved.some((url) => /\/node_modules\/undici\//.test(url)),
      resolved.join('\n'),
    );
  });
});
