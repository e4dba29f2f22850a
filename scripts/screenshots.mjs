/**
 * Regenerates the inspector screenshots of the docs (docs/inspector-list.png, inspector-detail.png,
 * inspector-edit.png) from a real session: the built CLI's `listen --ui` on loopback, a few deliveries
 * as the service sends them (and two it would refuse), the page in Chromium (playwright-core,
 * /usr/bin/chromium or CHROMIUM_PATH) at 1280x800. Nothing leaves loopback.
 *
 *   npm run build && node scripts/screenshots.mjs
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { signWebhook } from '../dist/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCS = join(ROOT, 'docs');
const SECRET = 'whsec_docs_screenshots_0123456789abcdef';
const VIEWPORT = { width: 1280, height: 800 };

/** Starts `ledgerhook listen --ui` in `dir` (its secret file named as a user would) and resolves with its `listening` line. */
function startListen(dir) {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin/ledgerhook.js'),
      'listen',
      '--port',
      '0',
      '--ui-port',
      '0',
      '--json',
      '--secret-file',
      'sandbox.secret',
    ],
    { cwd: dir, env: { ...process.env, NO_COLOR: '1', LEDGERHOOK_CONFIG_DIR: join(dir, 'config') } },
  );
  child.stderr.resume();
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`listen exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const event = JSON.parse(line);
      if (event.kind === 'listening') resolve({ child, ...event });
    });
  });
}

async function post(url, body, token, path = '/webhooks') {
  const response = await fetch(new URL(path, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-verification': token },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

/** A morning of deliveries: entity updates and events of two users, one forged, one re-serialised. */
async function deliver(url) {
  const bodies = [
    { userId: 'user_8c1f2e', type: 'ENTITY_UPDATE', entities: ['expense', 'bankTransfer'] },
    {
      userId: 'user_8c1f2e',
      type: 'LIFECYCLE_EVENT',
      event: 'INVOICE_PAID',
      eventData: { invoiceId: 4411, amount: 1250 },
    },
    {
      userId: 'user_2b7d90',
      type: 'LIFECYCLE_EVENT',
      event: 'EXPENSE_ADDED',
      eventData: { expenseId: 88, amount: 42.5 },
    },
    { userId: 'user_2b7d90', type: 'ENTITY_UPDATE', entities: ['invoice', 'payment', 'client'] },
  ];
  for (const body of bodies) {
    const text = JSON.stringify(body);
    await post(url, text, await signWebhook(text, SECRET));
  }
  // Signed with another environment's secret: refused as bad_signature; the page says what it claims.
  const forged = JSON.stringify({
    userId: 'user_2b7d90',
    type: 'LIFECYCLE_EVENT',
    event: 'INVOICE_VIEWED',
    eventData: {},
  });
  await post(url, forged, await signWebhook(forged, 'whsec_the_production_secret'));
  // Signed, then pretty-printed by a framework before verification: body_mismatch, re-serialised.
  const signed = JSON.stringify({ userId: 'user_8c1f2e', type: 'ENTITY_UPDATE', entities: ['revenue'] });
  await post(url, JSON.stringify(JSON.parse(signed), null, 2), await signWebhook(signed, SECRET));
}

const dir = mkdtempSync(join(tmpdir(), 'lh-shots-'));
writeFileSync(join(dir, 'sandbox.secret'), `${SECRET}\n`);
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
// Chromium first: a browser that cannot start leaves no listener behind.
const listen = await startListen(dir);
try {
  await deliver(listen.url);
  const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'light' });
  await context.route('**/*', (route) =>
    ['127.0.0.1', 'localhost'].includes(new URL(route.request().url()).hostname) ? route.continue() : route.abort(),
  );
  const page = await context.newPage();
  await page.goto(listen.inspectorUrl);
  await page.waitForFunction(() => document.querySelectorAll('.row-item').length === 6);
  // Nothing selected: the newest is opened (the re-serialised one).
  await page.waitForSelector('.verdict');
  await page.locator('.row-item').nth(1).click();
  await page.waitForSelector('.claimed-note');
  await page.screenshot({ path: join(DOCS, 'inspector-list.png') });
  await page.locator('.row-item').first().click();
  await page.waitForSelector('mark.differs');
  // The first byte that differs from the signed ones, in view: what the detail is for.
  await page.locator('mark.differs').evaluate((mark) => mark.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: join(DOCS, 'inspector-detail.png') });
  await page.locator('.row-item').nth(2).click();
  await page.waitForSelector('textarea[aria-label="edited body"]');
  await page
    .locator('textarea[aria-label="edited body"]')
    .fill('{"userId": "user_2b7d90", "type": "ENTITY_UPDATE", "entities": ["invoice", "payment"]}');
  await page.fill('input[aria-label="edit target"]', 'http://localhost:3000/webhooks');
  await page.locator('textarea[aria-label="edited body"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(DOCS, 'inspector-edit.png') });
  await context.close();
  process.stdout.write(`wrote ${['list', 'detail', 'edit'].map((name) => `docs/inspector-${name}.png`).join(', ')}\n`);
} finally {
  await browser.close();
  listen.child.kill('SIGINT');
}
