/**
 * The listener's and the sync's option bags are resolved once, in one place: what an omitted group
 * or field comes out as, and the two rules that join fields of different groups.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_EXPIRED_CURSOR_STATUSES,
  DEFAULT_HEADER_NAME,
  DEFAULT_LISTEN_PORT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_STAMP_AHEAD_MS,
  DEFAULT_PAGE_LIMIT,
  DEFAULT_TOLERANCE_SECONDS,
} from '../../src/defaults.js';
import { DEFAULT_MAX_WAIT_MS, DEFAULT_RETRY_POLICY } from '../../src/http/retry-policy.js';
import { DEFAULT_MAX_BUFFERED_BODY_BYTES, normalizeListenerOptions } from '../../src/listen/listener-options.js';
import type { DatasetStore } from '../../src/store/dataset-store.js';
import { normalizeSyncDatasetOptions } from '../../src/sync/sync-options.js';

describe('normalizeListenerOptions', () => {
  it('gives every omitted group its defaults', () => {
    const resolved = normalizeListenerOptions({});
    assert.equal(resolved.port, DEFAULT_LISTEN_PORT);
    assert.deepEqual(resolved.verification, {
      secrets: [],
      headerName: DEFAULT_HEADER_NAME,
      verificationPrefix: undefined,
      toleranceSeconds: DEFAULT_TOLERANCE_SECONDS,
      allowFutureIat: false,
      acceptInvalid: false,
    });
    assert.deepEqual(resolved.forward.routes, []);
    assert.equal(resolved.forward.to, undefined);
    assert.equal(resolved.limits.maxBodyBytes, DEFAULT_MAX_BODY_BYTES);
    assert.equal(resolved.limits.maxBufferedBodyBytes, DEFAULT_MAX_BUFFERED_BODY_BYTES);
    assert.deepEqual(resolved.subscribers, []);
  });

  it('never lets the buffered-body budget fall below the largest body allowed', () => {
    const big = DEFAULT_MAX_BUFFERED_BODY_BYTES * 2;
    const resolved = normalizeListenerOptions({ limits: { maxBodyBytes: big, maxBufferedBodyBytes: 1024 } });
    assert.equal(resolved.limits.maxBufferedBodyBytes, big);
  });

  it('refuses a bad tolerance before anything is bound', () => {
    assert.throws(() => normalizeListenerOptions({ verification: { toleranceSeconds: -1 } }), { code: 'ERR_USAGE' });
  });

  it('refuses secrets given flat (built beforehand, where the compiler does not look): ignored, nothing would be verified', () => {
    const flat: object = { port: 0, secrets: ['whsec_local'] };
    assert.throws(() => normalizeListenerOptions(flat as Parameters<typeof normalizeListenerOptions>[0]), {
      code: 'ERR_USAGE',
      message: /secrets is given as verification\.secrets/,
      details: { reason: 'option_moved', option: 'secrets', to: 'verification.secrets' },
    });
  });
});

describe('normalizeSyncDatasetOptions', () => {
  const base = { baseUrl: 'http://127.0.0.1:9/rest/v5', token: 't', path: '/x', store: {} as DatasetStore };

  it('gives every omitted group its defaults', () => {
    const resolved = normalizeSyncDatasetOptions(base);
    assert.equal(resolved.userId, '');
    assert.deepEqual(resolved.read, {
      limit: DEFAULT_PAGE_LIMIT,
      lagMs: 0,
      maxStampAheadMs: DEFAULT_MAX_STAMP_AHEAD_MS,
      expiredCursorStatuses: DEFAULT_EXPIRED_CURSOR_STATUSES,
      full: false,
      resume: true,
      since: undefined,
    });
    assert.deepEqual(resolved.output, { keepDeleted: false, dryRun: false, verify: false, contract: 'evolve' });
    assert.equal(resolved.limits.maxPages, DEFAULT_MAX_PAGES);
    assert.equal(resolved.limits.maxWaitMs, DEFAULT_MAX_WAIT_MS);
    assert.deepEqual(resolved.history, { cause: 'sync', deliveryId: undefined });
  });

  it('puts limits.maxWaitMs into the retry policy; without it the policy keeps its own', () => {
    const both = normalizeSyncDatasetOptions({
      ...base,
      retry: { ...DEFAULT_RETRY_POLICY, maxWaitMs: 9_000 },
      limits: { maxWaitMs: 5_000 },
    });
    assert.equal(both.retry.maxWaitMs, 5_000);
    assert.equal(both.limits.maxWaitMs, 5_000);
    const policyOnly = normalizeSyncDatasetOptions({ ...base, retry: { ...DEFAULT_RETRY_POLICY, maxWaitMs: 9_000 } });
    assert.equal(policyOnly.retry.maxWaitMs, 9_000);
    assert.equal(policyOnly.limits.maxWaitMs, 9_000);
  });

  it('refuses a grouped option given flat (dryRun would otherwise write data and state)', () => {
    const flat: object = { ...base, dryRun: true };
    assert.throws(() => normalizeSyncDatasetOptions(flat as typeof base), {
      code: 'ERR_USAGE',
      details: { reason: 'option_moved', option: 'dryRun', to: 'output.dryRun' },
    });
  });
});
