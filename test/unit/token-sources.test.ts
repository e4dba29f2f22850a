/**
 * Where listen --sync and worker take each user's access token from, through the one resolver both
 * call (resolveTokenFor), and the one reader of a token file that it and every single-token command share.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CliContext } from '../../src/cli/context.js';
import { resolveToken } from '../../src/cli/resolve-dataset.js';
import { resolveTokenFor } from '../../src/cli/token-map.js';
import { tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

function file(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

function settings(sandbox: Record<string, string>): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ environments: { sandbox } }));
  return dir;
}

function contextWith(sandbox: Record<string, string>, env: Record<string, string> = {}): CliContext {
  return {
    env: { LEDGERHOOK_CONFIG_DIR: settings(sandbox), ...env },
    signal: new AbortController().signal,
  } as unknown as CliContext;
}

describe('access tokens: one token-file reader, one resolver for listen --sync and worker', () => {
  it('a token file holds the token alone: whitespace around it dropped, an empty file or a space inside refused', async () => {
    const ctx = contextWith({});
    const flags = { env: 'sandbox' };
    assert.equal(await resolveToken({ ...flags, tokenFile: file('t', '  tok_123\n') }, ctx), 'tok_123');
    const forAll = await resolveTokenFor({ ...flags, tokenFile: file('t', 'tok_123\r\n') }, ctx);
    assert.equal(forAll('anyone'), 'tok_123');
    for (const [text, why] of [
      ['\n', 'is empty'],
      ['tok 123\n', 'holds more than a token'],
      ['tok_1\ntok_2\n', 'holds more than a token'],
    ] as const) {
      const path = file('t', text);
      const message = `the token file ${path} ${why}: it must hold the access token alone (one line, no spaces)`;
      await assert.rejects(resolveToken({ ...flags, tokenFile: path }, ctx), { message });
      await assert.rejects(resolveTokenFor({ ...flags, tokenFile: path }, ctx), { message });
    }
  });

  it('--tokens, then --token-file or LEDGERHOOK_TOKEN, then the stored tokensFile, then the stored token', async () => {
    const map = file('tokens.json', JSON.stringify({ user_1: 'tok_map' }));
    const stored = contextWith({ tokensFile: map, token: 'tok_stored' });
    const flags = { env: 'sandbox' };
    assert.equal((await resolveTokenFor(flags, stored))('user_1'), 'tok_map');
    assert.equal((await resolveTokenFor(flags, stored))('user_2'), undefined, 'a user the map lacks has no token');
    const other = file('other.json', JSON.stringify({ user_2: 'tok_other' }));
    assert.equal((await resolveTokenFor({ ...flags, tokens: other }, stored))('user_2'), 'tok_other');
    assert.equal((await resolveTokenFor({ ...flags, tokenFile: file('t', 'tok_file') }, stored))('user_1'), 'tok_file');
    const variable = contextWith({ tokensFile: map }, { LEDGERHOOK_TOKEN: 'tok_env' });
    assert.equal((await resolveTokenFor(flags, variable))('user_1'), 'tok_env');
    assert.equal((await resolveTokenFor(flags, contextWith({ token: 'tok_stored' })))('user_9'), 'tok_stored');
    await assert.rejects(resolveTokenFor({ ...flags, tokens: map, token: 'x' }, stored), {
      message:
        'give one of --token or --token-file (one token for every user) or --tokens FILE (per user), not several',
    });
  });

  it('both commands read the stored tokensFile and a token file the same way, before anything connects', async () => {
    const notJson = file('tokens.json', 'user_1=tok');
    const spaced = file('spaced.token', 'tok 123\n');
    const nowhere = 'http://127.0.0.1:1/rest/v5';
    const commands = [
      ['listen', '--port', '0', '--sync', '--insecure-no-verify', '--base-url', nowhere, '--out', tempDir()],
      ['worker', '--queue', 'redis://127.0.0.1:1', '--store', 'postgres://127.0.0.1:1/x', '--base-url', nowhere],
    ];
    for (const command of commands) {
      const env = { LEDGERHOOK_CONFIG_DIR: settings({ tokensFile: notJson }), LEDGERHOOK_ENV: 'sandbox' };
      const fromSetting = await runInProcess(command, { env });
      assert.equal(fromSetting.code, 2, `${command[0]}: ${fromSetting.stderr}`);
      assert.match(fromSetting.stderr, /^error: \S+tokens\.json is not JSON; it must map userId to access token/m);
      const fromFile = await runInProcess([...command, '--token-file', spaced], { env });
      assert.equal(fromFile.code, 2, `${command[0]}: ${fromFile.stderr}`);
      assert.match(
        fromFile.stderr,
        /^error: the token file \S+ holds more than a token: it must hold the access token alone/m,
      );
    }
  });
});
