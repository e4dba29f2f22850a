import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CaptureRecord } from '../../src/capture/capture-record.js';
import type { LedgerhookError } from '../../src/errors.js';
import { isRedactedRecord, redactCaptureRecord } from '../../src/redact/redact-capture.js';
import { createRedactor } from '../../src/redact/redactor.js';

const KEY = Buffer.alloc(32, 7);
const redactor = (fields?: string[]) => createRedactor({ key: KEY, fields });
const isHash = (value: unknown) => typeof value === 'string' && /^redacted:[\w-]{22}$/.test(value);

describe('redaction: the defaults of this API, at any depth', () => {
  const page = {
    data: [
      {
        id: 41,
        userId: 'user_1',
        categoryId: 7,
        date: '2026-11-24 10:00:00.000',
        amount: 12.5,
        description: 'Lunch with Alice',
        vendor: 'Shell',
        counterparty: { name: 'Alice Example', email: 'alice@example.com', iban: 'DE89370400440532013000' },
        card: { cardNumber: '4111 1111 1111 1111', last4: '1111' },
        accountNumber: 12345678,
        address: { street: 'Main St 1', city: 'Springfield', geo: { lat: 1.5 } },
        memo: null,
        paid: true,
      },
    ],
    lastUpdatedDate: '2026-11-24T10:00:01Z',
    cursor: 'DE89370400440532013000',
    deletedIds: [3, '4'],
  };

  it('replaces e-mail addresses, names, descriptions, account and card numbers and IBANs; keeps ids, dates, amounts and the envelope', () => {
    const { value, replaced } = redactor().json(page);
    const out = value as typeof page;
    const item = out.data[0] as Record<string, any>;
    for (const personal of [
      item.description,
      item.counterparty.name,
      item.counterparty.email,
      item.counterparty.iban,
      item.card.cardNumber,
      item.accountNumber,
      item.address.street,
      item.address.city,
      item.address.geo.lat,
    ])
      assert.ok(isHash(personal), String(personal));
    assert.deepEqual(
      [
        item.id,
        item.userId,
        item.categoryId,
        item.date,
        item.amount,
        item.vendor,
        item.card.last4,
        item.memo,
        item.paid,
      ],
      [41, 'user_1', 7, '2026-11-24 10:00:00.000', 12.5, 'Shell', '1111', null, true],
    );
    assert.deepEqual(
      [out.lastUpdatedDate, out.cursor, out.deletedIds],
      [page.lastUpdatedDate, page.cursor, page.deletedIds],
    );
    assert.equal(replaced, 9);
    assert.equal((page.data[0] as any).description, 'Lunch with Alice', 'the input is never changed');
  });

  it('a value personal by its shape is replaced in any field: an e-mail address in text, an IBAN, a card number', () => {
    const { value } = redactor().json({
      remarkText: 'call bob@example.org back',
      payTo: 'GB82 WEST 1234 5698 7654 32',
      pan: '5500-0000-0000-0004',
      notAnIban: 'DE00370400440532013000',
      msTimestamp: '1700000000000',
      notLuhn: '4111111111111112',
      refId: 'alice@example.com',
      id: 'carol@example.com',
    });
    const out = value as Record<string, string>;
    // An id holding an e-mail address is hashed too (equal values still join); only `id` itself is paged on.
    assert.ok(isHash(out.remarkText) && isHash(out.payTo) && isHash(out.pan) && isHash(out.refId));
    assert.deepEqual(
      [out.notAnIban, out.msTimestamp, out.notLuhn, out.id],
      ['DE00370400440532013000', '1700000000000', '4111111111111112', 'carol@example.com'],
    );
  });

  it('equal values hash equal (joins still work); another key hashes differently; a second pass changes nothing', () => {
    const first = redactor().json({
      a: { email: 'x@example.com' },
      b: { email: 'x@example.com' },
      c: { email: 'y@example.com' },
    }).value as Record<string, { email: string }>;
    assert.equal(first.a?.email, first.b?.email);
    assert.notEqual(first.a?.email, first.c?.email);
    const other = createRedactor({ key: Buffer.alloc(32, 8) }).json({ email: 'x@example.com' }).value as {
      email: string;
    };
    assert.notEqual(other.email, first.a?.email);
    assert.deepEqual(redactor().json(first).value, first);
    assert.equal(redactor().json(first).replaced, 0);
  });

  it('--redact takes field names at any depth and JSON paths; what paging rests on and malformed rules are refused', () => {
    const document = {
      data: [{ id: 1, tags: ['vip'], merchantRef: 'm-1', nested: { 'payer note': 'hi', merchantRef: 'm-2' } }],
      items: [{ memoText: 'a' }, { memoText: 'b' }],
      deep: { x: { secretCode: 'c' } },
    };
    const out = redactor([
      'merchantRef',
      "$.data[*].tags,$.data[*].nested['payer note']",
      '$.items[1].memoText',
      '$..secretCode',
    ]).json(document).value as any;
    assert.ok(isHash(out.data[0].tags[0]) && isHash(out.data[0].merchantRef) && isHash(out.data[0].nested.merchantRef));
    assert.ok(
      isHash(out.data[0].nested['payer note']) && isHash(out.deep.x.secretCode) && isHash(out.items[1].memoText),
    );
    assert.equal(out.items[0].memoText, 'a');
    const named = redactor(['userId']).json({ userId: 'user_1', items: [{ id: 1 }] }).value as any;
    assert.ok(isHash(named.userId), 'an id may be named: it still joins');
    assert.equal(named.items[0].id, 1);
    for (const bad of ['id', 'deletedIds', '$.data[*].id', '$.lastUpdatedDate', '$.data[', 'na;me'])
      assert.throws(
        () => redactor([bad]),
        (error: LedgerhookError) => error.details.reason === 'invalid_redact_rule' && error.message.includes(bad),
      );
  });

  it('a hostile document nested past any reasonable depth is replaced, not walked into a stack overflow', () => {
    let deep: unknown = 'alice@example.com';
    for (let level = 0; level < 5000; level += 1) deep = [deep];
    const { value } = redactor().json(deep);
    assert.ok(JSON.stringify(value).length < 5000 * 3);
  });
});

