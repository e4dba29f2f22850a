/**
 * check-consumer's watch on the consumer's reads (through the mock's answer gate), with an injected
 * clock: when the consumer counts as idle, that a stall of the check's own process is not counted as the
 * consumer's quiet, and which reads run beside a held one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QUIET_MS, ReadWatch } from '../../src/consumer-check/read-watch.js';
import { MockService } from '../../src/mock/mock-service.js';

/** A clock that moves only when the code under test sleeps; `stall` makes the next sleep take longer. */
function fakeClock() {
  let now = 0;
  let stall = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms + stall;
      stall = 0;
    },
    stallNext: (ms: number) => {
      stall = ms;
    },
    sleeps,
  };
}

const read = (service: MockService, url: string) =>
  service.handle({ method: 'GET', url, headers: { authorization: `Bearer ${service.token}` } });

describe('ReadWatch', () => {
  it('idle: QUIET_MS with nothing read, sent or answered; any activity starts the quiet again; bounded', async () => {
    const service = new MockService({ items: 3 });
    const clock = fakeClock();
    const watch = new ReadWatch(service.answers, clock);
    assert.equal(await watch.idle(10_000), true);
    assert.equal(clock.now(), QUIET_MS);
    let touched = false;
    const started = clock.now();
    const ticking = new ReadWatch(service.answers, {
      now: clock.now,
      sleep: async (ms) => {
        await clock.sleep(ms);
        // A read 200 ms in: the quiet starts over.
        if (!touched && clock.now() - started >= 200) {
          touched = true;
          await read(service, '/rest/v5/expenses');
        }
      },
    });
    assert.equal(await ticking.idle(10_000), true);
    assert.equal(clock.now() - started, 200 + QUIET_MS);
    assert.equal(ticking.reads, 1);
    // A consumer that never stops: the limit.
    const busy = new ReadWatch(service.answers, {
      now: clock.now,
      sleep: async (ms) => {
        await clock.sleep(ms);
        busy.touch();
      },
    });
    assert.equal(await busy.idle(1000), false);
    watch.close();
    ticking.close();
    busy.close();
  });

  it('a stall of the check itself counts as two steps at most, never as the whole quiet', async () => {
    const service = new MockService({ items: 3 });
    const clock = fakeClock();
    const watch = new ReadWatch(service.answers, clock);
    clock.stallNext(5000);
    const started = clock.now();
    assert.equal(await watch.idle(60_000), true);
    // The stalled step (5050 ms) was credited as 100 ms: 400 ms more of steps were needed.
    assert.equal(clock.now() - started, 5050 + QUIET_MS - 100);
    watch.close();
  });

  it('holds the next first page of expenses and counts the reads of its dataset beside it', async () => {
    const service = new MockService({ items: 3 });
    const clock = fakeClock();
    const watch = new ReadWatch(service.answers, clock);
    const hold = watch.holdNextRead();
    // Another entity is not held.
    assert.equal((await read(service, '/rest/v5/clients')).status, 200);
    const first = read(service, '/rest/v5/expenses?type=PENDING');
    const held = await hold.held;
    assert.deepEqual([held?.path, held?.filter], ['/expenses', [['type', 'PENDING']]]);
    await read(service, '/rest/v5/expenses');
    assert.equal(hold.beside(), 0, 'another dataset is not beside it');
    await read(service, '/rest/v5/expenses?type=PENDING');
    assert.equal(hold.beside(), 1);
    let landed = false;
    const idle = await watch.idle(10_000, {
      hold: {
        read: hold,
        landed: async () => {
          landed = true;
          return true;
        },
      },
    });
    assert.deepEqual([idle, landed], [true, true]);
    hold.release();
    assert.equal((await first).status, 200);
    await read(service, '/rest/v5/expenses?type=PENDING');
    assert.equal(hold.beside(), 1, 'not counted once released');
    watch.close();
  });
});
