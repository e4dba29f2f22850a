import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { startCli } from '../helpers/cli.js';

const SECRET = 'whsec_print_body_test';
const b64url = (data: string) => Buffer.from(data).toString('base64url');

function token(body: string): string {
  const claims = {
    iat: Math.floor(Date.now() / 1000),
    request_body_sha256: createHash('sha256').update(body).digest('base64'),
  };
  const input = `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}`;
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
}

describe('listen --print-body and --ui (human output)', () => {
  it('prints each body pretty under its line, hostile control characters escaped; the first line gives the inspector URL', async () => {
    const listen = startCli(['listen', '--port', '0', '--ui-port', '0', '--print-body', '--secret', SECRET]);
    try {
      // The banner is status: on stderr, its first line; stdout holds only deliveries.
      const match = await listen.waitForStderr(
        /^listening on (http:\/\/127\.0\.0\.1:\d+\/), inspector at (http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/)$/m,
      );
      assert.ok(!listen.stderr().startsWith('warning') || /^warning: --secret/.test(listen.stderr()));
      const [, url, inspectorUrl] = match;
      assert.equal((await fetch(inspectorUrl!)).status, 200);
      // JSON.stringify writes the escape as \u001b: the listener decodes it, and must not print it raw.
      const body = JSON.stringify({ userId: 'user_\u001b[31mred', type: 'ENTITY_UPDATE', entities: ['expense'] });
      const response = await fetch(url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-verification': token(body) },
        body,
      });
      await response.arrayBuffer();
      assert.equal(response.status, 200);
      await listen.waitFor((line) => line === '}');
      const at = listen.lines.findIndex((line) => line.includes('ENTITY_UPDATE'));
      assert.ok(at >= 0, 'the delivery line is on stdout (the banner is on stderr)');
      assert.deepEqual(listen.lines.slice(at + 1, at + 8), [
        '{',
        '  "userId": "user_\\u001b[31mred",',
        '  "type": "ENTITY_UPDATE",',
        '  "entities": [',
        '    "expense"',
        '  ]',
        '}',
      ]);
      assert.equal(listen.lines.join('\n').includes('\u001b'), false);
    } finally {
      const stopped = await listen.stop();
      assert.equal(stopped.code, 130, 'Ctrl-C: interrupted');
    }
    assert.match(listen.lines.join('\n'), /received 1 delivery: 1 valid/);
  });
});
