/**
 * The inspector's list, read as a user reads it: at 1280x800, 1400x900 and 1920x1080 every row shows
 * its time, what it is (event or entities), its user and its verdict, none of them squeezed to
 * nothing or cut; the whole cause is on hover and in the detail; the newest delivery is open when
 * nothing was chosen; a refused delivery whose body reads as a webhook says what it claims, marked
 * "unverified" (read where the inspector builds its view, after the answer).
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startCli } from '../helpers/cli.js';
import { chromiumMissing, launchChromium, loopbackContext } from './chromium.js';

const SECRET = 'whsec_inspector_rows_test';
const skip = chromiumMissing();
const TIME = String.raw`\d\d:\d\d:\d\d\.\d{3} [+-]\d\d:\d\d`;

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');
/** Signed with node:crypto directly (HS256, or HS512 to be refused as algorithm_not_allowed). */
function token(body: string, secret: string, alg: 'HS256' | 'HS512' = 'HS256'): string {
  const claims = {
    iat: Math.floor(Date.now() / 1000),
    request_body_sha256: createHash('sha256').update(body).digest('base64'),
  };
  const input = `${b64url(JSON.stringify({ alg, typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}`;
  const hmac = createHmac(alg === 'HS256' ? 'sha256' : 'sha512', secret);
  return `${input}.${hmac.update(input).digest('base64url')}`;
}

