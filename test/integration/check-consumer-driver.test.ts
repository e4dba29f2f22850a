/**
 * checkConsumer with its edges injected: a stub consumer (answers, stores nothing of its own), the
 * consumer written from the spec (test/helpers/spec-consumer.ts) with behaviours that test how cases
 * are judged, and the real mock on port 0. Each planted bug against its case is
 * check-consumer-races.test.ts; the CLI is test/e2e/check-consumer*.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CheckConsumerOptions,
  type CheckConsumerReport,
  checkConsumer,
  type DeliverySender,
} from '../../src/consumer-check/check-consumer.js';
import { LedgerhookError } from '../../src/errors.js';
import { checkSpecConsumer as checkSpec, SPEC_CONSUMER_SECRET as SECRET } from '../helpers/check-spec-consumer.js';
import { startSpecConsumer } from '../helpers/spec-consumer.js';

/** A consumer that answers 200 and keeps its store empty (or whatever `store` holds). */
function stubConsumer(store: Record<string, unknown[]> = {}) {
  let userId = '';
  const send: DeliverySender = async () => ({ status: 200, excerpt: '{"received":true}' });
  const base: CheckConsumerOptions = {
    to: new URL('http://127.0.0.1:9/webhooks'),
    signing: { secret: SECRET },
    state: { read: async () => ({ users: { [userId]: store } }), label: 'the stub consumer' },
    send,
    mock: { port: 0 },
    onProgress: (event) => {
      if (event.type === 'started') userId = event.userId;
    },
  };
  return base;
}

/** The spec consumer, a short settle: the cases here converge at once or are meant not to. */
const checkSpecConsumer = (
  consumerOptions: Parameters<typeof checkSpec>[0],
  options: Partial<CheckConsumerOptions>,
): Promise<CheckConsumerReport> => checkSpec(consumerOptions, { limits: { settleMs: 1500 }, ...options });

const verdicts = (report: CheckConsumerReport) => report.cases.map((c) => [c.id, c.verdict, c.failed]);

