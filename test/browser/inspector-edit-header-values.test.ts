import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { capturedHeaderValues } from '../../src/capture/capture-record.js';
import { checkEditedHeaders } from '../../src/replay/edit-checks.js';
import { CAPTURE_SECRET, captureRecord, VALID_BODY, writeMixedCapture } from '../helpers/capture-file.js';
import { startCli } from '../helpers/cli.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';

/** An edited header is checked as the HTTP client that sends it checks it: refused with the reason, never a failed send. */
describe('inspector header edits: what the client would refuse is refused before anything is sent', () => {
  for (const [value, problem] of [
    [
      'caf\u00e9 \u20ac5',
      'header "x-note": "\u20ac" in its value: a header carries Latin-1 only (up to U+00FF); percent-encode it',
    ],
    [
      'a\u{1f600}',
      'header "x-note": "\u{1f600}" in its value: a header carries Latin-1 only (up to U+00FF); percent-encode it',
    ],
    ['a\u0000b', 'header "x-note": a line break or control character in its value'],
    ['a\u007fb', 'header "x-note": a line break or control character in its value'],
    ['a\rb', 'header "x-note": a line break or control character in its value'],
  ] as const)
    it(`${JSON.stringify(value)} is refused in process (the page runs the same check)`, () => {
      const result = checkEditedHeaders({ 'x-note': value }, 'service-verification');
      assert.equal(result.ok ? 'ok' : result.problem, problem);
    });

  it('a tab and Latin-1 (caf\u00e9) pass, as the client sends them', () => {
    const result = checkEditedHeaders({ 'x-note': 'caf\u00e9\tok' }, 'service-verification');
    assert.ok(result.ok);
  });

  it('a capture file is held to the same rule: a header the client would refuse is not taken from it', async () => {
    const record = await captureRecord(VALID_BODY, { id: 'dlv_x' });
    record.headers = { ...record.headers, 'x-wide': 'price \u20ac5', 'x-ok': 'caf\u00e9', 'x-list': ['a', 'b\nc'] };
    const headers = capturedHeaderValues(record);
    assert.equal(headers['x-wide'], undefined);
    assert.equal(headers['x-ok'], 'caf\u00e9');
    assert.deepEqual(headers['x-list'], ['a']);
  });

  it('through `inspect`: "\u20ac" is a 400 naming it, nothing sent or recorded; "caf\u00e9" arrives as typed', async () => {
    const receiver = await startSpecReceiver({ secret: CAPTURE_SECRET });
    const { file } = await writeMixedCapture();
    const inspect = startCli(['inspect', file, '--port', '0', '--json', '--to', receiver.url], {
      env: { LEDGERHOOK_WEBHOOK_SECRET: CAPTURE_SECRET },
    });
    try {
      const started = await inspect.waitFor((line) => line?.kind === 'inspecting');
      const base = new URL(started.inspectorUrl as string);
      const edit = async (headers: Record<string, string>) => {
        const response = await fetch(new URL('api/deliveries/dlv_valid/edit', base), {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: base.origin },
          body: JSON.stringify({ body: VALID_BODY, headers }),
        });
        return { status: response.status, value: await response.json() };
      };
      const before = readFileSync(file, 'utf8');
      const refused = await edit({ 'content-type': 'application/json', 'x-note': 'price \u20ac5' });
      assert.equal(refused.status, 400, JSON.stringify(refused.value));
      assert.match(refused.value.error, /"x-note": "\u20ac" in its value: a header carries Latin-1 only/);
      assert.equal(receiver.received.length, 0);
      assert.equal(readFileSync(file, 'utf8'), before);

      const sent = await edit({ 'content-type': 'application/json', 'x-note': 'caf\u00e9' });
      assert.equal(sent.status, 200, JSON.stringify(sent.value));
      assert.equal(receiver.received[0]?.status, 200, receiver.received[0]?.reason);
      assert.equal(receiver.received[0]?.headers['x-note'], 'caf\u00e9');
    } finally {
      await inspect.stop();
      await receiver.close();
    }
  });
});
