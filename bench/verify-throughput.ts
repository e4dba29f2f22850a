/**
 * Issue 2: library verifications per second against a raw node:crypto baseline that does the
 * same cryptographic work (HMAC-SHA256 over the token input, SHA-256 over the body).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { signWebhook, verifyWebhook } from '../src/index.js';
import { fmt, opsPerSecond, report } from './lib/measure.js';

export async function benchVerifyThroughput(): Promise<void> {
  const secret = 'bench-secret';
  const body = Buffer.from(
    JSON.stringify({ userId: 'u-1', type: 'ENTITY_UPDATE', entities: ['expense', 'invoice', 'bankTransfer'] }),
  );
  const token = await signWebhook(body, secret);
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const raw = await opsPerSecond(() => {
    const mac = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const hash = createHash('sha256').update(body).digest('base64');
    return timingSafeEqual(mac, Buffer.from(signature, 'base64url')) && claims.request_body_sha256 === hash;
  });
  const lib = await opsPerSecond(() => verifyWebhook({ body, token, secrets: secret }));
  report('Library verifications per second', [
    ['raw node:crypto HMAC baseline', `${fmt(raw, 0)} /s`],
    ['verifyWebhook', `${fmt(lib, 0)} /s  ${fmt(lib / raw, 2)}x`],
  ]);
}
