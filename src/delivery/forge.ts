import { CompactSign } from 'jose/jws/compact/sign';

/**
 * Tokens the service would never send, for testing that receivers reject them
 * (`ledgerhook check-receiver`). Never use these to sign real deliveries.
 */
export async function signWithAlgorithm(
  claims: Record<string, unknown>,
  secret: string,
  alg: 'HS256' | 'HS384' | 'HS512',
): Promise<string> {
  const payload = new TextEncoder().encode(JSON.stringify(claims));
  return new CompactSign(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}

/** An unsecured JWT (alg none): header and claims, and an empty signature. */
export function unsignedToken(claims: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
}
