/** check-consumer's wait: polls until equal or the deadline, with an injected clock and sleep (no real time). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type StateComparison, settle } from '../../src/consumer-check/settle.js';
import { LedgerhookError } from '../../src/errors.js';

/** A clock that moves only when the code under test sleeps (or a read takes `readMs`). */
function fakeTime(readMs = 0) {
  let now = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    read: () => {
      now += readMs;
    },
    sleeps,
  };
}

const equal: StateComparison = { converged: true, datasets: ['/expenses'], difference: [] };
const unequal: StateComparison = { converged: false, datasets: ['/expenses'], difference: [] };

describe('settle', () => {
  it('returns at the first poll that shows convergence, backing off in between', async () => {
    const time = fakeTime();
    const polls = [unequal, unequal, unequal, equal];
    const settled = await settle({
      readState: async () => polls.shift(),
      compare: (document) => document as StateComparison,
      settleMs: 10_000,
      ...time,
    });
    assert.equal(settled.converged, true);
    assert.deepEqual(time.sleeps, [50, 100, 200]);
    assert.equal(settled.waitedMs, 350);
  });

  it('polls one last time at the deadline', async () => {
    const time = fakeTime();
    const settled = await settle({
      readState: async () => unequal,
      compare: (d) => d as StateComparison,
      settleMs: 1000,
      ...time,
    });
    assert.equal(settled.converged, false);
    assert.deepEqual(time.sleeps, [50, 100, 200, 400, 250]);
    assert.equal(settled.waitedMs, 1000);
  });

  it('never runs a slow state command back to back', async () => {
    const time = fakeTime(700);
    let reads = 0;
    const settled = await settle({
      readState: async () => {
        reads += 1;
        time.read();
        return unequal;
      },
      compare: (document) => document as StateComparison,
      settleMs: 2000,
      ...time,
    });
    // A read at 0 (ends at 700), a pause as long as the read, one at 1400 that ends past the deadline.
    assert.deepEqual([time.sleeps, reads, settled.waitedMs, settled.converged], [[700], 2, 2100, false]);
  });

  it('a state that cannot be read is "not yet"; at the deadline the reason is kept; a stop is a stop', async () => {
    const time = fakeTime();
    const failing = async () => {
      throw new LedgerhookError('ERR_USAGE', 'the state command exited with 1');
    };
    const settled = await settle({ readState: failing, compare: () => equal, settleMs: 500, ...time });
    assert.deepEqual([settled.converged, settled.readError], [false, 'the state command exited with 1']);
    await assert.rejects(
      settle({
        readState: async () => {
          throw new LedgerhookError('ERR_ABORTED', 'stopped');
        },
        compare: () => equal,
        settleMs: 500,
        ...time,
      }),
      /stopped/,
    );
  });
});
