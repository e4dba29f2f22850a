import { compactVerify } from 'jose/jws/compact/verify';
import { secretKey } from './secrets.js';

/** True when the token's HS256 signature verifies with this secret (HS256 is the only algorithm accepted). */
export async function verifiesWith(token: string, secret: string): Promise<boolean> {
  if (secret.length === 0) return false;
  try {
    await compactVerify(token, await secretKey(secret), { algorithms: ['HS256'] });
    return true;
  } catch {
    return false;
  }
}
