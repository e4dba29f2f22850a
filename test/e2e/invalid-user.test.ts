import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { signWebhook } from '@ledgerhook/webhooks';
import { startCli, tempDir } from '../helpers/cli.js';

const SECRET = 'whsec_invalid_user';

describe('authentic deliveries whose userId cannot name a user say why', () => {
  it('listen --sync --json: a number, null, an array or a lone surrogate get invalid_user on the delivery line and in the sync', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'secret'), SECRET);
    writeFileSync(join(dir, 'token'), 'tok');
    const listen = startCli([
      'listen',
      '--port',
      '0',
      '--json',
      '--secret-file',
      join(dir, 'secret'),
      '--sync',
      '--base-url',
      'http://127.0.0.1:1/rest/v5',
      '--token-file',
      join(dir, 'token'),
      '--out',
      join(dir, 'data'),
    ]);
    try {
      const { url } = await listen.waitFor((line) => line?.kind === 'listening');
      const userIds = ['7', 'null', '["a"]', '"\\ud800"'];
      for (const userId of userIds) {
        const body = `{"userId":${userId},"type":"ENTITY_UPDATE","entities":["expense"]}`;
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'service-verification': await signWebhook(body, SECRET) },
          body,
        });
        assert.equal(response.status, 200);
      }
      for (let seen = 0; seen < userIds.length; seen += 1) {
        const delivery = await listen.waitFor(
          (line) => line?.kind === 'delivery' && listen.lines.filter((l) => l.includes('"invalidBody"')).length > seen,
        );
        assert.ok(delivery);
      }
      const lines = listen.lines.map((line) => JSON.parse(line));
      const deliveries = lines.filter((line) => line.kind === 'delivery');
      assert.deepEqual(
        deliveries.map((line) => line.invalidBody?.code),
        ['invalid_user', 'invalid_user', 'invalid_user', 'invalid_user'],
      );
      assert.match(deliveries[0].invalidBody.reason, /userId is a number/);
      assert.match(deliveries[3].invalidBody.reason, /not well-formed Unicode/);
      await listen.waitFor(
        () => lines.length > 0 && listen.lines.filter((l) => l.includes('"invalid-body"')).length === 4,
      );
    } finally {
      await listen.stop();
    }
  });
});
