import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryDedupe, Webhooks } from '@ledgerhook/webhooks';
import { dedupeKey } from '../src/receiver/dedupe.js';
import { signWebhook } from '../src/webhook/sign.js';

const SECRET = 'whsec_unit_dedupe';
const START_MS = Date.UTC(2026, 10, 22, 9, 0, 0);
const START_S = START_MS / 1000;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

async function delivery(body: unknown, iat = START_S - 1) {
  const text = JSON.stringify(body);
  return { headers: { 'Service-Verification': await signWebhook(text, SECRET, { iat }) }, body: Buffer.from(text) };
}

/** A Webhooks with dedupe on, an adjustable clock and a count of handler runs. */
function counting(toleranceSeconds?: number) {
  const clock = { now: START_MS };
  const state = { calls: 0, fail: false };
  const webhooks = new Webhooks({
    secret: SECRET,
    toleranceSeconds,
    now: () => clock.now,
    dedupe: memoryDedupe({ now: () => clock.now }),
  })
    .on('LIFECYCLE_EVENT', () => {
      state.calls += 1;
      if (state.fail) throw new Error('temporarily down');
    })
    .onError(() => {});
  return { webhooks, clock, state };
}

// Dedupe is for handlers with side effects: lifecycle events (an ENTITY_UPDATE is never skipped, below).
const VIEWED = { userId: 'u1', type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED', eventData: {} };

describe('dedupe', () => {
  it('processes a retried delivery once, and again after its handlers failed', async () => {
    const { webhooks, state } = counting();
    const signed = await delivery(VIEWED);
    state.fail = true;
    assert.equal((await webhooks.verifyAndReceive(signed)).status, 500);
    state.fail = false;
    assert.deepEqual((await webhooks.verifyAndReceive(signed)).body, { received: true });
    assert.deepEqual((await webhooks.verifyAndReceive(signed)).body, { received: true, duplicate: true });
    assert.equal(state.calls, 2);
    const other = await delivery({ ...VIEWED, userId: 'u2' });
    assert.deepEqual((await webhooks.verifyAndReceive(other)).body, { received: true });
    assert.equal(state.calls, 3);
  });

  it('never runs handlers twice for another spelling of the same signature (Base64Url spare bits): refused as malformed', async () => {
    const { webhooks, state } = counting();
    const signed = await delivery(VIEWED);
    const token = signed.headers['Service-Verification'];
    assert.deepEqual((await webhooks.verifyAndReceive(signed)).body, { received: true });
    const last = BASE64URL.indexOf(token.slice(-1));
    // The low two bits of the 43rd character are padding: flipping them changes no signature byte.
    for (const flip of [1, 2, 3]) {
      const respelt = `${token.slice(0, -1)}${BASE64URL[last ^ flip]}`;
      assert.equal(dedupeKey(respelt), dedupeKey(token));
      const answer = await webhooks.verifyAndReceive({ ...signed, headers: { 'Service-Verification': respelt } });
      // Verification accepts only the canonical spelling, so a respelt token never reaches the handlers.
      assert.deepEqual([answer.status, answer.body], [400, { error: 'malformed_token' }], `flip ${flip}`);
    }
    assert.equal(state.calls, 1);
  });

  const lifetimes = [
    { title: 'a tolerance longer than the default ttl', toleranceSeconds: 600, iat: START_S - 1, replayAfterS: 500 },
    {
      title: 'an iat in the future (accepted up to the tolerance)',
      toleranceSeconds: undefined,
      iat: START_S + 300,
      replayAfterS: 550,
    },
  ];
  for (const { title, toleranceSeconds, iat, replayAfterS } of lifetimes) {
    it(`remembers a key as long as its token is acceptable: ${title}`, async () => {
      const { webhooks, clock, state } = counting(toleranceSeconds);
      const signed = await delivery(VIEWED, iat);
      assert.deepEqual((await webhooks.verifyAndReceive(signed)).body, { received: true });
      clock.now = START_MS + replayAfterS * 1000;
      const replay = await webhooks.verifyAndReceive(signed);
      assert.deepEqual([replay.status, replay.body], [200, { received: true, duplicate: true }]);
      assert.equal(state.calls, 1);
    });
  }

  it('memoryDedupe forgets keys after the ttl asked (at least its own) and keeps at most maxEntries', () => {
    let now = 0;
    const store = memoryDedupe({ ttlSeconds: 10, maxEntries: 2, now: () => now });
    assert.equal(store.claim('a', 1), true);
    assert.equal(store.claim('a', 1), false);
    now = 10_000;
    assert.equal(store.claim('a', 1), true, 'expired keys are forgotten');
    assert.equal(store.claim('long', 60), true);
    now = 30_000;
    assert.equal(store.claim('long', 60), false, 'a longer ttl asked is honoured');
    assert.equal(store.claim('a', 1), true, 'an expired key behind a live one is free again');
    assert.equal(store.claim('c', 1), true);
    assert.equal(store.claim('long', 60), true, 'the oldest key made room');
  });

  it('runs an ENTITY_UPDATE again when it comes twice: an identical one may announce a newer change', async () => {
    let fetches = 0;
    const webhooks = new Webhooks({ secret: SECRET, now: () => START_MS, dedupe: memoryDedupe() }).on(
      'ENTITY_UPDATE',
      () => {
        fetches += 1;
      },
    );
    const signed = await delivery({ userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense'] });
    assert.deepEqual((await webhooks.verifyAndReceive(signed)).body, { received: true });
    assert.deepEqual((await webhooks.verifyAndReceive(signed)).body, { received: true });
    assert.equal(fetches, 2);
    const opted = new Webhooks({
      secret: SECRET,
      now: () => START_MS,
      dedupe: memoryDedupe(),
      dedupeEntityUpdates: true,
    });
    await opted.verifyAndReceive(signed);
    assert.deepEqual((await opted.verifyAndReceive(signed)).body, { received: true, duplicate: true });
  });
});
