/**
 * A JWT encoder written straight from RFC 7515/7519 with node:crypto, independent of jose and
 * of ledgerhook, so that interop tests compare two implementations rather than one with itself.
 */
import { createHash, createHmac, generateKeyPairSync, sign as cryptoSign } from 'node:crypto';

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export function bodyHash(body: string | Buffer): string {
  return createHash('sha256').update(body).digest('base64');
}

export function makeToken(options: {
  header?: Record<string, unknown>;
  claims: Record<string, unknown>;
  secret?: string;
  alg?: string;
}): string {
  const alg = options.alg ?? 'HS256';
  const header = b64url(JSON.stringify(options.header ?? { alg, typ: 'JWT' }));
  const payload = b64url(JSON.stringify(options.claims));
  const input = `${header}.${payload}`;
  if (alg === 'none') return `${input}.`;
  if (alg.startsWith('HS')) {
    const signature = createHmac(`sha${alg.slice(2)}`, options.secret ?? '')
      .update(input)
      .digest();
    return `${input}.${b64url(signature)}`;
  }
  if (alg === 'RS256') {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return `${input}.${b64url(cryptoSign('sha256', Buffer.from(input), privateKey))}`;
  }
  if (alg === 'ES256') {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return `${input}.${b64url(cryptoSign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }))}`;
  }
  throw new Error(`unsupported alg ${alg}`);
}

/** Verifies an HS256 compact JWT by recomputing the HMAC; returns the claims or throws. */
export function independentVerify(token: string, secret: string): Record<string, unknown> {
  const [header, payload, signature] = token.split('.');
  const decoded = JSON.parse(Buffer.from(header!, 'base64url').toString());
  if (decoded.alg !== 'HS256') throw new Error(`alg ${decoded.alg}`);
  const expected = b64url(createHmac('sha256', secret).update(`${header}.${payload}`).digest());
  if (expected !== signature) throw new Error('bad signature');
  return JSON.parse(Buffer.from(payload!, 'base64url').toString());
}

export const SECRET = 'whsec_receiver_test_0123456789';
export const ENTITY_UPDATE = { userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense', 'invoice'] };

/** A delivery signed by an implementation independent of ledgerhook (and of jose). */
export function independentDelivery(
  body: unknown,
  options: { secret?: string; iat?: number; alg?: string } = {},
): { body: string; headers: Record<string, string> } {
  const text = JSON.stringify(body);
  const token = makeToken({
    claims: { iat: options.iat ?? Math.floor(Date.now() / 1000), request_body_sha256: bodyHash(text) },
    secret: options.secret ?? SECRET,
    alg: options.alg ?? 'HS256',
  });
  return { body: text, headers: { 'content-type': 'application/json', 'service-verification': token } };
}
