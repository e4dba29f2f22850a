/** The mock's faults, latency, churn, refusals and mutation checks. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LedgerhookError } from '../../src/errors.js';
import { churnMutation, churnSeconds, createChurn, type ChurnTimer } from '../../src/mock/churn.js';
import { FaultInjector } from '../../src/mock/faults.js';
import { mockError, mockErrorResponse } from '../../src/mock/mock-error.js';
import { MockService } from '../../src/mock/mock-service.js';
import { checkMutationSpec, mutationCounts } from '../../src/mock/mutations.js';

describe('FaultInjector', () => {
  const request = (token: string) => ({ method: 'GET', url: '/', headers: { authorization: `Bearer ${token}` } });

  it('rate-limits per token within a window, then opens a new window', () => {
    let now = 0;
    const faults = new FaultInjector(
      { rateLimit: { requests: 2, windowSeconds: 10 } },
      () => 0.99,
      () => now,
    );
    assert.equal(faults.check(request('a')), undefined);
    assert.equal(faults.check(request('a')), undefined);
    now = 4000;
    const limited = faults.check(request('a'));
    assert.deepEqual([limited?.status, limited?.headers['retry-after']], [429, '6']);
    assert.equal(faults.check(request('b')), undefined, 'another token has its own window');
    now = 10_000;
    assert.equal(faults.check(request('a')), undefined, 'a new window');
  });

  it('drops or fails by the injected random source, and answers normally otherwise', () => {
    const rolls = [0.1, 0.9, 0.1, 0.7];
    const faults = new FaultInjector(
      { dropRate: 0.5, failRate: 0.5 },
      () => rolls.shift() ?? 0.9,
      () => 0,
    );
    assert.equal(faults.check(request('a'))?.drop, true);
    const failed = faults.check(request('a'));
    assert.equal(failed?.status, 503);
    assert.doesNotMatch(JSON.stringify(failed?.body), /--/, 'no CLI flag in a library message');
    assert.equal(
      new FaultInjector(
        {},
        () => 0,
        () => 0,
      ).check(request('a')),
      undefined,
    );
  });
});

describe('MockService.setFaults', () => {
  it('turns faults on and off while it runs, counting what it injected', async () => {
    const service = new MockService({ items: 1 });
    const get = () =>
      service.handle({
        method: 'GET',
        url: '/rest/v5/expenses',
        headers: { authorization: `Bearer ${service.token}` },
      });
    assert.equal((await get()).status, 200);
    const counts = service.setFaults({ rateLimit: { requests: 1, windowSeconds: 60 } });
    assert.deepEqual([(await get()).status, (await get()).status, (await get()).status], [200, 429, 429]);
    assert.deepEqual(counts, { rateLimited: 2, failed: 0, dropped: 0 });
    assert.deepEqual(service.setFaults(undefined), { rateLimited: 0, failed: 0, dropped: 0 });
    assert.equal((await get()).status, 200);
  });
});

describe('MockService with latency', () => {
  it('asks the adapter to delay the answer instead of waiting itself (handle stays a plain function)', async () => {
    const service = new MockService({ items: 1, faults: { latencyMs: 50 } });
    const headers = { authorization: `Bearer ${service.token}` };
    const answer = await service.handle({ method: 'GET', url: '/rest/v5/expenses', headers });
    assert.deepEqual([answer.status, answer.delayMs], [200, 50]);
    const plain = await new MockService({ items: 1 }).handle({ method: 'GET', url: '/rest/v5/expenses', headers });
    assert.equal(plain.delayMs, undefined);
  });
});

describe('churn', () => {
  it('rounds follow the fixed plan: mostly expenses, deletes every 4th round, retypes only expenses', () => {
    assert.deepEqual(churnMutation(1), { path: '/expenses', create: 2, update: 2, delete: 0, retype: 0 });
    assert.deepEqual(churnMutation(2), { path: '/expenses', create: 3, update: 1, delete: 0, retype: 1 });
    assert.deepEqual(churnMutation(4), { path: '/bankTransfers', create: 2, update: 1, delete: 1, retype: 0 });
    assert.equal(churnMutation(7).path, '/expenses', 'the plan repeats after 6 rounds');
  });

  it('runs on an injected timer, restarts on a new interval and stops', () => {
    const started: number[] = [];
    let tick: (() => void) | undefined;
    let stops = 0;
    const timer: ChurnTimer = {
      start(intervalMs, fire) {
        started.push(intervalMs);
        tick = fire;
        return () => {
          stops += 1;
        };
      },
    };
    const service = new MockService({ items: 20, otherItems: 5 });
    const churn = createChurn((spec) => service.mutate(spec), timer);
    churn.set(2);
    tick?.();
    tick?.();
    assert.deepEqual(started, [2000]);
    churn.set(0.5);
    assert.deepEqual([started, stops], [[2000, 500], 1]);
    churn.set(undefined);
    assert.equal(stops, 2);
    assert.equal(service.dataset('/expenses').data.length, 20 + 2 + 3 - 0, 'two rounds of creates, no delete yet');
  });

  it('reads { "seconds": n } from the control body', () => {
    for (const [body, expected] of [
      [{ seconds: 2 }, 2],
      [{ seconds: '1.5' }, 1.5],
      [{ seconds: 0 }, undefined],
      [{ seconds: -1 }, undefined],
      [{ seconds: 'soon' }, undefined],
      [{}, undefined],
      [null, undefined],
    ] as const)
      assert.equal(churnSeconds(body), expected, JSON.stringify(body));
  });
});

describe('mock errors and mutation checks', () => {
  it('a refusal is a LedgerhookError with details.reason and details.status, answered as JSON', () => {
    const error = mockError(405, 'method_not_allowed', 'POST is not supported here', { allow: 'GET' });
    assert.ok(error instanceof LedgerhookError);
    assert.equal(error.code, 'ERR_USAGE');
    assert.deepEqual(mockErrorResponse(error), {
      status: 405,
      headers: { allow: 'GET' },
      body: { error: 'method_not_allowed', message: 'POST is not supported here' },
    });
    assert.equal(mockErrorResponse(new Error('boom')), undefined, 'other errors are not answered as refusals');
    assert.equal(mockErrorResponse(new LedgerhookError('ERR_IO', 'disk')), undefined);
  });

  it('mutate refuses bad specs with reason invalid_body, before changing anything', () => {
    const service = new MockService({ items: 3 });
    for (const spec of [
      null,
      {},
      { path: 3 },
      { path: '/expenses', create: -1 },
      { path: '/expenses', update: 1.5 },
      { path: '/expenses', updateIds: '100001' },
      { path: '/expenses', updateIds: [1.5] },
    ])
      assert.throws(() => service.mutate(spec as never), { details: { reason: 'invalid_body', status: 400 } });
    assert.throws(() => service.mutate({ path: '/unicorns' }), { details: { reason: 'not_found', status: 404 } });
    assert.throws(() => service.mutate({ path: '/expenses', retype: 1, retypeTo: 'PENDING' }), {
      details: { reason: 'invalid_body', status: 400 },
    });
    assert.throws(() => service.mutate({ path: '/clients', retype: 1 }), /have no type to change/);
    assert.equal(service.dataset('/expenses').data.length, 3);
    assert.deepEqual(mutationCounts(checkMutationSpec({ path: '/x', create: 2 })), {
      creates: 2,
      updates: 0,
      deletes: 0,
      retypes: 0,
      updateIds: [],
    });
  });
});
