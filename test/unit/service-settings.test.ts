/**
 * How sync, reconcile, listen --sync and worker settle the settings probe writes: the flag, else
 * the stored setting of the environment, else the default; a stored value that does not parse is
 * refused naming the setting and how to set it again.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CliContext } from '../../src/cli/context.js';
import {
  resolveLag,
  resolvePageLimit,
  resolveRateLimit,
  resolveTolerance,
} from '../../src/cli/resolve-service-settings.js';
import { tempDir } from '../helpers/cli.js';

function contextWith(sandbox: Record<string, string>): CliContext {
  const dir = tempDir();
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ environments: { sandbox } }));
  return { env: { LEDGERHOOK_CONFIG_DIR: dir }, signal: new AbortController().signal } as unknown as CliContext;
}

describe('the service settings, as the commands settle them', () => {
  it('nothing stored: the defaults (100, no lag, no rate, 300 s)', async () => {
    const ctx = contextWith({});
    const flags = { env: 'sandbox' };
    assert.equal(await resolvePageLimit(flags, ctx), 100);
    assert.equal(await resolveLag(flags, ctx), 0);
    assert.equal(await resolveRateLimit(flags, ctx), undefined);
    assert.equal(await resolveTolerance(flags, ctx), 300);
  });

  it('stored: used with no flag; a flag still wins', async () => {
    const ctx = contextWith({ pageLimit: '50', lag: '1s', rateLimit: '600/60', tolerance: '600' });
    const flags = { env: 'sandbox' };
    assert.equal(await resolvePageLimit(flags, ctx), 50);
    assert.equal(await resolveLag(flags, ctx), 1000);
    assert.deepEqual(await resolveRateLimit(flags, ctx), { requests: 600, windowSeconds: 60 });
    assert.equal(await resolveTolerance(flags, ctx), 600);
    assert.equal(await resolvePageLimit({ ...flags, limit: 7 }, ctx), 7);
    assert.equal(await resolveLag({ ...flags, lag: 0 }, ctx), 0);
    assert.deepEqual(await resolveRateLimit({ ...flags, rateLimit: '10/1' }, ctx), { requests: 10, windowSeconds: 1 });
    assert.equal(await resolveTolerance({ ...flags, tolerance: 30 }, ctx), 30);
  });

  it('a stored value that does not parse: a usage error naming the setting and how to set it', async () => {
    const ctx = contextWith({ lag: 'soon', rateLimit: 'lots' });
    await assert.rejects(resolveLag({ env: 'sandbox' }, ctx), {
      code: 'ERR_USAGE',
      message: /the stored lag for sandbox: "soon" is not a duration.*ledgerhook config set lag 1s --env sandbox/,
    });
    await assert.rejects(resolveRateLimit({ env: 'sandbox' }, ctx), { message: /the stored rateLimit for sandbox/ });
    await assert.rejects(resolveRateLimit({ env: 'sandbox', rateLimit: '5' }, ctx), { message: /--rate-limit takes/ });
  });
});
