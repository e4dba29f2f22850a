import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildDelivery } from '../../src/delivery/build-delivery.js';
import { postWebhook } from '../../src/delivery/post-webhook.js';
import { runCli, startCli, tempDir } from '../helpers/cli.js';

const SECRET = 'whsec_listen_redact_secret';
const PERSONAL = ['dave@example.com', 'Dave Payer', 'M-778812', 'DE89370400440532013000'];
const BODY = JSON.stringify({
  userId: 'user_9',
  type: 'LIFECYCLE_EVENT',
  event: 'INVOICE_PAID',
  eventData: {
    invoiceId: 31,
    payerEmail: 'dave@example.com',
    payerName: 'Dave Payer',
    merchantRef: 'M-778812',
    iban: 'DE89370400440532013000',
  },
});

function get(url: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
}

/** Every capture line's JSON and its decoded body: where a personal value could hide. */
function captured(file: string): string {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => `${line}\n${Buffer.from(JSON.parse(line).body, 'base64').toString()}`)
    .join('\n');
}

describe('--redact for listen --capture, --print-body and the inspector', () => {
  it('listen --capture --redact: nothing personal reaches the file or the terminal; the verdict at receipt stays and captures show says why the token is gone', async () => {
    const dir = tempDir();
    const file = join(dir, 'deliveries.jsonl');
    const secretFile = join(dir, 'secret');
    writeFileSync(secretFile, SECRET);
    const config = tempDir('ledgerhook-config-');
    const env = { LEDGERHOOK_CONFIG_DIR: config };
    const listen = startCli(
      [
        'listen',
        '--port',
        '0',
        '--capture',
        file,
        '--redact',
        'merchantRef',
        '--print-body',
        '--secret-file',
        secretFile,
      ],
      { env },
    );
    try {
      const [, url] = await listen.waitForStderr(/listening on (http:\/\/[^\s,]+)/);
      const delivery = await buildDelivery({ body: BODY, secret: SECRET });
      assert.equal((await postWebhook({ url: new URL(url as string), ...delivery })).status, 200);
      await listen.waitFor((line) => typeof line === 'string' && line.includes('"payerEmail": "redacted:'));
    } finally {
      await listen.stop();
    }
    const printed = listen.lines.join('\n');
    const text = captured(file);
    for (const value of PERSONAL) {
      assert.ok(!printed.includes(value), `printed ${value}`);
      assert.ok(!text.includes(value), `captured ${value}`);
    }
    const record = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(
      [record.verdict.valid, record.headers['service-verification'], typeof record.redaction.keyId],
      [true, undefined, 'string'],
    );
    assert.ok(
      readFileSync(join(config, 'redaction.key'), 'utf8').trim().length === 64,
      'the key stays in the config directory',
    );
    assert.ok(!text.includes(readFileSync(join(config, 'redaction.key'), 'utf8').trim()));
    const shown = await runCli(['captures', 'show', `${file}:0`, '--secret-file', secretFile, '--json'], { env });
    assert.equal(shown.code, 0, shown.stderr);
    const detail = JSON.parse(shown.stdout);
    assert.deepEqual([detail.verdict, detail.checks], ['valid', null]);
    assert.match(detail.hints[0], /redacted: .*the verdict is the one at receipt/);
  });

  it('inspect --redact: the page never receives a personal value; without it, it does', async () => {
    const dir = tempDir();
    const file = join(dir, 'deliveries.jsonl');
    const delivery = await buildDelivery({ body: BODY, secret: SECRET });
    writeFileSync(
      file,
      `${JSON.stringify({
        id: 'dlv_plain',
        receivedAt: new Date().toISOString(),
        method: 'POST',
        path: '/',
        headers: {
          'content-type': 'application/json',
          'service-verification': delivery.headers['service-verification'],
        },
        headerName: 'service-verification',
        body: Buffer.from(BODY).toString('base64'),
        bodyBytes: BODY.length,
        verdict: { valid: true, status: 200 },
        type: 'LIFECYCLE_EVENT',
        event: 'INVOICE_PAID',
        userId: 'user_9',
      })}\n`,
    );
    for (const redact of [true, false]) {
      const inspect = startCli([
        'inspect',
        file,
        '--port',
        '0',
        '--json',
        ...(redact ? ['--redact', 'merchantRef'] : []),
      ]);
      try {
        const started = await inspect.waitFor((line) => line?.kind === 'inspecting');
        const base = new URL(started.inspectorUrl as string);
        const page =
          (await get(new URL('api/deliveries', base))) + (await get(new URL('api/deliveries/dlv_plain', base)));
        for (const value of PERSONAL)
          assert.equal(page.includes(value), !redact, `${redact ? 'redacted' : 'plain'}: ${value}`);
      } finally {
        await inspect.stop();
      }
    }
  });
});
