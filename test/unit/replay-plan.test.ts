import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CaptureRecord } from '../../src/capture/capture-record.js';
import { planReplay, type ReplayPolicy } from '../../src/replay/replay-plan.js';

const record = (id: string, valid: boolean | null, extra: Partial<CaptureRecord> = {}): CaptureRecord => ({
  id,
  receivedAt: '2026-01-01T00:00:00.000Z',
  method: 'POST',
  path: '/',
  headers: {},
  headerName: 'service-verification',
  body: Buffer.from('{}').toString('base64'),
  bodyBytes: 2,
  verdict: valid === false ? { valid, status: 400, code: 'bad_signature' } : { valid, status: 200 },
  ...extra,
});

const RECORDS = [record('valid', true), record('refused', false), record('open', null)];

describe('planReplay', () => {
  for (const [name, policy, send, skipped] of [
    ['default: only verified ones, re-signed', {}, ['valid:re-signed'], ['refused', 'open']],
    ['--as-captured', { asCaptured: true }, ['valid:as-captured'], ['refused', 'open']],
    [
      '--include-refused: refused ones as captured',
      { includeRefused: true },
      ['valid:re-signed', 'refused:as-captured'],
      ['open'],
    ],
    [
      '--include-refused --resign-refused',
      { includeRefused: true, resignRefused: true },
      ['valid:re-signed', 'refused:re-signed'],
      ['open'],
    ],
    [
      '--include-refused --resign-refused --as-captured: nothing re-signed',
      { includeRefused: true, resignRefused: true, asCaptured: true },
      ['valid:as-captured', 'refused:as-captured'],
      ['open'],
    ],
    ['--include-unverified', { includeUnverified: true }, ['valid:re-signed', 'open:re-signed'], ['refused']],
  ] as Array<[string, ReplayPolicy, string[], string[]]>) {
    it(name, () => {
      const plan = planReplay(RECORDS, policy);
      assert.deepEqual(
        plan.send.map((p) => `${p.record.id}:${p.mode}`),
        send,
      );
      assert.deepEqual(
        plan.skipped.map((s) => s.record.id),
        skipped,
      );
    });
  }

  for (const [name, records, policy, reason] of [
    ['nothing selected', [], {}, 'nothing_selected'],
    ['only refused and unverified', [record('r', false), record('o', null)], {}, 'nothing_verified_to_replay'],
    ['--resign-refused alone', RECORDS, { resignRefused: true }, 'resign_without_include'],
    [
      'a truncated body that would be sent',
      [record('big', false, { bodyTruncated: true, bodySha256: 'x' })],
      { includeRefused: true },
      'capture_body_truncated',
    ],
  ] as Array<[string, CaptureRecord[], ReplayPolicy, string]>) {
    it(`refuses ${name} with reason ${reason}`, () => {
      assert.throws(
        () => planReplay(records, policy),
        (error: { code?: string; details?: { reason?: string } }) =>
          error.code === 'ERR_USAGE' && error.details?.reason === reason,
      );
    });
  }

  it('counts what it skipped when nothing is left', () => {
    assert.throws(() => planReplay([record('r', false), record('o', null), record('o2', null)]), {
      details: { reason: 'nothing_verified_to_replay', refused: 1, unverified: 2 },
      message: /1 refused delivery and 2 unverified deliveries/,
    });
  });
});

describe('the replay marker (ledgerhook-replay-of)', () => {
  it('travels only for an id a header can carry; an edited capture id sends no marker, not a failed delivery', async () => {
    const { isReplayMarker } = await import('../../src/replay/replay.js');
    assert.equal(isReplayMarker('dlv_01HX2Z'), true);
    for (const bad of ['evil\r\nx-injected: 1', '', 'x'.repeat(81), 'a b', 7])
      assert.equal(isReplayMarker(bad), false, JSON.stringify(bad));
  });
});