// Each test has its own mock (port 0) and consumer: they run side by side, mostly waiting on settle windows.
describe('checkConsumer (edges injected)', { concurrency: true }, () => {
  it('cases are judged on their own: a case after one that failed starts from a store brought back, or is not run', async () => {
    // The consumer's own clock loses the change made while its read was held; changed again and announced,
    // the items come back, and near-expiry runs from an equal store.
    const [clock, deleted] = await Promise.all([
      checkSpecConsumer({ bug: 'own-clock' }, { cases: { only: ['stale-page-after-change', 'near-expiry'] } }),
      checkSpecConsumer({ bug: 'ignore-deleted-ids' }, { cases: { only: ['retype-out-of-filter', 'near-expiry'] } }),
    ]);
    assert.deepEqual(verdicts(clock), [
      ['baseline', 'converged', false],
      ['stale-page-after-change', 'not-converged', true],
      ['near-expiry', 'converged', false],
    ]);
    assert.match(clock.cases[1]?.detail ?? '', /^not converged within 1\.5 s: \/expenses: 1 different \(\d+: amount\)/);
    assert.match(
      clock.cases[2]?.detail ?? '',
      /it started from a store brought back to the service after stale-page-after-change/,
    );
    assert.deepEqual([clock.passed, clock.failed, clock.notRun], [false, ['stale-page-after-change'], []]);
    // An item kept after it left the service cannot be brought back: the next case is not run, not failed.
    assert.deepEqual(verdicts(deleted), [
      ['baseline', 'converged', false],
      ['retype-out-of-filter', 'not-converged', true],
      ['near-expiry', 'skipped', false],
    ]);
    assert.match(
      deleted.cases[2]?.detail ?? '',
      /^not run: the store already differed before it \(\/expenses: 1 extra \(\d+\).*\), since retype-out-of-filter$/,
    );
    assert.deepEqual([deleted.failed, deleted.notRun], [['retype-out-of-filter'], ['near-expiry']]);
  });

  it('lost-webhook converges only for a consumer that reads on its own, not through a read left over from an earlier case', async () => {
    // A read 300 ms after every delivery would have brought the change made right after the baseline.
    const [followUp, polling] = await Promise.all([
      checkSpecConsumer({ followUpMs: 300 }, { cases: { only: ['lost-webhook'] } }),
      checkSpecConsumer({ pollMs: 100 }, { cases: { only: ['lost-webhook'] } }),
    ]);
    assert.deepEqual(verdicts(followUp), [
      ['baseline', 'converged', false],
      ['lost-webhook', 'not-converged', false],
    ]);
    assert.match(followUp.cases[1]?.detail ?? '', /only a reconcile .* catches this/);
    assert.deepEqual([followUp.passed, followUp.limitations], [true, ['lost-webhook']]);
    assert.equal(polling.cases[1]?.verdict, 'converged');
    assert.match(
      polling.cases[1]?.detail ?? '',
      /never stopped reading the service for 0\.5 s: it polls; your consumer caught a change no webhook announced, reading the service on its own \(\d+ list requests? after the change\)/,
    );
  });

  it('--with-receiver-checks sends the forged and altered deliveries first; a consumer that accepts them fails', async () => {
    const careful = await checkSpecConsumer({}, { cases: { only: ['near-expiry'], withReceiverChecks: true } });
    assert.equal(
      careful.receiver?.passed,
      true,
      JSON.stringify(careful.receiver?.cases.filter((c) => c.verdict !== 'pass')),
    );
    assert.equal(careful.passed, true);
    const trusting = await checkSpecConsumer(
      { checks: { anyAlgorithm: true } },
      { cases: { only: ['near-expiry'], withReceiverChecks: true } },
    );
    assert.deepEqual(verdicts(trusting).at(-1), ['near-expiry', 'converged', false]);
    assert.ok(trusting.receiver?.failed.includes('alg-none'), JSON.stringify(trusting.receiver?.failed));
    assert.deepEqual([trusting.passed, trusting.failed], [false, []]);
  });

  it('a consumer that stores nothing fails the baseline, and the rest is skipped rather than blamed', async () => {
    const report = await checkConsumer({ ...stubConsumer(), limits: { settleMs: 300 }, cases: { only: ['burst'] } });
    assert.deepEqual(verdicts(report), [
      ['baseline', 'not-converged', true],
      ['burst', 'skipped', false],
    ]);
    assert.match(report.cases[0]?.detail ?? '', /the state holds no expense dataset for user "user_7f3c2a91"/);
    assert.equal(
      report.cases[1]?.detail,
      'not run: the store already differed before it (no expense dataset in the state), since baseline',
    );
    assert.equal(report.receiver, null);
  });

  it('refuses before sending anything: an unreadable state, a wrong case, a settle time past the tolerance', async () => {
    let sent = 0;
    const counting: DeliverySender = async () => {
      sent += 1;
      return { status: 200, excerpt: '' };
    };
    const base = { ...stubConsumer(), send: counting };
    const refused: Array<[Partial<CheckConsumerOptions>, string]> = [
      [{ state: { read: async () => [] } }, 'consumer_state_invalid'],
      [{ cases: { only: ['burts'] } }, 'unknown_consumer_case'],
      [{ cases: { skip: ['baseline'] } }, 'unknown_consumer_case'],
      [{ limits: { settleMs: 296_000 } }, 'invalid_settle'],
      [{ signing: { secret: SECRET, skewSeconds: 300 } }, 'invalid_skew'],
    ];
    for (const [change, reason] of refused)
      await assert.rejects(
        checkConsumer({ ...base, ...change }),
        (error: unknown) => error instanceof LedgerhookError && error.details.reason === reason,
        reason,
      );
    assert.equal(sent, 0);
  });

  it('stops when told to, mid-wait and with a read held, as an interruption (exit 130), not a bug', async () => {
    for (const stopAt of ['lost-webhook', 'change-during-fetch']) {
      const controller = new AbortController();
      const consumer = await startSpecConsumer({ secret: SECRET });
      const report = checkConsumer({
        to: new URL(consumer.url),
        signing: { secret: SECRET },
        state: { read: async () => consumer.state() },
        mock: { port: 0 },
        limits: { settleMs: 60_000 },
        cases: { only: [stopAt] },
        signal: controller.signal,
        onProgress: (event) => {
          if (event.type === 'started') consumer.setApi(event.apiUrl, event.token);
          if (event.type === 'case-start' && event.id === stopAt) setImmediate(() => controller.abort());
        },
      });
      await assert.rejects(
        report,
        (error: unknown) => error instanceof LedgerhookError && error.code === 'ERR_ABORTED',
      );
      await consumer.close();
    }
  });

  it('a consumer that is not there is a network error (exit 3), not a failed check', async () => {
    const down: DeliverySender = async () => {
      throw new LedgerhookError('ERR_NETWORK', 'nothing is listening on 127.0.0.1:9 (connection refused)');
    };
    await assert.rejects(
      checkConsumer({ ...stubConsumer(), send: down, limits: { settleMs: 200 } }),
      /nothing is listening/,
    );
  });
});
