import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startMockServer } from '../../src/mock/mock-server.js';
import { signWebhook } from '@ledgerhook/webhooks';
import { assertOneLineError, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess, startInProcess } from '../helpers/in-process-cli.js';

const SECRET = 'whsec_listen_flags_test';
const JSON_DOC = fileURLToPath(new URL('../../docs/json.md', import.meta.url));

async function post(url: string, body: string, token: string): Promise<number> {
  const response = await fetch(url, { method: 'POST', body, headers: { 'service-verification': token } });
  await response.arrayBuffer();
  return response.status;
}

/** The `kind` values docs/json.md documents for listen (its "`listen` lines" table). */
function documentedKinds(): Set<string> {
  const text = readFileSync(JSON_DOC, 'utf8');
  const section = text.slice(text.indexOf('### `listen` lines'));
  const end = section.indexOf('\n#', 5);
  const rows = (end > 0 ? section.slice(0, end) : section).split('\n').filter((line) => /^\| `[a-z-]+` \|/.test(line));
  return new Set(rows.map((row) => /^\| `([a-z-]+)`/.exec(row)?.[1] ?? ''));
}

describe('listen flags', () => {
  it('accepts a future iat with --allow-future-iat and shows the freshness warning (JSON and human)', async () => {
    const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
    const token = await signWebhook(body, SECRET, { iat: Math.floor(Date.now() / 1000) + 900 });

    // The JSON verdict in-process (the same command module); the human lines from the built bin.
    const json = startInProcess(['listen', '--port', '0', '--json', '--secret', SECRET, '--allow-future-iat']);
    const { url } = await json.waitFor((line) => line?.kind === 'listening');
    assert.equal(await post(url, body, token), 200);
    const delivery = await json.waitFor((line) => line?.kind === 'delivery');
    assert.equal(delivery.verdict.valid, true);
    assert.match(delivery.verdict.warnings[0], /in the future/);
    await json.stop();

    const human = startCli(['listen', '--port', '0', '--secret', SECRET, '--allow-future-iat']);
    const humanUrl = (await human.waitForStderr(/listening on (\S+)/))[1] ?? '';
    assert.equal(await post(humanUrl, body, token), 200);
    await human.waitFor((line) => /warning:.*in the future/.test(line));
    await human.stop();
  });

  it('refuses --sync without a secret (exit 2, one line) unless --insecure-no-verify', async () => {
    // sandbox: the local environment's development secret would make it verify.
    const args = ['listen', '--port', '0', '--sync', '--base-url', 'http://127.0.0.1:1/rest/v5', '--token', 't'];
    args.push('--env', 'sandbox');
    const refused = await runInProcess(args);
    assert.equal(refused.code, 2);
    assertOneLineError(refused);
    assert.match(refused.stderr, /needs a webhook secret.*--insecure-no-verify/);
    const insecure = startCli([...args, '--json', '--insecure-no-verify']);
    const started = await insecure.waitFor((line) => line?.kind === 'listening');
    assert.equal(started.verifying, false);
    assert.equal((await insecure.stop()).code, 130);
  });

  it('--token-file syncs with the trimmed token, and every --json kind it prints is documented', async () => {
    const mock = await startMockServer({ port: 0 });
    const dir = tempDir();
    const tokenFile = join(dir, 'token.txt');
    writeFileSync(tokenFile, `  ${mock.token}\n`);
    const listen = startCli([
      'listen',
      '--port',
      '0',
      '--json',
      '--secret',
      SECRET,
      '--sync',
      '--base-url',
      mock.url,
      '--token-file',
      tokenFile,
      '--out',
      join(dir, 'out'),
    ]);
    try {
      const { url } = await listen.waitFor((line) => line?.kind === 'listening');
      const userId = mock.service.userId;
      const body = JSON.stringify({ userId, type: 'ENTITY_UPDATE', entities: ['expense', 'notAnEntity'] });
      assert.equal(await post(url, body, await signWebhook(body, SECRET)), 200);
      const done = await listen.waitFor((line) => line?.kind === 'sync-done' || line?.kind === 'sync-failed', 30_000);
      assert.equal(done.kind, 'sync-done', JSON.stringify(done));
      await listen.waitFor((line) => line?.kind === 'unknown-entity');
      assert.equal(await post(url, '{}', 'forged'), 400);
      assert.equal((await fetch(url)).status, 405);
      await listen.waitFor((line) => line?.kind === 'refused');
    } finally {
      await listen.stop();
      await mock.close();
    }
    const kinds = new Set(listen.lines.map((line) => JSON.parse(line).kind as string));
    for (const kind of ['listening', 'delivery', 'sync-start', 'sync-done', 'unknown-entity', 'refused', 'summary'])
      assert.ok(kinds.has(kind), `${kind} was printed`);
    const documented = documentedKinds();
    const undocumented = [...kinds].filter((kind) => !documented.has(kind));
    assert.deepEqual(undocumented, [], 'every kind printed is in the README table');

    const both = await runInProcess([
      'listen',
      '--port',
      '0',
      '--sync',
      '--secret',
      SECRET,
      '--base-url',
      'http://127.0.0.1:1/rest/v5',
      '--token',
      'a',
      '--token-file',
      tokenFile,
    ]);
    assert.equal(both.code, 2);
    assertOneLineError(both);
    assert.match(both.stderr, /not several/);
  });
});
