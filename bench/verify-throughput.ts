/**
 * Library verifications per second against a raw node:crypto floor doing the same work (HMAC-SHA256
 * over the token input, the payload decoded and parsed, SHA-256 over the body, both compared in
 * constant time), interleaved round by round. Goal: verifyWebhook >= 0.8x the floor.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { jwtVerify } from 'jose';
import { signWebhook, verifyWebhook } from '../src/index.js';
import { opsPerSecond } from './lib/measure.js';
import { interleaved, reportRatio } from './lib/ratio.js';

export async function benchVerifyThroughput(rounds = 5): Promise<void> {
  const secret = 'bench-secret';
  const body = Buffer.from(
    JSON.stringify({ userId: 'u-1', type: 'ENTITY_UPDATE', entities: ['expense', 'invoice', 'bankTransfer'] }),
  );
  const token = await signWebhook(body, secret);
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const key = new TextEncoder().encode(secret);
  const variants = {
    raw: () => {
      const mac = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const hash = createHash('sha256').update(body).digest('base64');
      const claimed = Buffer.from(String(claims.request_body_sha256));
      return (
        timingSafeEqual(mac, Buffer.from(signature, 'base64url')) &&
        claimed.length === hash.length &&
        timingSafeEqual(claimed, Buffer.from(hash))
      );
    },
    lib: () => verifyWebhook({ body, token, secrets: secret }),
    // A peer: jose (a general JWT library) with the same HS256 key and the body hash checked by hand.
    jose: async () => {
      const { payload: claims } = await jwtVerify(token, key, { algorithms: ['HS256'] });
      return claims.request_body_sha256 === createHash('sha256').update(body).digest('base64');
    },
  };
  const samples = await interleaved(['raw', 'lib', 'jose'] as const, rounds, (name) =>
    opsPerSecond(variants[name], 400),
  );
  reportRatio(
    'verifyWebhook per second vs raw node:crypto doing the same work',
    { label: 'raw node:crypto HMAC + SHA-256 + JSON.parse', samples: samples.raw },
    { label: 'verifyWebhook', samples: samples.lib },
    { better: 'higher', ratio: 0.8 },
    '/s',
  );
  reportRatio(
    'verifyWebhook per second vs a peer: jose jwtVerify (HS256) + the body hash by hand (nothing else may get slower)',
    { label: 'jose jwtVerify + SHA-256', samples: samples.jose },
    { label: 'verifyWebhook', samples: samples.lib },
    { better: 'higher', ratio: 1 },
    '/s',
  );
}
