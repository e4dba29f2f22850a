import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type SendSummary, sendSummaryError } from '../../src/delivery/send-deliveries.js';

const url = new URL('http://127.0.0.1:9/hooks');

function summary(fields: Partial<SendSummary>): SendSummary {
  return {
    sent: 0,
    statusCounts: {},
    succeeded: 0,
    failed: 0,
    networkErrors: 0,
    latencyMs: { p50: 0, p95: 0, max: 0 },
    elapsedMs: 1,
    ...fields,
  };
}

describe('sendSummaryError: one rule for send-sample and replay', () => {
  it('every delivery answered 2xx, or none sent: no error', () => {
    assert.equal(sendSummaryError(summary({ sent: 2, succeeded: 2 }), url), undefined);
    assert.equal(sendSummaryError(summary({}), url, 'replayed'), undefined);
  });

  it('no answer at all is the first network failure, with its reason and origin', () => {
    const error = sendSummaryError(
      summary({
        sent: 2,
        failed: 2,
        networkErrors: 2,
        firstNetworkError: 'connection refused by 127.0.0.1:9',
        firstNetworkReason: 'connection_refused',
      }),
      url,
      'replayed',
    );
    assert.equal(error?.code, 'ERR_NETWORK');
    assert.equal(error?.message, 'connection refused by 127.0.0.1:9');
    assert.deepEqual(error?.details, { reason: 'connection_refused', origin: 'http://127.0.0.1:9' });
  });

  for (const [what, fields, message] of [
    ['', { sent: 2, failed: 2 }, '2 of 2 deliveries were not answered with 2xx'],
    ['replayed', { sent: 2, failed: 2 }, '2 of 2 replayed deliveries were not answered with 2xx'],
    ['replayed', { sent: 3, failed: 1 }, '1 of 3 replayed deliveries was not answered with 2xx'],
    ['', { sent: 1, failed: 1 }, '1 of 1 delivery was not answered with 2xx'],
    [
      '',
      { sent: 3, failed: 2, networkErrors: 1, firstNetworkError: 'timed out' },
      '2 of 3 deliveries were not answered with 2xx (timed out)',
    ],
  ] as const) {
    it(`some not answered with 2xx is a failed check: ${message}`, () => {
      const error = sendSummaryError(summary(fields), url, what);
      assert.equal(error?.code, 'ERR_CHECK_FAILED');
      assert.equal(error?.message, message);
    });
  }
});
