/**
 * The rules probe reads a service by, without a server: timestamp forms, stated rates, error body
 * shapes, whether a stored setting fits what was found, what --write stores, the record a later probe
 * compares with, and the in-process pace the rateLimit setting sets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeBody } from '../../src/http/error-body.js';
import { RequestRate } from '../../src/http/request-rate.js';
import { statedRate, seenRate } from '../../src/probe/probe-limits.js';
import { changesSince, probeRecord, readProbeRecord } from '../../src/probe/probe-record.js';
import { stampForm } from '../../src/probe/probe-time.js';
import type { ProbeReport } from '../../src/probe/probe-types.js';
import { fits, implySetting, refit, settingsToWrite } from '../../src/probe/setting-fit.js';
import { serviceSettingProblem } from '../../src/settings/setting-values.js';

describe('stampForm: the precision and zone of lastUpdatedDate', () => {
  const table: Array<[string, string[], { precision: string; zone: string; unitMs: number }]> = [
    ['milliseconds in UTC', ['2026-01-01T10:00:00.123Z'], { precision: 'sub-second', zone: 'Z', unitMs: 1 }],
    ['microseconds', ['2026-01-01T10:00:00.123456Z'], { precision: 'sub-second', zone: 'Z', unitMs: 1 }],
    ['tenths', ['2026-01-01T10:00:00.1Z'], { precision: 'sub-second', zone: 'Z', unitMs: 100 }],
    [
      'whole seconds',
      ['2026-01-01T10:00:00Z', '2026-01-01T10:00:07Z'],
      { precision: 'second', zone: 'Z', unitMs: 1000 },
    ],
    [
      'whole seconds written .000',
      ['2026-01-01T10:00:00.000Z', '2026-01-01T10:00:03.000Z'],
      { precision: 'second', zone: 'Z', unitMs: 1000 },
    ],
    [
      'one .000 among ms stamps',
      ['2026-01-01T10:00:00.000Z', '2026-01-01T10:00:03.456Z'],
      { precision: 'sub-second', zone: 'Z', unitMs: 1 },
    ],
    ['an offset', ['2026-01-01T10:00:00+02:00'], { precision: 'second', zone: 'offset', unitMs: 1000 }],
    ['no zone', ['2026-01-01T10:00:00.250'], { precision: 'sub-second', zone: 'none', unitMs: 1 }],
    ['whole minutes', ['2026-01-01T10:00Z'], { precision: 'minute', zone: 'Z', unitMs: 60_000 }],
    [
      'mixed zones',
      ['2026-01-01T10:00:00Z', '2026-01-01T10:00:00+01:00'],
      { precision: 'second', zone: 'mixed', unitMs: 1000 },
    ],
  ];
  for (const [name, stamps, expected] of table)
    it(name, () => {
      const form = stampForm(stamps);
      assert.deepEqual({ precision: form?.precision, zone: form?.zone, unitMs: form?.unitMs }, expected);
    });
  it('nothing it can read: no form', () => assert.equal(stampForm(['yesterday', '1700000000']), undefined));
});

describe('statedRate: a rate read from the headers a service sends', () => {
  const at = (headers: Record<string, string>, receivedAt = Date.parse('2026-01-01T00:00:00Z')) => ({
    headers,
    receivedAt,
  });
  const table: Array<[string, ReturnType<typeof at>[], { requests: number; windowSeconds: number } | undefined]> = [
    ['RateLimit-Policy', [at({ 'ratelimit-policy': '100;w=60' })], { requests: 100, windowSeconds: 60 }],
    [
      'RateLimit-Policy, newer form',
      [at({ 'ratelimit-policy': '"default";q=50;w=10' })],
      { requests: 50, windowSeconds: 10 },
    ],
    ['Kong', [at({ 'x-ratelimit-limit-minute': '600' })], { requests: 600, windowSeconds: 60 }],
    [
      'a limit and the longest reset (seconds from now)',
      [
        at({ 'x-ratelimit-limit': '100', 'x-ratelimit-reset': '60' }),
        at({ 'x-ratelimit-limit': '100', 'x-ratelimit-reset': '12' }),
      ],
      { requests: 100, windowSeconds: 60 },
    ],
    [
      'a reset as an epoch time, against the Date header',
      [at({ 'x-ratelimit-limit': '5', 'x-ratelimit-reset': '1767225630', date: 'Thu, 01 Jan 2026 00:00:00 GMT' })],
      { requests: 5, windowSeconds: 30 },
    ],
    ['a limit without a window', [at({ 'x-ratelimit-limit': '100' })], undefined],
    ['nothing', [at({})], undefined],
  ];
  for (const [name, answers, expected] of table)
    it(name, () => {
      const rate = statedRate(answers);
      assert.deepEqual(rate && { requests: rate.requests, windowSeconds: rate.windowSeconds }, expected);
    });
  it('seenRate: the requests before the first 429, over that time and its Retry-After', () => {
    assert.deepEqual(seenRate([{ requestsBefore: 20, elapsedMs: 80, retryAfterMs: 1000 }]), {
      requests: 20,
      windowSeconds: 1,
    });
    assert.deepEqual(
      seenRate([
        { requestsBefore: 0, elapsedMs: 0 },
        { requestsBefore: 5, elapsedMs: 2600 },
      ]),
      {
        requests: 5,
        windowSeconds: 3,
      },
    );
    assert.equal(seenRate([{ requestsBefore: 0, elapsedMs: 0 }]), undefined);
  });
});

describe('describeBody: the shape of an error answer, and what is worth quoting', () => {
  const page = '<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>';
  const table: Array<[string, string, string, { shape: string; summary: string; fields?: string[] }]> = [
    [
      'JSON with a message',
      '{"error":"bad","message":"limit too large"}',
      'application/json',
      { shape: 'json', summary: 'limit too large', fields: ['error', 'message'] },
    ],
    ['an HTML page, by its title', page, 'text/html', { shape: 'html', summary: '404 Not Found' }],
    ['an HTML page without a content type', page, '', { shape: 'html', summary: '404 Not Found' }],
    [
      'an HTML page without a title, by its text',
      '<html><body><p>Bad &amp; wrong</p></body></html>',
      'text/html',
      { shape: 'html', summary: 'Bad & wrong' },
    ],
    ['plain text', 'Too Many Requests\n', 'text/plain', { shape: 'text', summary: 'Too Many Requests' }],
    ['"JSON" that is not', '{oops', 'application/json', { shape: 'text', summary: '{oops' }],
    ['nothing', '  ', '', { shape: 'empty', summary: '' }],
  ];
  for (const [name, text, type, expected] of table)
    it(name, () => {
      const body = describeBody(text, type);
      assert.deepEqual(
        { shape: body.shape, summary: body.summary, ...(body.fields ? { fields: body.fields } : {}) },
        expected,
      );
    });
  it('a huge page is read from its start only, and its quote is one short line', () => {
    const body = describeBody(`<html><title>${'x\n'.repeat(5000)}</title>${'<p>'.repeat(100_000)}`, 'text/html');
    assert.equal(body.shape, 'html');
    assert.ok(body.summary.length <= 120 && !body.summary.includes('\n'));
  });
});

describe('fits: a stored setting against what a finding needs', () => {
  const table: Array<[Parameters<typeof fits>[0], string | undefined, string, boolean]> = [
    ['pageLimit', undefined, '50', false],
    ['pageLimit', undefined, '500', true],
    ['pageLimit', '40', '50', true],
    ['lag', undefined, '1s', false],
    ['lag', '2s', '1s', true],
    ['lag', '500ms', '1s', false],
    ['tolerance', undefined, '300', true],
    ['tolerance', '300', '600', false],
    ['rateLimit', undefined, '100/60', false],
    ['rateLimit', '50/60', '100/60', true],
    ['rateLimit', '10/1', '100/60', false],
    ['expiredCursorStatuses', undefined, '410', true],
    ['expiredCursorStatuses', undefined, '409', false],
    ['expiredCursorStatuses', '400,409', '409', true],
    ['headerName', undefined, 'service-verification', true],
    ['headerName', undefined, 'Acme-Verification', false],
    ['paths.expense', '/expenses/expenses/', '/expenses/expenses', true],
    ['paths.expense', undefined, '/expenses/expenses', false],
    ['baseUrl', 'http://a/rest/v5/', 'http://a/rest/v5', true],
    ['lag', 'soon', '1s', false],
  ];
  for (const [key, current, implied, expected] of table)
    it(`${key}: ${current ?? '(unset)'} for ${implied} → ${expected}`, () =>
      assert.equal(fits(key, current, implied), expected));
});

describe('settingsToWrite and refit: what --write stores', () => {
  it('one value per setting that fits every finding about it; statuses join those set; fitting ones are left', () => {
    const stored = { expiredCursorStatuses: '400,404', tolerance: '900' };
    const findings = [
      { setting: implySetting('pageLimit', '50', stored, true) },
      { setting: implySetting('pageLimit', '40', stored, false) },
      { setting: implySetting('lag', '1s', stored, true) },
      { setting: implySetting('lag', '1m', stored, true) },
      { setting: implySetting('expiredCursorStatuses', '409', stored, true) },
      { setting: implySetting('tolerance', '600', stored, true) },
    ];
    const wrote = settingsToWrite(findings, stored);
    assert.deepEqual(wrote, { pageLimit: '40', lag: '1m', expiredCursorStatuses: '400,404,409' });
    const after = refit(findings, { ...stored, ...wrote });
    assert.ok(after.every(({ setting }) => setting.state === 'set'));
  });
});

describe('the probe record: what a later probe compares with', () => {
  const report = (findings: ProbeReport['findings']): ProbeReport => ({
    baseUrl: 'http://x/rest/v5',
    requests: 3,
    maxRequests: 60,
    findings,
    facts: {},
    notProbed: [],
    ready: true,
  });
  const lag = (value: string) => ({
    area: 'time' as const,
    id: 'lag',
    quirk: 'whole-second-timestamps' as const,
    observed: 'x',
    setting: implySetting('lag', value, {}, true),
  });
  it('changes by finding: different, new, gone', () => {
    const before = probeRecord(
      report([lag('1s'), { area: 'paging', id: 'last-page', observed: 'y' }]),
      { lag: '1s' },
      '2026-01-01T00:00:00.000Z',
    );
    const read = readProbeRecord(JSON.parse(JSON.stringify(before)));
    assert.deepEqual(read, before);
    assert.deepEqual(changesSince(before, report([lag('1s'), { area: 'paging', id: 'last-page', observed: 'z' }])), []);
    assert.deepEqual(changesSince(before, report([lag('1m'), { area: 'limits', id: 'rate-limit', observed: 'w' }])), [
      { id: 'lag', before: 'whole-second-timestamps, lag 1s', after: 'whole-second-timestamps, lag 1m' },
      { id: 'rate-limit', before: undefined, after: 'nothing to set' },
      { id: 'last-page', before: 'nothing to set' },
    ]);
  });
  it('a record someone else wrote is checked: the wrong shape is no record, odd entries are dropped', () => {
    for (const bad of [null, 'x', { at: 1 }, { at: 'a', baseUrl: 'b', wrote: {}, findings: 'no' }])
      assert.equal(readProbeRecord(bad), undefined);
    const kept = readProbeRecord({
      at: 'a',
      baseUrl: 'b',
      wrote: { lag: '1s', evil: { x: 1 }, long: 'x'.repeat(600) },
      findings: [{ id: 'lag', summary: 's' }, { id: 7 }, 'x'],
    });
    assert.deepEqual(kept, { at: 'a', baseUrl: 'b', wrote: { lag: '1s' }, findings: [{ id: 'lag', summary: 's' }] });
  });
});

describe('the values of the new settings (config set refuses others)', () => {
  const table: Array<[string, string, boolean]> = [
    ['pageLimit', '50', true],
    ['pageLimit', '0', false],
    ['pageLimit', '1e3', false],
    ['lag', '1s', true],
    ['lag', '250ms', true],
    ['lag', '2d', false],
    ['lag', '25h', false],
    ['rateLimit', '600/60', true],
    ['rateLimit', '600/0', false],
    ['rateLimit', '600', false],
    ['tolerance', '600', true],
    ['tolerance', '0', false],
    ['baseUrl', 'anything: not one of these', true],
  ];
  for (const [key, value, ok] of table)
    it(`${key} ${value}: ${ok ? 'accepted' : 'refused'}`, () =>
      assert.equal(serviceSettingProblem(key, value) === undefined, ok));
});

describe('RequestRate: the pace the rateLimit setting keeps', () => {
  it('a burst of the whole rate, then one every window/requests; each request counted once', async () => {
    let now = 0;
    const waits: number[] = [];
    const rate = new RequestRate(
      { requests: 3, windowSeconds: 3 },
      () => now,
      async (ms) => {
        waits.push(ms);
        now += ms;
      },
    );
    const times: number[] = [];
    for (let request = 0; request < 5; request += 1) {
      await rate.acquire();
      times.push(now);
    }
    assert.deepEqual(times, [0, 0, 0, 1000, 2000]);
    assert.deepEqual(waits, [1000, 1000]);
    now = 10_000; // idle for a while: a whole burst again
    for (let request = 0; request < 3; request += 1) await rate.acquire();
    assert.equal(now, 10_000);
  });
});
