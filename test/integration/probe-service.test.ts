/**
 * probeService against servers that are not the mock (test/helpers/quirky-list-server.ts), one or
 * several quirks each: the report names each quirk, implies the right setting, stays within its
 * request budget, and a sync with the settings it implies converges, a change made in the same second
 * as a read's stamp included. In process: the servers' clock and the probe's sleep are the test's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CaptureRecord } from '../../src/capture/capture-record.js';
import { probeService } from '../../src/probe/probe.js';
import type { ProbeOptions } from '../../src/probe/probe-options.js';
import type { ProbeReport } from '../../src/probe/probe-types.js';
import { settingsToWrite } from '../../src/probe/setting-fit.js';
import { parseLag, parsePageLimit } from '../../src/settings/setting-values.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { syncDataset } from '../../src/sync/sync-dataset.js';
import { signWebhook } from '@ledgerhook/webhooks';
import { tempDir } from '../helpers/cli.js';
import { type Quirks, startQuirkyServer } from '../helpers/quirky-list-server.js';

/** A server with these quirks on a clock the test moves, and a probe whose sleeps move that clock. */
async function probed(quirks: Quirks, options: Partial<ProbeOptions> = {}) {
  const clock = { now: Date.parse('2026-11-24T10:00:05.200Z') };
  const server = await startQuirkyServer({ now: () => clock.now, ...quirks });
  try {
    const slept: number[] = [];
    const report = await probeService({
      baseUrl: server.baseUrl,
      token: server.token,
      now: () => clock.now,
      sleep: async (ms) => {
        slept.push(ms);
        clock.now += ms;
      },
      random: () => 0.5,
      ...options,
    });
    return { report, slept, requests: server.requests() };
  } finally {
    await server.close();
  }
}

const finding = (report: ProbeReport, id: string) => report.findings.find((entry) => entry.id === id);
const quirks = (report: ProbeReport) => report.findings.flatMap((entry) => (entry.quirk ? [entry.quirk] : []));

