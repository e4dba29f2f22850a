/**
 * A webhook receiver written from spec 5.2 alone (node:http and node:crypto, no ledgerhook code),
 * with switches that make it skip one check each, the way real receivers go wrong.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SpecReceiverOptions {
  secret: string;
  headerName?: string;
  toleranceSeconds?: number;
  acceptAll?: boolean;
  skipExpiry?: boolean;
  /** Follow spec 5.2 to the letter: an iat in the future is never "expired", so it is accepted. */
  acceptFutureIat?: boolean;
  /** PyJWT's default (no leeway): any iat ahead of this clock is refused, a genuine one too. */
  refuseAnyFutureIat?: boolean;
  /** Answer 202 (instead of 400) to what it refuses, and drop it. */
  refuseWith?: number;
  /** Take the verification header's prefix off (e.g. "Bearer ") and require it. */
  prefix?: string;
  skipBodyHash?: boolean;
  anyAlgorithm?: boolean;
}

export interface ReceivedDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  status: number;
  reason: string;
}

/** Why a delivery fails spec 5.2 (with the checks `options` leaves out skipped), or undefined when it passes. */
export function verify(options: SpecReceiverOptions, value: string | undefined, body: Buffer): string | undefined {
  if (!value) return 'missing header';
  if (options.prefix && !value.startsWith(options.prefix)) return 'no prefix';
  const token = options.prefix ? value.slice(options.prefix.length) : value;
  const parts = token.split('.');
  if (parts.length !== 3) return 'not a JWT';
  let header: { alg?: string };
  let claims: { iat?: unknown; request_body_sha256?: unknown };
  try {
    header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString());
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString());
  } catch {
    return 'undecodable';
  }
  if (options.anyAlgorithm) {
    if (header.alg !== 'none') {
      const hash = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[header.alg ?? ''];
      if (!hash) return 'unknown alg';
      const mac = createHmac(hash, options.secret).update(`${parts[0]}.${parts[1]}`).digest('base64url');
      if (mac !== parts[2]) return 'bad signature';
    }
  } else {
    if (header.alg !== 'HS256') return 'alg not allowed';
    const mac = createHmac('sha256', options.secret).update(`${parts[0]}.${parts[1]}`).digest();
    const given = Buffer.from(parts[2]!, 'base64url');
    if (given.length !== mac.length || !timingSafeEqual(given, mac)) return 'bad signature';
  }
  if (!options.skipExpiry) {
    if (typeof claims.iat !== 'number') return 'no iat';
    const age = Math.floor(Date.now() / 1000) - claims.iat;
    if (age >= (options.toleranceSeconds ?? 300)) return 'expired';
    if (!options.acceptFutureIat && -age > (options.toleranceSeconds ?? 300)) return 'issued in the future';
    if (options.refuseAnyFutureIat && age < 0) return 'iat ahead of this clock';
  }
  if (!options.skipBodyHash) {
    const expected = Buffer.from(createHash('sha256').update(body).digest('base64'));
    const claimed = Buffer.from(String(claims.request_body_sha256));
    if (expected.length !== claimed.length || !timingSafeEqual(expected, claimed)) return 'body mismatch';
  }
  return undefined;
}

export async function startSpecReceiver(
  options: SpecReceiverOptions,
): Promise<{ url: string; server: Server; received: ReceivedDelivery[]; close: () => Promise<void> }> {
  const received: ReceivedDelivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const value = req.headers[(options.headerName ?? 'Service-Verification').toLowerCase()];
      const failure = options.acceptAll ? undefined : verify(options, Array.isArray(value) ? value[0] : value, body);
      const status = failure ? (options.refuseWith ?? 400) : 200;
      received.push({ headers: req.headers, body, status, reason: failure ?? 'ok' });
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify(failure ? { error: failure } : { ok: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    server,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
