/**
 * What the server's timestamps may do (docs/syncing.md): a lastUpdatedDate far ahead of the server's
 * own clock is refused with nothing committed; one behind the stored one is kept as stored within
 * what the run looked back over, and stored with both named past it. One rule for a plain sync, the
 * webhook-driven and queued runs, and reconcile --repair (Postgres: test/scale/server-stamps-postgres).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Agent } from 'undici';
import { SharedBackoff } from '../../src/http/retry-policy.js';
import { storeSync } from '../../src/queue/store-sync.js';
import { FileStore } from '../../src/store/file/file-store.js';
import { reconcileDataset } from '../../src/sync/reconcile.js';
import { checkStampAhead, stampToCommit } from '../../src/sync/server-stamp.js';
import { datasetRef, syncDataset } from '../../src/sync/sync-dataset.js';
import { createWebhookSync, type WebhookSyncEvent } from '../../src/webhook-sync/webhook-sync.js';
import { tempDir } from '../helpers/cli.js';
import { startStampedListServer } from '../helpers/stamped-list-server.js';

const FAR = '9999-12-31T23:59:59.999Z';
const newStore = () => {
  const dir = tempDir();
  return new FileStore({ outDir: join(dir, 'out'), stateFile: join(dir, 'state.json') });
};

describe('the stamp rules in process (server-stamp.ts)', () => {
  const url = new URL('http://127.0.0.1:1/rest/v5/invoices');
  const now = Date.parse('2026-11-24T10:00:00Z');

  it('ahead: judged by the Date header (a whole second), else by our clock; within the allowance it passes', () => {
    const date = 'Tue, 24 Nov 2026 10:00:05 GMT';
    assert.doesNotThrow(() => checkStampAhead('2026-11-24T10:00:05.999Z', date, now, url, 0));
    assert.doesNotThrow(() => checkStampAhead('2026-11-25T09:00:00Z', date, now, url));
    assert.throws(
      () => checkStampAhead(FAR, date, now, url),
      (error: Error & { code: string; details: Record<string, unknown> }) => {
        assert.equal(error.code, 'ERR_BAD_RESPONSE');
        assert.deepEqual(error.details, {
          reason: 'stamp_ahead',
          url: url.href,
          lastUpdatedDate: FAR,
          serverDate: date,
          maxStampAheadMs: 86_400_000,
        });
        assert.match(
          error.message,
          /answered lastUpdatedDate "9999-12-31T23:59:59.999Z", \d+ days ahead of its own Date header \("Tue, 24 Nov 2026 10:00:05 GMT"\): more than the 24h allowed \(the maxStampAhead setting\); nothing was committed/,
        );
        return true;
      },
    );
    // No Date header: this machine's clock (here the injected one) is the judge.
    assert.throws(
      () => checkStampAhead('2026-11-24T12:00:00Z', undefined, now, url, 3_600_000),
      /2h ahead of this machine's clock \(2026-11-24T10:00:00.000Z; the answer had no Date header\): more than the 1h allowed/,
    );
    // A Date header that is not a date counts as none.
    assert.throws(() => checkStampAhead('2026-11-24T12:00:00Z', 'soon', now, url, 3_600_000), /this machine's clock/);
    // A terminal escape in a parenthesised comment (Date.parse accepts it) is never printed.
    assert.throws(
      () => checkStampAhead('9999-12-31 (\u009b31m)', undefined, now, url),
      (error: Error) => !/[\u0080-\u009f]/.test(error.message),
    );
  });

  it("behind: the stored one within what was sent, the server's (named) past it; forms and zones compared as times", () => {
    const stored = '2026-11-24T10:00:05Z';
    assert.deepEqual(stampToCommit(stored, stored, '2026-11-24T10:00:09Z'), {
      lastUpdatedDate: '2026-11-24T10:00:09Z',
    });
    assert.deepEqual(stampToCommit(stored, stored, '2026-11-24T10:00:05.000Z'), {
      lastUpdatedDate: '2026-11-24T10:00:05.000Z',
    });
    assert.deepEqual(stampToCommit(stored, stored, '2026-11-24T11:00:05+01:00'), {
      lastUpdatedDate: '2026-11-24T11:00:05+01:00',
    });
    // Lag 1 s: the server echoes what was sent, or stamps its newest change inside the look-back.
    assert.deepEqual(stampToCommit(stored, '2026-11-24T10:00:04Z', '2026-11-24T10:00:04Z'), {
      lastUpdatedDate: stored,
    });
    assert.deepEqual(stampToCommit(stored, '2026-11-24T10:00:04Z', '2026-11-24T10:00:04.500Z'), {
      lastUpdatedDate: stored,
    });
    assert.deepEqual(stampToCommit(stored, stored, '2020-01-01T00:00:00Z'), {
      lastUpdatedDate: '2020-01-01T00:00:00Z',
      behind: { received: '2020-01-01T00:00:00Z', stored },
    });
    assert.deepEqual(stampToCommit('not a date', 'not a date', '2020-01-01T00:00:00Z'), {
      lastUpdatedDate: '2020-01-01T00:00:00Z',
    });
  });
});

describe('syncDataset: the server stamps in the future, then goes back', () => {
  it('9999 ahead of the Date header: refused, nothing committed (no data, no state), the next good answer syncs', async () => {
    const server = await startStampedListServer({ stamp: FAR });
    const store = newStore();
    const options = { baseUrl: server.baseUrl, token: 't', path: '/invoices', store };
    try {
      await assert.rejects(syncDataset(options), { code: 'ERR_BAD_RESPONSE', message: /9999-12-31T23:59:59\.999Z/ });
      assert.equal(await store.getState(datasetRef(options)), undefined);
      assert.equal(existsSync(store.fileFor({ userId: '', dataset: '/invoices' })), false);
      // The allowance is a setting: a server known to run 2 h ahead passes with 3 h, not with 1 h.
      server.setStamp(new Date(Date.now() + 2 * 3_600_000).toISOString());
      await assert.rejects(
        syncDataset({ ...options, read: { maxStampAheadMs: 3_600_000 } }),
        /more than the 1h allowed/,
      );
      assert.equal((await syncDataset({ ...options, read: { maxStampAheadMs: 3 * 3_600_000 } })).mode, 'full');
    } finally {
      await server.close();
    }
  });

  it('no Date header: judged by our clock (the injected one)', async () => {
    const server = await startStampedListServer({ stamp: '2026-11-24T12:00:00Z', date: null });
    const store = newStore();
    try {
      const options = {
        baseUrl: server.baseUrl,
        token: 't',
        path: '/invoices',
        store,
        read: { maxStampAheadMs: 3_600_000 },
      };
      await assert.rejects(
        syncDataset({ ...options, now: () => Date.parse('2026-11-24T10:00:00Z') }),
        /ahead of this machine's clock/,
      );
      assert.equal((await syncDataset({ ...options, now: () => Date.parse('2026-11-24T11:30:00Z') })).mode, 'full');
    } finally {
      await server.close();
    }
  });

  it('a server whose clock said 9999 and is then put right: the stored 9999 gives way, both named, nothing skipped', async () => {
    const server = await startStampedListServer({ stamp: FAR, date: 'Fri, 31 Dec 9999 23:59:59 GMT' });
    const store = newStore();
    const options = { baseUrl: server.baseUrl, token: 't', path: '/invoices', store };
    try {
      assert.equal((await syncDataset(options)).lastUpdatedDate, FAR, 'consistent with its own clock: accepted');
      server.setDate(undefined);
      server.setStamp('2026-11-20T08:00:00.000Z');
      server.put(3, 3);
      const next = await syncDataset(options);
      assert.equal(server.sent.at(-1), FAR);
      assert.equal(next.mode, 'incremental');
      assert.equal(next.lastUpdatedDate, '2026-11-20T08:00:00.000Z');
      assert.deepEqual(next.stampBehind, { received: '2026-11-20T08:00:00.000Z', stored: FAR });
      assert.equal(next.total, 3);
      assert.equal((await store.getState(datasetRef(options)))?.lastUpdatedDate, '2026-11-20T08:00:00.000Z');
      // And the run after it goes on from the server's date, not from 9999.
      server.setStamp('2026-11-20T08:05:00.000Z');
      const after = await syncDataset(options);
      assert.equal(server.sent.at(-1), '2026-11-20T08:00:00.000Z');
      assert.equal(after.stampBehind, undefined);
    } finally {
      await server.close();
    }
  });

  it('with a lag, a server that echoes the date it was sent never drags the stored one back', async () => {
    const server = await startStampedListServer({ stamp: '2026-11-24T10:00:05Z' });
    const store = newStore();
    const options = { baseUrl: server.baseUrl, token: 't', path: '/invoices', store, read: { lagMs: 1000 } };
    try {
      await syncDataset(options);
      server.setStamp((sent) => sent ?? 'unexpected');
      for (let run = 0; run < 3; run += 1) {
        const quiet = await syncDataset(options);
        assert.equal(quiet.stampBehind, undefined);
        assert.equal(quiet.lastUpdatedDate, '2026-11-24T10:00:05Z');
      }
      assert.deepEqual(server.sent.slice(1), ['2026-11-24T10:00:04Z', '2026-11-24T10:00:04Z', '2026-11-24T10:00:04Z']);
    } finally {
      await server.close();
    }
  });
});

describe('the same rule in the webhook-driven, queued and reconcile runs', () => {
  it('listen --sync: a stamp from the future is a sync-failed (not retried), a stamp that went back a sync-done naming both', async () => {
    const server = await startStampedListServer({ stamp: FAR });
    const store = newStore();
    const events: WebhookSyncEvent[] = [];
    const sync = createWebhookSync({
      baseUrl: server.baseUrl,
      tokenFor: () => 'tok',
      store,
      retry: { firstMs: 5, capMs: 20, max: 3 },
      onEvent: (event) => events.push(event),
    });
    const deliver = async () => {
      sync.handleBody(Buffer.from(JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE', entities: ['invoice'] })));
      await sync.idle();
    };
    try {
      await deliver();
      assert.deepEqual(
        events.map((event) => event.type),
        ['sync-start', 'sync-failed'],
      );
      assert.match((events[1] as { error: string }).error, /9999-12-31T23:59:59\.999Z.*ahead of its own Date header/);
      const ref = datasetRef({ baseUrl: server.baseUrl, token: 'tok', path: '/invoices', userId: 'u1' });
      assert.equal(await store.getState(ref), undefined);
      server.setStamp('2026-11-24T10:00:00.000Z');
      await deliver();
      server.setStamp('2026-11-01T00:00:00.000Z');
      await deliver();
      const done = events.filter((event) => event.type === 'sync-done');
      assert.deepEqual(done.at(-1)?.type === 'sync-done' && done.at(-1)?.summary.stampBehind, {
        received: '2026-11-01T00:00:00.000Z',
        stored: '2026-11-24T10:00:00.000Z',
      });
    } finally {
      await server.close();
    }
  });

  it("the worker's run (storeSync) refuses the future and reports a stamp that went back", async () => {
    const server = await startStampedListServer({ stamp: FAR });
    const store = newStore();
    const dispatcher = new Agent();
    const run = storeSync({ store, baseUrl: server.baseUrl });
    const job = { userId: 'u1', entity: 'invoice', path: '/invoices', filter: {} };
    const input = {
      job,
      token: 'tok',
      dispatcher,
      backoff: new SharedBackoff(),
      signal: new AbortController().signal,
    };
    try {
      await assert.rejects(run(input), (error: Error & { details: { reason: string } }) => {
        assert.equal(error.details.reason, 'stamp_ahead');
        return true;
      });
      server.setStamp('2026-11-24T10:00:00.000Z');
      await run(input);
      server.setStamp('2026-11-01T00:00:00.000Z');
      const summary = await run(input);
      assert.deepEqual(summary.stampBehind, {
        received: '2026-11-01T00:00:00.000Z',
        stored: '2026-11-24T10:00:00.000Z',
      });
    } finally {
      await dispatcher.close();
      await server.close();
    }
  });

  it('reconcile --repair: a stamp from the future repairs nothing', async () => {
    const server = await startStampedListServer({ stamp: '2026-11-24T10:00:00.000Z' });
    const store = newStore();
    const options = { baseUrl: server.baseUrl, token: 't', path: '/invoices', store };
    try {
      await syncDataset(options);
      server.put(3, 3);
      server.setStamp(FAR);
      await assert.rejects(reconcileDataset({ ...options, repair: true }), { message: /ahead of its own Date header/ });
      const state = await store.getState(datasetRef(options));
      assert.equal(state?.lastUpdatedDate, '2026-11-24T10:00:00.000Z');
      server.setStamp('2026-11-24T11:00:00.000Z');
      const repaired = await reconcileDataset({ ...options, repair: true });
      assert.deepEqual(repaired.missing, [3]);
      assert.equal((await store.getState(datasetRef(options)))?.lastUpdatedDate, '2026-11-24T11:00:00.000Z');
    } finally {
      await server.close();
    }
  });
});
