import assert from 'node:assert/strict';
import { request } from 'node:http';
import { statSync } from 'node:fs';
import { describe, it } from 'node:test';
import { startCli } from '../helpers/cli.js';
import { CAPTURE_SECRET, writeMixedCapture } from '../helpers/capture-file.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';

/** A raw request, so that Host and Origin can be set the way a hostile page or rebinding would. */
function raw(
  url: URL,
  { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function startInspect(args: string[] = []) {
  const { file } = await writeMixedCapture();
  const inspect = startCli(['inspect', file, '--port', '0', '--json', ...args]);
  const started = await inspect.waitFor((line) => line?.kind === 'inspecting');
  return { inspect, base: new URL(started.inspectorUrl as string) };
}

describe('inspector server (HTTP, no browser)', () => {
  it('answers only with the per-run token and a loopback Host, always under a strict CSP', async () => {
    const { inspect, base } = await startInspect();
    try {
      assert.match(base.href, /^http:\/\/127\.0\.0\.1:\d+\/[\w-]{32}\/$/);
      const page = await raw(base);
      assert.equal(page.status, 200);
      const csp = String(page.headers['content-security-policy']);
      for (const directive of [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
      ])
        assert.ok(csp.includes(directive), directive);
      assert.equal(page.headers['referrer-policy'], 'no-referrer');
      const token = base.pathname.slice(1, -1);
      const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
      for (const path of [
        '/',
        '/api/deliveries',
        `/${wrong}/`,
        `/${wrong}/api/deliveries`,
        `/${token.slice(1)}/api/deliveries`,
      ])
        assert.equal((await raw(new URL(path, base))).status, 403, path);
      const rebound = await raw(new URL('api/deliveries', base), { headers: { host: `evil.example:${base.port}` } });
      assert.equal(rebound.status, 403);
      assert.equal(
        (await raw(new URL('api/deliveries', base), { headers: { host: `localhost:${base.port}` } })).status,
        200,
      );
      // The built page stays small: script, style and shell together under 100 kB.
      const script = await raw(new URL('app.js', base));
      const style = await raw(new URL('app.css', base));
      assert.ok(
        Buffer.byteLength(script.body) + Buffer.byteLength(style.body) + Buffer.byteLength(page.body) < 100 * 1024,
      );
      assert.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.ok(statSync(new URL('../../dist/inspector-page/app.js', import.meta.url)).size > 0);
    } finally {
      await inspect.stop();
    }
  });

  it('replays by the CLI rules: a refused delivery never re-signed, a valid one re-signed; the secret never leaves', async () => {
    const receiver = await startSpecReceiver({ secret: CAPTURE_SECRET });
    const { inspect, base } = await startInspect(['--secret', CAPTURE_SECRET, '--to', receiver.url]);
    try {
      const api = (path: string) => new URL(path, base);
      const forged = JSON.parse((await raw(api('api/deliveries/dlv_forged'))).body);
      assert.deepEqual(forged.replayModes, ['as-captured']);
      assert.equal(forged.checks.find((check: { name: string }) => check.name === 'signature').status, 'fail');
      const valid = JSON.parse((await raw(api('api/deliveries/dlv_valid'))).body);
      assert.deepEqual(valid.replayModes, ['resigned', 'as-captured']);

      const post = (id: string, mode: string, headers: Record<string, string> = {}, confirmRefused = false) =>
        raw(api(`api/deliveries/${id}/replay`), {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: base.origin, ...headers },
          body: JSON.stringify({ mode, confirmRefused }),
        });
      const laundered = await post('dlv_forged', 'resigned');
      assert.equal(laundered.status, 400);
      assert.match(JSON.parse(laundered.body).error, /replayed only as captured, never re-signed/);
      const foreign = await post('dlv_valid', 'resigned', { origin: 'http://evil.example' });
      assert.equal(foreign.status, 405);
      assert.equal(receiver.received.length, 0);

      const resigned = JSON.parse((await post('dlv_valid', 'resigned')).body);
      assert.equal(resigned.status, 200, JSON.stringify(resigned));
      // The CLI's --include-refused in the page: no confirmation, no replay (the server enforces it).
      const unconfirmed = await post('dlv_forged', 'as-captured');
      assert.equal(unconfirmed.status, 400);
      assert.match(JSON.parse(unconfirmed.body).error, /was refused \(bad_signature\).*confirmation/);
      assert.equal(receiver.received.length, 1);
      const asCaptured = JSON.parse((await post('dlv_forged', 'as-captured', {}, true)).body);
      assert.equal(asCaptured.status, 400); // the independent receiver refuses the forgery, as it should
      assert.deepEqual(
        receiver.received.map((delivery) => delivery.status),
        [200, 400],
      );

      const curl = JSON.parse((await raw(api('api/deliveries/dlv_valid/curl'))).body).command as string;
      assert.match(curl, /ledgerhook sign -/);
      assert.match(curl, /LEDGERHOOK_WEBHOOK_SECRET/);
      for (const path of ['api/deliveries', 'api/deliveries/dlv_valid', 'api/deliveries/dlv_forged', 'api/meta'])
        assert.equal((await raw(api(path))).body.includes(CAPTURE_SECRET), false, path);
      assert.equal(curl.includes(CAPTURE_SECRET), false);
    } finally {
      await inspect.stop();
      await receiver.close();
    }
  });
});
