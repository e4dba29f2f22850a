import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startListener } from '../../src/api/listen.js';
import { maskSecret } from '../../packages/webhooks/src/webhook/secrets.js';

describe('blank secrets are refused at start-up, not answered 500 per delivery', () => {
  for (const secrets of [[''], ['   '], ['good-secret', { secret: '\n', label: 'rotation' }]]) {
    it(`startListener refuses ${JSON.stringify(secrets)}`, async () => {
      await assert.rejects(
        startListener({ port: 0, verification: { secrets } }),
        (error: { code?: string; details?: { reason?: string } }) =>
          error.code === 'ERR_USAGE' && error.details?.reason === 'empty_secret',
      );
    });
  }
});

describe('maskSecret', () => {
  it('shows no character and no length of the secret, and tells two secrets apart', () => {
    const secret = 'whsec_abcdefghijklmnopqrstuvwxyz0123';
    const masked = maskSecret(secret);
    assert.match(masked, /^set \(fingerprint [0-9a-f]{8}\)$/);
    // The whole output is the fixed words and 8 hex digits: nothing of the secret, not its length.
    assert.equal(maskSecret(secret), masked);
    assert.notEqual(maskSecret(`${secret}x`), masked);
  });
});