describe('a redacted capture line', () => {
  const body = JSON.stringify({
    userId: 'user_1',
    type: 'LIFECYCLE_EVENT',
    event: 'EXPENSE_ADDED',
    eventData: { expenseId: 9, payerEmail: 'dave@example.com' },
  });
  const record: CaptureRecord = {
    id: 'dlv_1',
    receivedAt: '2026-11-24T10:00:00.000Z',
    method: 'POST',
    path: '/hooks?from=dave@example.com',
    headers: { 'content-type': 'application/json', 'service-verification': 'eyJhbGciOi.x.y', cookie: 'session=1' },
    headerName: 'service-verification',
    body: Buffer.from(body).toString('base64'),
    bodyBytes: body.length,
    verdict: { valid: true, status: 200 },
    type: 'LIFECYCLE_EVENT',
    event: 'EXPENSE_ADDED',
    userId: 'user_1',
  };

  it('loses the token and cookies, keeps the verdict at receipt, and its body is redacted JSON with its new length', () => {
    const out = redactCaptureRecord(record, redactor());
    assert.ok(isRedactedRecord(out));
    assert.deepEqual(Object.keys(out.headers), ['content-type']);
    assert.deepEqual(out.verdict, { valid: true, status: 200 });
    const redactedBody = Buffer.from(out.body, 'base64');
    assert.equal(out.bodyBytes, redactedBody.length);
    const parsed = JSON.parse(redactedBody.toString());
    assert.ok(isHash(parsed.eventData.payerEmail));
    assert.equal(parsed.eventData.expenseId, 9);
    assert.doesNotMatch(JSON.stringify(out), /dave@example\.com|eyJhbGciOi|session=1/);
    assert.equal(out.redaction.replaced, 1);
    assert.equal(redactCaptureRecord(out, redactor()), out, 'a redacted line is not redacted twice');
  });

  it('a body that is not JSON (or was cut) is dropped whole, its length kept: it can be neither shown nor replayed', () => {
    const cut = redactCaptureRecord(
      { ...record, body: Buffer.from('not json alice@example.com').toString('base64'), bodyBytes: 26 },
      redactor(),
    );
    assert.deepEqual([cut.body, cut.bodyTruncated, cut.bodyBytes, cut.redaction.bodyDropped], ['', true, 26, true]);
  });
});
