import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CAPTURE_SECRET, VALID_BODY, writeMixedCapture } from '../helpers/capture-file.js';
import { startCli } from '../helpers/cli.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';

/** Edit and resend through the inspector's HTTP API (`inspect FILE`): the server never trusts the page. */
describe('inspector edit and resend (HTTP, no browser)', () => {
  it('checks the edit again on the server, re-signs it with its own secret, records it linked to its original; the secret never leaves', async () => {
    const receiver = await startSpecReceiver({ secret: CAPTURE_SECRET });
    const { file } = await writeMixedCapture();
    const inspect = startCli(['inspect', file, '--port', '0', '--json', '--to', receiver.url], {
      env: { LEDGERHOOK_WEBHOOK_SECRET: CAPTURE_SECRET },
    });
    try {
      const started = await inspect.waitFor((line) => line?.kind === 'inspecting');
      const base = new URL(started.inspectorUrl as string);
      const api = (path: string) => new URL(path, base);
      const responses: string[] = [];
      const get = async (path: string) => {
        const text = await (await fetch(api(path))).text();
        responses.push(text);
        return JSON.parse(text);
      };
      const edit = async (id: string, payload: unknown, origin = base.origin) => {
        const response = await fetch(api(`api/deliveries/${id}/edit`), {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin },
          body: typeof payload === 'string' ? payload : JSON.stringify(payload),
        });
        const text = await response.text();
        responses.push(text);
        return { status: response.status, value: JSON.parse(text) };
      };

      const valid = await get('api/deliveries/dlv_valid');
      assert.equal(valid.edit.allowed, true);
      assert.equal(valid.edit.headerName, 'service-verification');
      // The edit starts from the original's headers, without its token.
      assert.deepEqual(valid.edit.headers, { 'content-type': 'application/json' });
      const forged = await get('api/deliveries/dlv_forged');
      assert.equal(forged.edit.allowed, false);
      assert.match(forged.edit.why, /original token does not verify.*never re-signed/);

      const before = readFileSync(file, 'utf8');
      const edited = JSON.stringify({ ...JSON.parse(VALID_BODY), eventData: { amount: 7 } });
      const refusals: Array<[string, unknown, RegExp]> = [
        [
          'dlv_valid',
          { body: '{"userId":"u",\n"type":}' },
          /not JSON: expected a value, found "}" \(line 2, column 8\)/,
        ],
        ['dlv_valid', { body: '{"userId":"u","type":"ENTITY_UPDATE"}' }, /not a webhook body.*entities is missing/],
        ['dlv_valid', { body: 42 }, /the edited body must be text/],
        [
          'dlv_valid',
          { body: edited, headers: { 'Service-Verification': 'x.y.z' } },
          /always made fresh by re-signing/,
        ],
        ['dlv_valid', { body: edited, headers: { 'x-note': 'a\r\nx-injected: 1' } }, /line break or control character/],
        ['dlv_valid', { body: edited, headers: ['x'] }, /must be a JSON object/],
        [
          'dlv_valid',
          { body: `{"userId":"u","type":"ENTITY_UPDATE","entities":["${'x'.repeat(1024 * 1024)}"]}` },
          /at most 1048576 are sent/,
        ],
        ['dlv_forged', { body: edited }, /original token does not verify.*never re-signed/],
      ];
      for (const [id, payload, problem] of refusals) {
        const answer = await edit(id, payload);
        assert.equal(answer.status, 400, JSON.stringify(payload).slice(0, 80));
        assert.match(answer.value.error, problem);
      }
      // Another origin's form, and a request without the token, cannot send anything.
      assert.equal((await edit('dlv_valid', { body: edited }, 'http://evil.example')).status, 405);
      const tokenless = await fetch(new URL('/api/deliveries/dlv_valid/edit', base), { method: 'POST', body: '{}' });
      assert.equal(tokenless.status, 403);
      // A request body past the bound is refused unread.
      const huge = await edit('dlv_valid', JSON.stringify({ body: 'x'.repeat(7 * 1024 * 1024) }));
      assert.equal(huge.status, 400);
      assert.equal(receiver.received.length, 0);
      assert.equal(readFileSync(file, 'utf8'), before);

      const sent = await edit('dlv_valid', {
        body: edited,
        headers: { 'content-type': 'application/json', 'x-note': 'edited' },
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.value));
      assert.equal(sent.value.status, 200);
      assert.equal(sent.value.editedFrom, 'dlv_valid');
      // The receiver (spec 5.2, no ledgerhook code) verified a fresh token over the edited body.
      const [got] = receiver.received;
      assert.equal(got?.status, 200, got?.reason);
      assert.equal(got?.body.toString('utf8'), edited);
      assert.equal(got?.headers['x-note'], 'edited');
      assert.equal(got?.headers['ledgerhook-edited-from'], 'dlv_valid');
      const claims = JSON.parse(
        Buffer.from(String(got?.headers['service-verification']).split('.')[1] ?? '', 'base64url').toString(),
      );
      assert.equal(claims.request_body_sha256, createHash('sha256').update(edited).digest('base64'));

      // Recorded in the file it was edited from (the torn last line kept apart), and listed as an edit.
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      const record = JSON.parse(lines.at(-1) ?? '');
      assert.equal(record.id, sent.value.id);
      assert.equal(record.editedFrom, 'dlv_valid');
      assert.equal(Buffer.from(record.body, 'base64').toString('utf8'), edited);
      const list = await get('api/deliveries');
      assert.equal(list.at(-1).editedFrom, 'dlv_valid');
      const detail = await get(`api/deliveries/${sent.value.id}`);
      assert.equal(detail.editedFrom, 'dlv_valid');

      // No response carried the secret, nor anything it could be computed from but a token.
      const mac = createHmac('sha256', CAPTURE_SECRET).update('probe').digest('hex');
      for (const text of [...responses, JSON.stringify(await get('api/meta'))]) {
        assert.equal(text.includes(CAPTURE_SECRET), false);
        assert.equal(text.includes(mac), false);
      }
    } finally {
      await inspect.stop();
      await receiver.close();
    }
  });
});
