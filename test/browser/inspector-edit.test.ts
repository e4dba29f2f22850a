import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startCli, tempDir } from '../helpers/cli.js';
import { bodyHash, makeToken } from '../../packages/webhooks/test/independent-jwt.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';
import { chromiumMissing, launchChromium, loopbackContext } from './chromium.js';

const SECRET = 'whsec_inspector_edit_test';
const skip = chromiumMissing();

/** Signed by an encoder written from the RFCs: the test does not trust ledgerhook's own signer. */
const token = (body: string) =>
  makeToken({ claims: { iat: Math.floor(Date.now() / 1000), request_body_sha256: bodyHash(body) }, secret: SECRET });

describe('inspector edit and resend in Chromium', { skip }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  it('listen --ui: an edited body is checked as it is typed, sent re-signed to an independent receiver, and listed as edited from its original', async () => {
    const receiver = await startSpecReceiver({ secret: SECRET });
    const capture = join(tempDir(), 'deliveries.jsonl');
    const listen = startCli(['listen', '--port', '0', '--ui-port', '0', '--json', '--capture', capture], {
      env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET },
    });
    try {
      const started = await listen.waitFor((line) => line?.kind === 'listening');
      const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
      const delivered = await fetch(started.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-verification': token(body) },
        body,
      });
      assert.equal(delivered.status, 200);

      const { context, outside } = await loopbackContext(browser, { width: 1400, height: 1000 });
      const page = await context.newPage();
      const consoleErrors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      await page.goto(started.inspectorUrl);
      await page.waitForFunction(() => document.querySelectorAll('.row-item').length === 1);
      const originalId = await page.locator('.row-item').first().getAttribute('data-id');
      await page.locator('.row-item').first().click();
      await page.waitForSelector('textarea[aria-label="edited body"]');
      const send = page.getByRole('button', { name: 'Send edited' });
      assert.equal(await send.isDisabled(), false);

      // The exact problem, before anything is sent: where the JSON breaks, then what the spec's shape lacks.
      const editor = page.locator('textarea[aria-label="edited body"]');
      await editor.fill('{"userId": "user_1",\n  "type": "ENTITY_UPDATE",\n  "entities": ["expense",]\n}');
      assert.equal(
        await page.locator('.edit-status').textContent(),
        'Body: not JSON: expected a value, found "]" (line 3, column 26)',
      );
      assert.equal(await send.isDisabled(), true);
      await editor.fill('{"userId": "user_1", "type": "ENTITY_UPDATE"}');
      assert.match((await page.locator('.edit-status').textContent()) ?? '', /entities is missing or not an array/);
      assert.equal(await send.isDisabled(), true);
      const headers = page.locator('textarea[aria-label="edited headers"]');
      // The edit starts from the original's headers, without its token.
      const startHeaders = JSON.parse(await headers.inputValue());
      assert.equal(startHeaders['content-type'], 'application/json');
      assert.equal('service-verification' in startHeaders, false);
      await headers.fill('{"content-type": "application/json", "service-verification": "forged"}');
      await editor.fill('{"userId": "user_1", "type": "ENTITY_UPDATE", "entities": ["expense", "invoice"]}');
      assert.match(
        (await page.locator('.edit-status').textContent()) ?? '',
        /^Headers: .*always made fresh by re-signing/,
      );
      assert.equal(await send.isDisabled(), true);
      await headers.fill('{"content-type": "application/json", "x-edited-by": "browser test"}');
      assert.equal(await page.locator('.edit-status').textContent(), 'Valid webhook body.');
      assert.equal(receiver.received.length, 0);

      await page.fill('input[aria-label="edit target"]', receiver.url);
      await send.click();
      await page.waitForFunction(() => /sent as dlv_/.test(document.querySelector('.edit-output')?.textContent ?? ''));
      assert.match(
        (await page.locator('.edit-output').textContent()) ?? '',
        new RegExp(`edited from ${originalId}, re-signed\\) → 200`),
      );
      // Accepted by a receiver written from the spec alone, with the new body and the page's header.
      assert.equal(receiver.received.length, 1);
      const [got] = receiver.received;
      assert.equal(got?.status, 200, got?.reason);
      assert.deepEqual(JSON.parse(got?.body.toString('utf8') ?? ''), {
        userId: 'user_1',
        type: 'ENTITY_UPDATE',
        entities: ['expense', 'invoice'],
      });
      assert.equal(got?.headers['x-edited-by'], 'browser test');
      assert.equal(got?.headers['ledgerhook-edited-from'], originalId);

      // The new delivery is in the list, marked, and its detail names the original.
      await page.waitForFunction(() => document.querySelectorAll('.row-item').length === 2);
      const edited = page.locator('.row-item').first();
      assert.equal(await edited.locator('.edited').getAttribute('title'), `edited from ${originalId}`);
      await edited.click();
      await page.waitForSelector('.edited-from');
      assert.match(
        (await page.locator('.edited-from').textContent()) ?? '',
        new RegExp(`edited from delivery ${originalId}`),
      );
      // ...and in listen's capture file, linked to the original.
      const records = readFileSync(capture, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        records.map((r) => r.editedFrom ?? null),
        [null, originalId],
      );
      assert.equal(Buffer.from(records[1].body, 'base64').toString('utf8'), got?.body.toString('utf8'));

      assert.equal((await page.content()).includes(SECRET), false);
      assert.deepEqual(outside, []);
      assert.deepEqual(consoleErrors, []);
      await context.close();
    } finally {
      await listen.stop();
      await receiver.close();
    }
  });
});
