import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpStatusError } from '../../src/errors.js';
import { cursorNoLongerAccepted, parseStatusList } from '../../src/sync/resume.js';
import { afterWindow, parseSinceDate } from '../../src/sync/since-window.js';

describe('resume rules: --since dates, the window after a gap, cursors the service no longer takes', () => {
  it('parseSinceDate: ISO 8601 dates and zoned date-times, as UTC; nothing else', () => {
    const table: Array<[string, string | undefined]> = [
      ['2026-01-31', '2026-01-31T00:00:00.000Z'],
      ['2026-01-31T12:00:00Z', '2026-01-31T12:00:00.000Z'],
      ['2026-01-31T12:00Z', '2026-01-31T12:00:00.000Z'],
      ['2026-01-31T12:00:00.123456Z', '2026-01-31T12:00:00.123Z'],
      ['2026-01-31T14:00:00+02:00', '2026-01-31T12:00:00.000Z'],
      ['2026-01-31T14:00:00+0200', '2026-01-31T12:00:00.000Z'],
      [' 2026-01-31 ', '2026-01-31T00:00:00.000Z'],
      ['2024-02-29', '2024-02-29T00:00:00.000Z'],
      ['2026-02-29', undefined],
      ['2026-02-30', undefined],
      ['2026-13-01', undefined],
      ['2026-01-31T24:00:00Z', undefined],
      ['2026-01-31T12:60:00Z', undefined],
      ['2026-01-31T12:00:00', undefined],
      ['2026-01-31 12:00:00Z', undefined],
      ['31/01/2026', undefined],
      ['yesterday', undefined],
      ['1706659200', undefined],
      ['', undefined],
    ];
    for (const [input, expected] of table) assert.equal(parseSinceDate(input), expected, input);
  });

  it('afterWindow: the later of stored and first page, never back, and the stored one after a gap', () => {
    const table: Array<[string, string, string, string, string]> = [
      // stored, window start, first page → committed, why
      ['2026-05-02T00:00:00Z', '2026-05-01T00:00:00Z', '2026-05-03T00:00:00Z', '2026-05-03T00:00:00Z', 'moves on'],
      ['2026-05-02T00:00:00Z', '2026-05-01T00:00:00Z', '2026-05-01T12:00:00Z', '2026-05-02T00:00:00Z', 'never back'],
      ['2026-05-02T00:00:00Z', '2026-05-02T00:00:00Z', '2026-05-03T00:00:00Z', '2026-05-03T00:00:00Z', 'same start'],
      ['2026-05-02T00:00:00Z', '2026-05-04T00:00:00Z', '2026-05-05T00:00:00Z', '2026-05-02T00:00:00Z', 'gap unread'],
      ['not a date', '2026-05-01T00:00:00Z', '2026-05-05T00:00:00Z', 'not a date', 'incomparable'],
      ['2026-05-02T00:00:00Z', '2026-05-01T00:00:00Z', 'garbage', '2026-05-02T00:00:00Z', 'incomparable'],
      // Behind even the window's start: the server's clock went back (server-stamp.ts), said by `behind`.
      ['2026-05-02T00:00:00Z', '2026-05-01T00:00:00Z', '2026-04-01T00:00:00Z', '2026-04-01T00:00:00Z', 'went back'],
    ];
    for (const [stored, start, first, expected, why] of table)
      assert.equal(afterWindow(stored, start, first).lastUpdatedDate, expected, why);
    assert.deepEqual(afterWindow('2026-05-02T00:00:00Z', '2026-05-01T00:00:00Z', '2026-04-01T00:00:00Z').behind, {
      received: '2026-04-01T00:00:00Z',
      stored: '2026-05-02T00:00:00Z',
    });
  });

  it('cursorNoLongerAccepted: the statuses counted, or a 4xx body that says so; never 401, 429 or 5xx', () => {
    const answer = (status: number, body = '{}') => new HttpStatusError('GET', 'http://x/things', status, body);
    const table: Array<[unknown, readonly number[] | undefined, boolean]> = [
      [answer(400), undefined, true],
      [answer(404), undefined, true],
      [answer(410), undefined, true],
      [answer(422), undefined, true],
      [answer(409), undefined, false],
      [answer(409), [409], true],
      [answer(400), [410], false],
      [answer(409, '{"error":"invalid_cursor"}'), undefined, true],
      [answer(403, '{"message":"Cursor has expired"}'), undefined, true],
      [answer(412, 'the cursor is no longer valid'), undefined, true],
      [answer(401, '{"error":"invalid cursor"}'), undefined, false],
      [answer(429, '{"error":"invalid cursor"}'), undefined, false],
      [answer(500, '{"error":"invalid cursor"}'), undefined, false],
      [answer(403, '{"error":"forbidden"}'), undefined, false],
      [new Error('invalid cursor'), undefined, false],
    ];
    for (const [error, statuses, expected] of table)
      assert.equal(cursorNoLongerAccepted(error, statuses), expected, `${(error as Error).message} ${statuses ?? ''}`);
  });

  it('parseStatusList: 4xx statuses, deduplicated; not 401, 429, other classes or words', () => {
    const table: Array<[string, number[] | RegExp]> = [
      ['400,404,410', [400, 404, 410]],
      [' 409 , 410 410', [409, 410]],
      ['401', /rejected token/],
      ['429', /rate limit/],
      ['500', /not a 4xx/],
      ['40', /not a 4xx/],
      ['gone', /not a 4xx/],
      ['', /no status/],
    ];
    for (const [input, expected] of table) {
      const parsed = parseStatusList(input);
      if (expected instanceof RegExp) assert.match(String(parsed), expected, input);
      else assert.deepEqual(parsed, expected, input);
    }
  });
});
