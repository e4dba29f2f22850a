import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { signWebhook } from '@ledgerhook/webhooks';
import { runCli, startCli, tempDir } from '../helpers/cli.js';

const SECRET = 'whsec_body_mismatch_cause';

describe('a body_mismatch is explained once the sender was answered, and on demand', () => {
  it('listen prints the cause on the line; captures show and verify --delivery explain it from the capture', async () => {
    const dir = tempDir();
    const secretFile = join(dir, 'secret');
    writeFileSync(secretFile, SECRET);
    const capture = join(dir, 'c.jsonl');
    const listen = startCli(['listen', '--port', '0', '--json', '--secret-file', secretFile, '--capture', capture]);
    try {
      const { url } = await listen.waitFor((line) => line?.kind === 'listening');
      const compact = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
      const pretty = JSON.stringify(JSON.parse(compact), null, 2);
      // What a framework that parses and re-serialises JSON does: the signed token, another body.
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-verification': await signWebhook(compact, SECRET) },
        body: pretty,
      });
      assert.equal(response.status, 400);
      const line = await listen.waitFor((l) => l?.kind === 'delivery');
      assert.equal(line.verdict.code, 'body_mismatch');
      assert.match(line.verdict.cause, /re-serialised compactly/);
    } finally {
      await listen.stop();
    }
    const show = await runCli(['captures', 'show', capture, '--secret-file', secretFile]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /re-serialised compactly/);
    const verify = await runCli(['verify', '--delivery', capture, '--secret-file', secretFile, '--at-receipt']);
    assert.equal(verify.code, 1, verify.stderr);
    assert.match(verify.stdout, /re-serialised compactly/);
  });
});
