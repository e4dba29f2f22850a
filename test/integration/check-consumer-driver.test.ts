/**
 * checkConsumer with its edges injected: in-process consumers (one that reads the service's truth on
 * every delivery, one that skips a delivery it has seen, one that never stores anything) and the real
 * mock on port 0. The CLI against real apps is test/e2e/check-consumer.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CheckConsumerOptions,
  checkConsumer,
  type DeliverySender,
} from '../../src/consumer-check/check-consumer.js';
import { CONSUMER_CASE_TABLE } from '../../src/consumer-check/consumer-case-table.js';
import { LedgerhookError } from '../../src/errors.js';

const DATASETS = ['/expenses', '/expenses?type=PENDING'];

/** A consumer that, on each delivery it accepts, copies the service's current data (a perfect sync). */
function fakeConsumer(options: { skipSeen?: boolean; store?: boolean } = {}) {
  let root = '';
  let userId = '';
  const store: Record<string, unknown[]> = {};
  const seen = new Set<string>();
  const send: DeliverySender = async (delivery) => {
    const token = String(delivery.headers['service-verification']);
    if (options.skipSeen && seen.has(token)) return { status: 200, excerpt: '{"duplicate":true}' };
    seen.add(token);
    if (options.store === false) return { status: 200, excerpt: '' };
    for (const key of DATASETS) {
      const [path, query] = key.split('?');
      const answer = await fetch(`${root}/__mock/dataset?path=${path}${query ? `&${query}` : ''}`);
      store[key] = ((await answer.json()) as { data: unknown[] }).data;
    }
    return { status: 200, excerpt: '{"received":true}' };
  };
  const base: CheckConsumerOptions = {
    to: new URL('http://127.0.0.1:9/webhooks'),
    secret: 'whsec_driver_test',
    readState: async () => ({ users: { [userId]: store } }),
    stateLabel: 'the fake consumer',
    send,
    mock: { port: 0 },
    burst: 40,
    onProgress: (event) => {
      if (event.type !== 'started') return;
      root = event.apiUrl.replace(/\/rest\/v5$/, '');
      userId = event.userId;
    },
  };
  return base;
}

describe('checkConsumer (edges injected)', () => {
  it('a consumer that syncs on every delivery converges in every required case; the lost webhook is a limitation', async () => {
    const report = await checkConsumer({ ...fakeConsumer(), settleMs: 1500 });
    const verdicts = Object.fromEntries(report.cases.map((c) => [c.id, c.verdict]));
    assert.deepEqual(verdicts, {
      ...Object.fromEntries(CONSUMER_CASE_TABLE.map((c) => [c.id, 'converged'])),
      'lost-webhook': 'not-converged',
    });
    assert.equal(report.passed, true, JSON.stringify(report.cases, null, 1));
    assert.deepEqual(report.failed, []);
    assert.deepEqual(report.limitations, ['lost-webhook']);
    const lost = report.cases.find((c) => c.id === 'lost-webhook');
    assert.match(lost?.detail ?? '', /only a reconcile .* catches this/);
    assert.equal(lost?.failed, false);
    assert.deepEqual(lost?.difference.map((d) => d.dataset).includes('/expenses'), true);
    assert.equal(report.cases.find((c) => c.id === 'burst')?.deliveries.sent, 40);
    assert.deepEqual(report.cases.find((c) => c.id === 'duplicate-immediate')?.deliveries.statusCounts, { 200: 2 });
    assert.match(report.cases.find((c) => c.id === 'rate-limited')?.detail ?? '', /no request was answered 429/);
    assert.deepEqual(report.cases.find((c) => c.id === 'baseline')?.datasets, DATASETS);
  });

  it('a consumer that skips a delivery it has seen fails duplicate-after-change, naming what it missed', async () => {
    const report = await checkConsumer({
      ...fakeConsumer({ skipSeen: true }),
      settleMs: 800,
      only: ['duplicate-after-change'],
    });
    assert.deepEqual(
      report.cases.map((c) => [c.id, c.verdict]),
      [
        ['baseline', 'converged'],
        ['duplicate-after-change', 'not-converged'],
      ],
    );
    assert.equal(report.passed, false);
    assert.deepEqual(report.failed, ['duplicate-after-change']);
    const [difference] = report.cases[1]?.difference ?? [];
    assert.equal(difference?.dataset, '/expenses');
    // The change between the copies: one update, one delete, one create.
    assert.deepEqual(
      [difference?.counts.missing, difference?.counts.extra, difference?.counts.different],
      [1, 1, 1],
      JSON.stringify(difference),
    );
    assert.match(
      report.cases[1]?.detail ?? '',
      /^not converged within 0\.8 s: \/expenses: 1 missing \(\d+\), 1 extra \(\d+\), 1 different \(\d+: amount/,
    );
  });

  it('a consumer that stores nothing fails the baseline, and the rest is skipped rather than blamed', async () => {
    const report = await checkConsumer({ ...fakeConsumer({ store: false }), settleMs: 300, only: ['burst'] });
    assert.deepEqual(
      report.cases.map((c) => [c.id, c.verdict, c.failed]),
      [
        ['baseline', 'not-converged', true],
        ['burst', 'skipped', false],
      ],
    );
    assert.match(report.cases[0]?.detail ?? '', /the state holds no expense dataset for user "user_7f3c2a91"/);
  });

  it('refuses before sending anything: an unreadable state, a wrong case, a settle time past the tolerance', async () => {
    let sent = 0;
    const counting: DeliverySender = async () => {
      sent += 1;
      return { status: 200, excerpt: '' };
    };
    const base = { ...fakeConsumer(), send: counting };
    const refused: Array<[Partial<CheckConsumerOptions>, string]> = [
      [{ readState: async () => [] }, 'consumer_state_invalid'],
      [{ only: ['burts'] }, 'unknown_consumer_case'],
      [{ skip: ['baseline'] }, 'unknown_consumer_case'],
      [{ settleMs: 296_000 }, 'invalid_settle'],
      [{ skewSeconds: 300 }, 'invalid_skew'],
    ];
    for (const [change, reason] of refused)
      await assert.rejects(
        checkConsumer({ ...base, ...change }),
        (error: unknown) => error instanceof LedgerhookError && error.details.reason === reason,
        reason,
      );
    assert.equal(sent, 0);
  });

  it('stops when told to, mid-wait, as an interruption (exit 130), not a bug', async () => {
    const controller = new AbortController();
    const base = fakeConsumer();
    const report = checkConsumer({
      ...base,
      settleMs: 60_000,
      only: ['lost-webhook'],
      signal: controller.signal,
      onProgress: (event) => {
        base.onProgress?.(event);
        if (event.type === 'case-start' && event.id === 'lost-webhook') setImmediate(() => controller.abort());
      },
    });
    await assert.rejects(report, (error: unknown) => error instanceof LedgerhookError && error.code === 'ERR_ABORTED');
  });

  it('a consumer that is not there is a network error (exit 3), not a failed check', async () => {
    const down: DeliverySender = async () => {
      throw new LedgerhookError('ERR_NETWORK', 'nothing is listening on 127.0.0.1:9 (connection refused)');
    };
    await assert.rejects(checkConsumer({ ...fakeConsumer(), send: down, settleMs: 200 }), /nothing is listening/);
  });
});