describe('probe: each quirk named, with the setting it implies', () => {
  it('the expense list at /expenses/expenses, a 400 above 50, cursor: null, HTML error pages', async () => {
    const { report } = await probed({ expensePath: '/expenses/expenses', maxLimit: 50, cursorEnd: 'null', html: true });
    for (const quirk of ['nested-path', 'limit-400-above-max', 'cursor-null', 'html-errors'] as const)
      assert.ok(quirks(report).includes(quirk), `${quirk} in ${quirks(report).join(', ')}`);
    assert.deepEqual(finding(report, 'path.expense.moved')?.setting, {
      key: 'paths.expense',
      value: '/expenses/expenses',
      state: 'not-set',
      required: true,
    });
    assert.equal(finding(report, 'page-size')?.setting?.value, '50');
    assert.equal(report.facts.pageSize?.accepted, 50);
    assert.equal(report.facts.pageSize?.refusedAbove, 51);
    assert.deepEqual(report.facts.lastPage, ['null']);
    assert.match(finding(report, 'error-body')?.observed ?? '', /HTML pages, e\.g\. "404 Not Found"/);
    assert.equal(report.facts.defaultPageSize?.size, 25);
    assert.equal(report.ready, false);
  });

  it('pages silently clamped at 40, X-RateLimit headers, whole seconds with an offset', async () => {
    const { report } = await probed({
      clampAt: 40,
      rateHeaders: 'x',
      rate: { requests: 100, windowSeconds: 60 },
      seconds: true,
      zone: '+00:00',
    });
    for (const quirk of [
      'clamped-page-size',
      'rate-limit-headers',
      'whole-second-timestamps',
      'timestamps-with-offset',
    ] as const)
      assert.ok(quirks(report).includes(quirk), `${quirk} in ${quirks(report).join(', ')}`);
    assert.deepEqual(finding(report, 'page-size')?.setting, {
      key: 'pageLimit',
      value: '40',
      state: 'not-set',
      required: false,
    });
    assert.deepEqual(finding(report, 'rate-limit')?.setting, {
      key: 'rateLimit',
      value: '100/60',
      state: 'not-set',
      required: false,
    });
    assert.deepEqual(finding(report, 'lag')?.setting, { key: 'lag', value: '1s', state: 'not-set', required: true });
    // The lag is checked on the service itself: a stamp moved back in its own form is accepted.
    assert.match(
      finding(report, 'lag')?.observed ?? '',
      /accepted it moved back \("2026-11-24T10:00:04\+00:00": 200\)/,
    );
  });

  it('429 without Retry-After: waited out within the budget (backoff), said, and a rate estimated', async () => {
    const { report, slept } = await probed({ throttle: { requests: 8, windowMs: 1000, retryAfter: false } });
    assert.ok(quirks(report).includes('retry-after-missing'));
    assert.equal(report.facts.rateLimited?.withRetryAfter, 0);
    assert.ok(slept.length > 0 && slept.every((ms) => ms > 0));
    assert.deepEqual(finding(report, 'rate-limited')?.setting, {
      key: 'rateLimit',
      value: '8/1',
      state: 'not-set',
      required: false,
    });
    assert.deepEqual(report.notProbed, []);
  });

  it('429 with Retry-After and IETF RateLimit headers: the stated rate wins', async () => {
    const { report, slept } = await probed({
      throttle: { requests: 20, windowMs: 10_000, retryAfter: true },
      rateHeaders: 'ietf',
    });
    assert.ok(quirks(report).includes('rate-limited'));
    assert.ok(
      slept.every((ms) => ms % 1000 === 0),
      `Retry-After honoured: ${slept.join(', ')}`,
    );
    assert.equal(finding(report, 'rate-limit')?.setting?.value, '20/10');
    assert.equal(finding(report, 'rate-limited')?.setting, undefined);
  });

  it('a base URL without /rest/vN whose every list 404s: said as a base URL problem, the versioned root found', async () => {
    const server = await startQuirkyServer({ root: '/rest/v5' });
    try {
      const report = await probeService({ baseUrl: server.origin, token: server.token });
      const base = finding(report, 'base-url');
      assert.equal(base?.quirk, 'base-url-without-version');
      assert.deepEqual(base?.setting, {
        key: 'baseUrl',
        value: `${server.origin}/rest/v5`,
        state: 'not-set',
        required: true,
      });
      assert.equal(report.baseUrl, `${server.origin}/rest/v5`);
      assert.match(finding(report, 'paths')?.observed ?? '', /24 of 24 entities/);
    } finally {
      await server.close();
    }
  });

  it('every list 404s at a base URL that has /rest/vN: a problem, not ready', async () => {
    const server = await startQuirkyServer({ root: '/api' });
    try {
      const report = await probeService({ baseUrl: `${server.origin}/rest/v5`, token: server.token });
      assert.match(finding(report, 'base-url')?.problem ?? '', /base URL is probably wrong/);
      assert.equal(report.ready, false);
    } finally {
      await server.close();
    }
  });

  for (const status of [401, 403] as const)
    it(`${status}: said as a token problem; nothing more is asked`, async () => {
      const { report, requests } = await probed({ authStatus: status }, { token: 'wrong' });
      assert.equal(report.authFailure?.status, status);
      assert.match(report.authFailure?.message ?? '', status === 401 ? /access token was rejected/ : /not allowed/);
      assert.equal(requests, 1);
      assert.ok(report.notProbed.every((step) => /the token was refused/.test(step)));
      assert.equal(report.ready, false);
    });

  it('a 403 on one list after the token was accepted: said for that list, the probe goes on', async () => {
    const { report } = await probed({ forbidden: ['/invoices'] });
    assert.equal(report.authFailure, undefined);
    assert.match(finding(report, 'path.invoice')?.observed ?? '', /invoice: \/invoices 403/);
    assert.deepEqual(report.notProbed, []);
  });

  it('single-use cursors: a used cursor refused with 409, which expiredCursorStatuses must count', async () => {
    const { report } = await probed({ singleUseCursors: 409 });
    assert.equal(finding(report, 'cursor.reused')?.quirk, 'cursor-single-use');
    assert.deepEqual(finding(report, 'cursor.reused')?.setting, {
      key: 'expiredCursorStatuses',
      value: '409',
      state: 'not-set',
      required: true,
    });
    assert.equal(finding(report, 'cursor.unknown')?.setting?.state, 'set', '400 is counted by default');
    assert.deepEqual(settingsToWrite(report.findings, {}).expiredCursorStatuses, '400,404,409,410,422');
  });

  it('never more requests than the budget, and it says what it did not reach', async () => {
    const { report, requests } = await probed({}, { limits: { maxRequests: 5 } });
    assert.equal(report.requests, 5);
    assert.equal(requests, 5);
    assert.ok(report.notProbed.length > 0);
    assert.ok(report.notProbed.every((step) => /budget of 5 requests/.test(step)));
  });

  it('a 429 whose Retry-After is past the wait budget stops the probe there, saying so', async () => {
    const { report } = await probed(
      { throttle: { requests: 3, windowMs: 120_000, retryAfter: true } },
      { limits: { maxWaitMs: 10_000 } },
    );
    assert.ok(
      report.notProbed.some((step) => /wait budget/.test(step)),
      report.notProbed.join('; '),
    );
    assert.ok(report.requests <= 4);
  });

  it('a service as the spec shows it, with its base URL stored: nothing needed, ready', async () => {
    const server = await startQuirkyServer({});
    try {
      const report = await probeService({
        baseUrl: server.baseUrl,
        token: server.token,
        settings: { baseUrl: server.baseUrl },
      });
      assert.deepEqual(quirks(report), []);
      assert.equal(report.ready, true, JSON.stringify(report.findings, null, 1));
      assert.deepEqual(report.notProbed, []);
      assert.ok(report.requests <= 60);
    } finally {
      await server.close();
    }
  });
});

