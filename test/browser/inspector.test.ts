import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startCli, tempDir } from '../helpers/cli.js';
import { chromiumMissing, launchChromium, loopbackContext } from './chromium.js';

const SECRET = 'whsec_inspector_browser_test';
const skip = chromiumMissing();

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');
/** Signed with node:crypto directly: the test does not trust ledgerhook's own signer. */
function token(body: string, secret: string, iat = Math.floor(Date.now() / 1000)): string {
  const claims = { iat, request_body_sha256: createHash('sha256').update(body).digest('base64') };
  const input = `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

async function deliver(url: string, body: string, secret: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-verification': token(body, secret) },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

/** Opens the page, recording every request outside loopback (and refusing it) and every dialog. */
async function openPage(browser: Browser, url: string) {
  const { context, outside } = await loopbackContext(browser, { width: 1400, height: 860 });
  const dialogs: string[] = [];
  const page = await context.newPage();
  // A Content-Security-Policy violation or a failed load shows up here.
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    dialog.dismiss().catch(() => undefined);
  });
  await page.goto(url);
  await page.waitForSelector('.live.on');
  return { page, outside, dialogs, consoleErrors, close: () => context.close() };
}

const rowCount = (page: Page) => page.locator('.row-item').count();

describe('inspector page in Chromium', { skip }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  it('listen --ui: deliveries sent after the page opened appear live; the forged one names its failed check; hostile values stay text', async () => {
    const listen = startCli(['listen', '--port', '0', '--ui-port', '0', '--json', '--secret', SECRET]);
    try {
      const started = await listen.waitFor((line) => line?.kind === 'listening');
      assert.match(started.inspectorUrl, /^http:\/\/127\.0\.0\.1:\d+\/[\w-]{20,}\/$/);
      // Without the token, neither the page nor its API answers.
      const base = new URL(started.inspectorUrl);
      // A token one character off (never the same character: a token may start with 'x').
      const wrongFirst = base.pathname[1] === 'x' ? 'y' : 'x';
      for (const path of ['/', '/api/deliveries', `/${wrongFirst}${base.pathname.slice(2)}api/deliveries`])
        assert.equal((await fetch(new URL(path, base))).status, 403, path);

      const { page, outside, dialogs, consoleErrors, close } = await openPage(browser, started.inspectorUrl);
      assert.equal(await rowCount(page), 0);
      const valid = JSON.stringify({
        // Hostile even when authentic: a userId is network input, shown as text.
        userId: '<b onmouseover="window.__pwned = 3">user_1</b>',
        type: 'LIFECYCLE_EVENT',
        event: 'INVOICE_VIEWED',
        eventData: {},
      });
      const forged = JSON.stringify({
        userId: '<script>window.__pwned = 1</script>',
        type: 'ENTITY_UPDATE',
        entities: ['<img src=x onerror="window.__pwned = 2; alert(1)">', 'expense'],
        note: '<img src=http://198.51.100.7/beacon.png onerror=alert(2)>',
      });
      assert.equal(await deliver(started.url, valid, SECRET), 200);
      assert.equal(await deliver(started.url, forged, 'not-the-secret'), 400);
      await page.waitForFunction(() => document.querySelectorAll('.row-item').length === 2);
      // Newest first: the forged one is on top.
      const first = page.locator('.row-item').first();
      assert.match((await first.textContent()) ?? '', /bad_signature/);
      // A forgery is not parsed before its answer (one hash and nothing more); the inspector reads what
      // it claims afterwards and shows it as a claim, as text: hostile values stay inert.
      assert.equal(await first.locator('.user').textContent(), '<script>window.__pwned = 1</script>');
      assert.equal(await first.locator('.user').getAttribute('class'), 'user claimed');
      assert.match((await first.locator('.what').textContent()) ?? '', / unverified$/);
      assert.equal(
        await page.locator('.row-item').nth(1).locator('.user').textContent(),
        '<b onmouseover="window.__pwned = 3">user_1</b>',
      );

      await first.click();
      await page.waitForSelector('.failed-checks');
      assert.equal(await page.locator('.failed-checks').textContent(), 'Failed check: signature');
      assert.equal(await page.locator('tr.check.fail').getAttribute('data-check'), 'signature');
      assert.match((await page.locator('pre.body').textContent()) ?? '', /<img src=x onerror=/);
      assert.match((await page.locator('pre.body').textContent()) ?? '', /<script>window.__pwned = 1<\/script>/);
      // Replaying a refused delivery takes a visible confirmation naming its verdict (the CLI's --include-refused).
      const replayButton = page.getByRole('button', { name: 'Replay' });
      assert.equal(await replayButton.isDisabled(), true);
      assert.match((await page.locator('label.confirm-refused').textContent()) ?? '', /refused: bad_signature/);
      await page.getByLabel('confirm replay of a refused delivery').check();
      assert.equal(await replayButton.isDisabled(), false);

      const injected = await page.evaluate(() => ({
        images: document.querySelectorAll('img').length,
        scripts: document.querySelectorAll('script').length,
        pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
      }));
      assert.deepEqual(injected, { images: 0, scripts: 1, pwned: null });
      assert.deepEqual(dialogs, []);

      // The valid one: a full checklist, nothing failed, and it may be re-signed.
      await page.locator('.row-item').nth(1).click();
      await page.waitForSelector('.verdict.valid');
      assert.equal(await page.locator('tr.check.fail').count(), 0);
      assert.equal(await page.locator('tr.check.pass').count(), 6);
      const html = await page.content();
      assert.equal(html.includes(SECRET), false);
      assert.deepEqual(outside, []);
      assert.deepEqual(consoleErrors, []);
      await close();
    } finally {
      await listen.stop();
    }
  });

  it('the list shows method, path and zoned times; a long code stays in its column; a replay is marked as one', async () => {
    const listen = startCli(['listen', '--port', '0', '--ui-port', '0', '--json', '--secret', SECRET]);
    try {
      const started = await listen.waitFor((line) => line?.kind === 'listening');
      const { page, close } = await openPage(browser, started.inspectorUrl);
      const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
      assert.equal(await deliver(started.url, body, SECRET), 200);
      // HS512 with the right secret: refused as algorithm_not_allowed, the longest code there is.
      const input = `${b64url(JSON.stringify({ alg: 'HS512', typ: 'JWT' }))}.${b64url(JSON.stringify({ iat: Math.floor(Date.now() / 1000), request_body_sha256: createHash('sha256').update(body).digest('base64') }))}`;
      const hs512 = `${input}.${createHmac('sha512', SECRET).update(input).digest('base64url')}`;
      const refused = await fetch(`${started.url}hooks/in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-verification': hs512 },
        body,
      });
      assert.equal(refused.status, 400);
      await page.waitForFunction(() => document.querySelectorAll('.row-item').length === 2);
      const top = page.locator('.row-item').first();
      assert.equal(await top.locator('.route').textContent(), 'POST /hooks/in');
      assert.match((await top.locator('.time').textContent()) ?? '', /^\d\d:\d\d:\d\d\.\d{3} [+-]\d\d:\d\d$/);
      // The longest code there is stays whole, inside its row (inspector-rows.test.ts checks every cell).
      const badge = await top.locator('.badge').boundingBox();
      const row = await top.boundingBox();
      assert.equal(await top.locator('.badge').textContent(), 'algorithm_not_allowed');
      assert.ok(
        badge && row && badge.x >= row.x && badge.x + badge.width <= row.x + row.width,
        `badge ${JSON.stringify(badge)} row ${JSON.stringify(row)}`,
      );
      assert.equal(await top.locator('.badge').evaluate((element) => element.scrollWidth <= element.clientWidth), true);

      // Replay the valid one to the listener itself: it comes back marked as a replay of its original.
      const original = page.locator('.row-item').nth(1);
      const originalId = await original.getAttribute('data-id');
      const detailFetches: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.endsWith(`/api/deliveries/${originalId}`))
          detailFetches.push(request.url());
      });
      await original.click();
      await page.waitForSelector('.verdict.valid');
      assert.match(
        (await page.locator('.detail h2').textContent()) ?? '',
        /POST \/ · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d\d:\d\d/,
      );
      await page.fill('input[aria-label="replay target"]', started.url);
      // Choosing the delivery already open (the page opened the newest one itself) neither fetches
      // it again nor redraws it: what was typed stays.
      const fetchesBefore = detailFetches.length;
      await original.click();
      await page.locator('.row-item.selected').first().waitFor();
      assert.equal(detailFetches.length, fetchesBefore);
      assert.equal(await page.inputValue('input[aria-label="replay target"]'), started.url);
      await page.getByRole('button', { name: 'Replay' }).click();
      await page.waitForFunction(() => document.querySelectorAll('.row-item').length === 3);
      const replayed = page.locator('.row-item').first();
      assert.equal(await replayed.locator('.replay').getAttribute('title'), `a replay of ${originalId}`);
      await replayed.click();
      await page.waitForSelector('.replay-of');
      assert.match(
        (await page.locator('.replay-of').textContent()) ?? '',
        new RegExp(`a replay of delivery ${originalId}`),
      );
      await close();
    } finally {
      await listen.stop();
    }
  });

  it('a re-serialised body opens on Raw with its first differing byte marked; the headline names the cause', async () => {
    const listen = startCli(['listen', '--port', '0', '--ui-port', '0', '--json', '--secret', SECRET]);
    try {
      const started = await listen.waitFor((line) => line?.kind === 'listening');
      const { page, close } = await openPage(browser, started.inspectorUrl);
      const signed = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
      const pretty = JSON.stringify(JSON.parse(signed), null, 2);
      const response = await fetch(started.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'service-verification': token(signed, SECRET) },
        body: pretty,
      });
      assert.equal(response.status, 400);
      await page.waitForFunction(() => document.querySelectorAll('.row-item').length === 1);
      // The list says the cause in short.
      assert.equal(await page.locator('.row-item .badge').first().textContent(), 'body_mismatch: re-serialised');
      await page.locator('.row-item').first().click();
      await page.waitForSelector('mark.differs');
      // '{' then a newline where the signed bytes had '"': character 1.
      assert.equal(await page.locator('mark.differs').textContent(), '↵');
      assert.match(
        (await page.locator('.differs-note').textContent()) ?? '',
        /at character 1 .*signed there was "\\"userId/,
      );
      assert.match(
        (await page.locator('.verdict').textContent()) ?? '',
        /not the bytes that were signed \(re-serialised\)/,
      );
      const digest = createHash('sha256').update(pretty).digest('base64');
      assert.match(
        (await page.locator('.detail').textContent()) ?? '',
        new RegExp(`SHA-256 ${digest.replace(/[+/]/g, (c) => `\\${c}`)} \\(hex [0-9a-f]{64}\\)`),
      );
      await close();
    } finally {
      await listen.stop();
    }
  });

  it('inspect FILE: 5,000 deliveries open with only a window of rows in the DOM; filters and search narrow the list', async () => {
    const dir = tempDir();
    const file = join(dir, 'many.jsonl');
    const events = ['INVOICE_VIEWED', 'INVOICE_PAID', 'EXPENSE_ADDED', 'TRANSACTION_PULL_COMPLETED'];
    const lines: string[] = [];
    const start = Date.UTC(2026, 10, 20, 9);
    for (let index = 0; index < 5000; index += 1) {
      const entity = index % 3 === 0;
      const userId = `user_${index % 7}`;
      const event = events[index % events.length]!;
      const body = entity
        ? JSON.stringify({ userId, type: 'ENTITY_UPDATE', entities: ['expense', 'bankTransfer'] })
        : JSON.stringify({ userId, type: 'LIFECYCLE_EVENT', event, eventData: {} });
      const forged = index % 11 === 5;
      const iat = Math.floor((start + index * 1000) / 1000);
      lines.push(
        JSON.stringify({
          id: `dlv_${index.toString(36).padStart(5, '0')}`,
          receivedAt: new Date(start + index * 1000 + 37).toISOString(),
          method: 'POST',
          path: '/webhooks',
          headers: {
            'content-type': 'application/json',
            'service-verification': token(body, forged ? 'wrong' : SECRET, iat),
          },
          headerName: 'service-verification',
          body: Buffer.from(body).toString('base64'),
          bodyBytes: Buffer.byteLength(body),
          verdict: forged
            ? {
                valid: false,
                code: 'bad_signature',
                message: 'the signature does not verify with the webhook secret',
                status: 400,
              }
            : { valid: true, status: 200 },
          type: entity ? 'ENTITY_UPDATE' : 'LIFECYCLE_EVENT',
          userId,
          ...(entity ? { entities: ['expense', 'bankTransfer'] } : { event }),
        }),
      );
    }
    writeFileSync(file, `${lines.join('\n')}\n`);
    const inspect = startCli(['inspect', file, '--port', '0', '--json', '--secret', SECRET]);
    try {
      const started = await inspect.waitFor((line) => line?.kind === 'inspecting');
      assert.equal(started.deliveries, 5000);
      const opened = performance.now();
      const { page, outside, consoleErrors, close } = await openPage(browser, started.inspectorUrl);
      await page.waitForFunction(() => document.querySelector('.count')?.textContent === '5000 of 5000 deliveries');
      await page.waitForSelector('.row-item');
      console.log(
        `# inspector: 5,000 deliveries listed ${Math.round(performance.now() - opened)} ms after navigation began`,
      );
      const rows = await rowCount(page);
      assert.ok(rows > 10 && rows < 120, `expected a window of rows, got ${rows}`);
      assert.equal(
        await page.locator('.row-item').first().getAttribute('data-id'),
        `dlv_${(4999).toString(36).padStart(5, '0')}`,
      );
      // Scrolled to the end, the oldest is rendered, still within a window.
      await page.locator('.list').evaluate((list) => {
        list.scrollTop = list.scrollHeight;
      });
      await page.waitForSelector('[data-id="dlv_00000"]');
      assert.ok((await rowCount(page)) < 120);

      await page.locator('.row-item').last().click();
      await page.waitForSelector('.verdict');
      await page.locator('.list').evaluate((list) => {
        list.scrollTop = 0;
      });
      await page.selectOption('select[aria-label="verdict"]', 'refused');
      await page.waitForFunction(() => /^455 of 5000/.test(document.querySelector('.count')?.textContent ?? ''));
      await page.selectOption('select[aria-label="verdict"]', '');
      await page.fill('input[aria-label="user"]', 'user_3');
      await page.selectOption('select[aria-label="event"]', 'INVOICE_PAID');
      const narrowed = (await page.locator('.count').textContent()) ?? '';
      const expected = lines.filter(
        (line) => line.includes('"userId":"user_3"') && line.includes('"event":"INVOICE_PAID"'),
      );
      assert.equal(narrowed, `${expected.length} of 5000 deliveries`);
      await page.fill('input[aria-label="user"]', '');
      await page.selectOption('select[aria-label="event"]', '');
      await page.fill('input[aria-label="search"]', 'dlv_00000');
      await page.waitForFunction(() => document.querySelector('.count')?.textContent === '1 of 5000 deliveries');
      await page.fill('input[aria-label="search"]', '');
      assert.deepEqual(outside, []);
      assert.deepEqual(consoleErrors, []);
      await close();
    } finally {
      await inspect.stop();
    }
  });
});
