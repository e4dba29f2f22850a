/**
 * `listen --sync` keeps every user's data in a directory of its own, derived with the
 * one identity encoding: `..` cannot climb out of --out, and ids that a lossy replacement
 * merged (a/b and a_b, non-ASCII ids) stay apart.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { userDirName } from '../../src/store/identity.js';
import { buildDelivery } from '../../src/delivery/build-delivery.js';
import { postWebhook } from '../../src/delivery/post-webhook.js';
import { buildSampleBody } from '../../src/samples/sample-body.js';
import { startCli, tempDir } from '../helpers/cli.js';
import { startClockedListServer } from '../helpers/clocked-list-server.js';

const SECRET = 'whsec_identity_test';

describe('listen --sync: one directory per user, inside --out', () => {
  it('refuses "." and "..", keeps a/b, a_b, _, 顧客 and ユーザー apart, each with its own data', async () => {
    const users = ['a/b', 'a_b', '_', '顧客', 'ユーザー'];
    const accounts = Object.fromEntries([...users, '..', '.'].map((_user, index) => [`token-${index}`, 3 + index]));
    const tokenOf = (user: string) => `token-${[...users, '..', '.'].indexOf(user)}`;
    const server = await startClockedListServer({ accounts });
    const parent = tempDir();
    const out = join(parent, 'out');
    const tokens = join(tempDir(), 'tokens.json');
    writeFileSync(tokens, JSON.stringify(Object.fromEntries([...users, '..', '.'].map((u) => [u, tokenOf(u)]))));
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const listen = startCli(
      [
        'listen',
        '--port',
        '0',
        '--json',
        '--secret',
        SECRET,
        '--sync',
        '--base-url',
        server.baseUrl,
        '--tokens',
        tokens,
        '--out',
        out,
      ],
      { env },
    );
    try {
      const { url } = await listen.waitFor((line) => line?.kind === 'listening');
      // The same signed ENTITY_UPDATE `send-sample` sends, posted in-process (send-sample has its own CLI tests).
      for (const user of [...users, '..', '.']) {
        const body = JSON.stringify(buildSampleBody({ type: 'ENTITY_UPDATE', userId: user, entities: ['expense'] }));
        const delivery = await buildDelivery({ body, secret: SECRET });
        const sent = await postWebhook({ url: new URL(url), ...delivery });
        assert.equal(sent.status, 200, `${user}: ${sent.bodyExcerpt}`);
      }
      for (const user of users) await listen.waitFor((e) => e?.kind === 'sync-done' && e.userId === user, 30_000);
      for (const user of ['..', '.']) await listen.waitFor((e) => e?.kind === 'bad-user' && e.userId === user, 30_000);
      assert.deepEqual(readdirSync(parent), ['out'], 'nothing written beside --out');
      assert.equal(existsSync(join(out, 'expenses.json')), false, 'nothing written at the top of --out');
      assert.deepEqual(readdirSync(out).sort(), users.map(userDirName).sort());
      for (const user of users) {
        const items = JSON.parse(readFileSync(join(out, userDirName(user), 'expenses.json'), 'utf8'));
        assert.deepEqual(items, server.truth(tokenOf(user)), user);
      }
    } finally {
      await listen.stop();
      await server.close();
    }
  });
});