describe('probe --capture: what captured deliveries say about the webhooks', () => {
  const SANDBOX = 'whsec_sandbox_probe';
  const PRODUCTION = 'whsec_production_probe';
  async function delivery(
    secret: string,
    options: { ageSeconds: number; header: string; prefix?: string; pretty?: boolean },
  ) {
    const value = { userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense'] };
    const body = options.pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
    const receivedAt = Date.parse('2026-11-24T10:00:00Z');
    const token = await signWebhook(body, secret, { iat: receivedAt / 1000 - options.ageSeconds });
    const record: CaptureRecord = {
      id: `dlv_${options.ageSeconds}`,
      receivedAt: new Date(receivedAt).toISOString(),
      method: 'POST',
      path: '/',
      headers: { [options.header]: `${options.prefix ?? ''}${token}`, 'content-type': 'application/json' },
      headerName: 'service-verification',
      body: Buffer.from(body).toString('base64'),
      bodyBytes: Buffer.byteLength(body),
      verdict: { valid: false, code: 'missing_token', status: 400 },
    };
    return record;
  }

  it('header name, Bearer prefix, iat 420 s old, pretty bodies, and the production secret while probing sandbox', async () => {
    const captures = [
      await delivery(PRODUCTION, { ageSeconds: 420, header: 'acme-verification', prefix: 'Bearer ', pretty: true }),
      await delivery(PRODUCTION, { ageSeconds: 3, header: 'acme-verification', prefix: 'Bearer ', pretty: true }),
    ];
    const { report } = await probed(
      {},
      {
        webhooks: {
          captures,
          secrets: [
            { secret: SANDBOX, label: 'sandbox' },
            { secret: PRODUCTION, label: 'production' },
          ],
          environment: 'sandbox',
        },
      },
    );
    assert.deepEqual(finding(report, 'webhook.header')?.setting, {
      key: 'headerName',
      value: 'Acme-Verification',
      state: 'not-set',
      required: true,
    });
    assert.equal(finding(report, 'webhook.prefix')?.setting?.value, 'Bearer ');
    assert.equal(finding(report, 'webhook.iat')?.quirk, 'iat-skew');
    assert.equal(finding(report, 'webhook.iat')?.setting?.value, '540'); // 420 s and a minute, to the minute
    assert.equal(finding(report, 'webhook.body')?.quirk, 'body-not-compact');
    const secret = finding(report, 'webhook.secret');
    assert.equal(secret?.quirk, 'secret-of-another-environment');
    assert.match(secret?.problem ?? '', /production's secret, not sandbox's/);
    // A secret is named by where it is stored, never shown.
    assert.ok(!JSON.stringify(report).includes(PRODUCTION) && !JSON.stringify(report).includes(SANDBOX));
  });

  it('a capture file from elsewhere: no header name that cannot be one, no tolerance past a day', async () => {
    const forged = await delivery(SANDBOX, { ageSeconds: 200_000, header: 'x-bad header' });
    const elsewhere = {
      ...forged,
      headers: { ...forged.headers, 'service-verification': forged.headers['x-bad header'] ?? '' },
    };
    const { report } = await probed(
      {},
      {
        webhooks: {
          captures: [forged, elsewhere],
          secrets: [{ secret: SANDBOX, label: 'sandbox' }],
          environment: 'sandbox',
        },
      },
    );
    assert.equal(finding(report, 'webhook.header')?.setting?.value, 'Service-Verification');
    assert.match(finding(report, 'webhook.header')?.observed ?? '', /1 of 2 captured deliveries/);
    assert.equal(finding(report, 'webhook.iat')?.setting, undefined);
    assert.match(finding(report, 'webhook.iat')?.problem ?? '', /no tolerance up to a day fits/);
    assert.equal(settingsToWrite(report.findings, {}).tolerance, undefined);
  });

  it('the spec form, verified by the environment own secret: nothing to set there', async () => {
    const captures = [await delivery(SANDBOX, { ageSeconds: 2, header: 'service-verification' })];
    const { report } = await probed(
      {},
      { webhooks: { captures, secrets: [{ secret: SANDBOX, label: 'sandbox' }], environment: 'sandbox' } },
    );
    const webhooks = report.findings.filter((entry) => entry.area === 'webhooks');
    assert.ok(webhooks.every((entry) => entry.problem === undefined && (entry.setting?.state ?? 'set') === 'set'));
    assert.equal(webhooks.find((entry) => entry.id === 'webhook.body')?.quirk, undefined);
  });
});

describe('a sync with the settings probe found converges, a same-second change included', () => {
  it('whole-second stamps compared with >, the list at /expenses/expenses, at most 50 a page, cursor: null', async () => {
    const clock = { now: Date.parse('2026-11-24T10:00:05.200Z') };
    const server = await startQuirkyServer({
      now: () => clock.now,
      expensePath: '/expenses/expenses',
      maxLimit: 50,
      seconds: true,
      cursorEnd: 'null',
      items: 120,
    });
    try {
      const report = await probeService({ baseUrl: server.baseUrl, token: server.token, now: () => clock.now });
      const settings = settingsToWrite(report.findings, {});
      const dir = tempDir();
      const store = new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') });
      const sync = () =>
        syncDataset({
          baseUrl: server.baseUrl,
          token: server.token,
          path: settings['paths.expense'] ?? '/expenses',
          paths: { expense: settings['paths.expense'] ?? '/expenses' },
          filter: { type: 'PENDING' },
          read: {
            limit: parsePageLimit(settings.pageLimit ?? '') as number,
            lagMs: parseLag(settings.lag ?? '') as number,
          },
          store,
        });
      assert.equal((await sync()).mode, 'full'); // stamped 10:00:05
      clock.now = Date.parse('2026-11-24T10:00:05.700Z');
      server.edit(3, { amount: 333 }); // after the read, in the same second
      server.edit(5, { type: 'BUSINESS' }); // leaves the PENDING dataset in that second too
      clock.now = Date.parse('2026-11-24T10:00:09.000Z');
      const next = await sync();
      assert.equal(next.mode, 'incremental');
      const file = store.fileFor({ userId: '', dataset: '/expenses/expenses?type=PENDING' });
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), server.truth('PENDING'));
    } finally {
      await server.close();
    }
  });
});