async function deliver(url: string, body: string, verification: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-verification': verification },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

interface Cell {
  text: string;
  width: number;
  cut: boolean;
  title: string;
}
type Row = Record<'time' | 'what' | 'user' | 'badge' | 'route' | 'status', Cell> & {
  badgeInside: boolean;
  text: string;
};

/** A row's cells as the eye meets them: its text, and whether each cell shows all of it. */
function rowCells(page: Page, id: string): Promise<Row> {
  // No named function inside: the page runs this source as it is (tsx's helpers do not exist there).
  return page.locator(`.row-item[data-id="${id}"]`).evaluate((row) => {
    const box = row.getBoundingClientRect();
    const badge = row.querySelector('.badge')?.getBoundingClientRect();
    const cells = Object.fromEntries(
      ['time', 'what', 'user', 'badge', 'route', 'status'].map((name) => {
        const element = row.querySelector(`.${name}`) as HTMLElement | null;
        return [
          name,
          {
            text: element?.textContent ?? '',
            width: element?.clientWidth ?? 0,
            cut: element ? element.scrollWidth > element.clientWidth : true,
            title: element?.getAttribute('title') ?? '',
          },
        ];
      }),
    );
    return {
      ...cells,
      badgeInside: badge !== undefined && badge.left >= box.left && badge.right <= box.right,
      text: (row as HTMLElement).innerText.replace(/\s+/g, ' ').trim(),
    } as Row;
  });
}

describe('inspector rows at the sizes people use', { skip }, () => {
  let browser: Browser;
  let listen: ReturnType<typeof startCli>;
  let started: { url: string; inspectorUrl: string };
  const ids: Record<string, string> = {};

  before(async () => {
    browser = await launchChromium();
    listen = startCli(['listen', '--port', '0', '--ui-port', '0', '--json', '--secret', SECRET]);
    started = await listen.waitFor((line) => line?.kind === 'listening');
    const event = JSON.stringify({ userId: 'user_1', type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED', eventData: {} });
    const update = JSON.stringify({ userId: 'user_2', type: 'ENTITY_UPDATE', entities: ['expense', 'bankTransfer'] });
    const claimed = JSON.stringify({ userId: 'user_3', type: 'LIFECYCLE_EVENT', event: 'INVOICE_PAID', eventData: {} });
    const signed = JSON.stringify({ userId: 'user_4', type: 'ENTITY_UPDATE', entities: ['revenue'] });
    const sends: Array<[string, string, string, number]> = [
      ['event', event, token(event, SECRET), 200],
      ['update', update, token(update, SECRET), 200],
      ['claimed', claimed, token(claimed, 'the-production-secret'), 400],
      ['reserialised', JSON.stringify(JSON.parse(signed), null, 2), token(signed, SECRET), 400],
      ['hs512', update, token(update, SECRET, 'HS512'), 400],
      ['junk', 'not json at all', token('not json at all', 'nope'), 400],
    ];
    for (const [name, body, verification, status] of sends) {
      assert.equal(await deliver(started.url, body, verification), status, name);
      const line = await listen.waitFor((l) => l?.kind === 'delivery' && !Object.values(ids).includes(l.id));
      ids[name] = line.id;
    }
  });
  after(async () => {
    await browser?.close();
    await listen?.stop();
  });

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 1400, height: 900 },
    { width: 1920, height: 1080 },
  ]) {
    it(`${viewport.width}x${viewport.height}: time, what, user and verdict readable on every row; the newest open`, async () => {
      const { context, outside } = await loopbackContext(browser, viewport);
      const page = await context.newPage();
      await page.goto(started.inspectorUrl);
      await page.waitForFunction(() => document.querySelectorAll('.row-item').length === 6);
      // Nothing chosen: the newest is open.
      await page.waitForSelector('.detail h2');
      assert.match((await page.locator('.detail h2').textContent()) ?? '', new RegExp(`^${ids.junk}`));
      assert.equal(await page.locator('.row-item.selected').getAttribute('data-id'), ids.junk);

      const expected: Record<string, RegExp> = {
        event: new RegExp(`^${TIME} INVOICE_VIEWED valid POST / user_1 200$`),
        update: new RegExp(`^${TIME} expense, bankTransfer valid POST / user_2 200$`),
        claimed: new RegExp(`^${TIME} INVOICE_PAID unverified bad_signature POST / user_3 400$`),
        reserialised: new RegExp(`^${TIME} revenue unverified body_mismatch: re-serialised POST / user_4 400$`),
        hs512: new RegExp(`^${TIME} expense, bankTransfer unverified algorithm_not_allowed POST / user_2 400$`),
        junk: new RegExp(`^${TIME} not a webhook body bad_signature POST / 400$`),
      };
      for (const [name, pattern] of Object.entries(expected)) {
        const row = await rowCells(page, ids[name] ?? '');
        assert.match(row.text, pattern, `${name} at ${viewport.width}: ${row.text}`);
        for (const cell of ['time', 'badge', 'status'] as const)
          assert.ok(
            row[cell].width > 0 && !row[cell].cut,
            `${name} ${cell} at ${viewport.width}: ${JSON.stringify(row[cell])}`,
          );
        assert.ok(
          row.what.width >= 100 && !row.what.cut,
          `${name} what at ${viewport.width}: ${JSON.stringify(row.what)}`,
        );
        if (row.user.text) assert.ok(!row.user.cut, `${name} user at ${viewport.width}`);
        assert.ok(row.badgeInside, `${name}: the badge is inside its row`);
      }
      // The whole cause on hover, and in the detail.
      const claimed = await rowCells(page, ids.claimed ?? '');
      assert.equal(
        claimed.badge.title,
        'bad_signature: the signature does not verify with the webhook secret, answered 400',
      );
      await page.locator(`.row-item[data-id="${ids.claimed}"]`).click();
      await page.waitForSelector('.claimed-note');
      assert.equal(
        await page.locator('.claimed-note').textContent(),
        'The body claims to be LIFECYCLE_EVENT INVOICE_PAID for user user_3 — unverified: its signature did not verify, so none of it can be trusted.',
      );
      assert.match(
        (await page.locator('.verdict').textContent()) ?? '',
        /Refused: bad_signature — the signature does not verify/,
      );
      assert.deepEqual(outside, []);
      await context.close();
    });
  }

  it('a page opened before any delivery opens the first one that arrives, then keeps the choice', async () => {
    const fresh = startCli(['listen', '--port', '0', '--ui-port', '0', '--json', '--secret', SECRET]);
    try {
      const ready = await fresh.waitFor((line) => line?.kind === 'listening');
      const { context } = await loopbackContext(browser, { width: 1280, height: 800 });
      const page = await context.newPage();
      await page.goto(ready.inspectorUrl);
      await page.waitForSelector('.live.on');
      const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
      assert.equal(await deliver(ready.url, body, token(body, SECRET)), 200);
      const first = await fresh.waitFor((line) => line?.kind === 'delivery');
      await page.waitForFunction((id) => document.querySelector('.detail h2')?.textContent?.startsWith(id), first.id);
      assert.equal(await deliver(ready.url, body, token(body, SECRET)), 200);
      await page.waitForFunction(() => document.querySelectorAll('.row-item').length === 2);
      assert.equal(await page.locator('.row-item.selected').getAttribute('data-id'), first.id);
      await context.close();
    } finally {
      await fresh.stop();
    }
  });
});
