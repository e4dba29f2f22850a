/**
 * Issues 2 and 23: library verifications per second against a raw node:crypto baseline that does the
 * same cryptographic work (HMAC-SHA256 over the token input, SHA-256 over the body, the payload
 * decoded and parsed), interleaved round by round. Goal (issue 23): verifyWebhook >= 0.85x the floor.
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
      return timingSafeEqual(mac, Buffer.from(signature, 'base64url')) && claims.request_body_sha256 === hash;
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
    'verifyWebhook per second vs raw node:crypto doing the same work (issue 23)',
    { label: 'raw node:crypto HMAC + SHA-256 + JSON.parse', samples: samples.raw },
    { label: 'verifyWebhook', samples: samples.lib },
    { better: 'higher', ratio: 0.85 },
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
