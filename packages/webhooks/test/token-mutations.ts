/**
 * Deliveries for differential tests of verification: tokens from the independent encoder with
 * headers, claims and signatures that break one rule or several, then mutated as text (a character
 * changed, dropped or added, a respelled last character, blanks, a prefix, a segment more or less),
 * each with a body, a clock, a tolerance and options. Seeded: a failure names its case, and rerunning
 * the seed reproduces it.
 */
import { createHmac } from 'node:crypto';
import { bodyHash, makeToken } from './independent-jwt.js';

export const SECRET = 'whsec_ledgerhook_differential_01';
export const BODY = '{"userId":"user-1","type":"ENTITY_UPDATE","entities":["expense","invoice"]}';
export const IAT = 1_700_000_000;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const ODD = '.=+/ \t\n~é';

export interface MutatedDelivery {
  token: string | undefined;
  body: string;
  secrets: Array<string | { secret: string; label?: string }>;
  nowSeconds: number;
  toleranceSeconds: number;
  ignoreExpiry: boolean;
  allowFutureIat: boolean;
  verificationPrefix?: string;
  /** How it was made, for a failing assertion's message. */
  recipe: string[];
}

const b64url = (text: string) => Buffer.from(text).toString('base64url');

export function mutatedDeliveries(count: number, seed = 1): MutatedDelivery[] {
  const random = xorshift(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const chance = (p: number) => random() < p;
  const out: MutatedDelivery[] = [];
  for (let n = 0; n < count; n += 1) {
    const recipe: string[] = [];
    const note = <T>(label: string, value: T): T => {
      recipe.push(`${label}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
      return value;
    };
    const body = note(
      'body',
      pick([BODY, BODY, BODY, BODY, BODY, `${BODY}\n`, JSON.stringify(JSON.parse(BODY), null, 2), '']),
    );
    const hash = note(
      'hash',
      pick<unknown>([
        bodyHash(BODY),
        bodyHash(BODY),
        bodyHash(BODY),
        bodyHash(BODY),
        bodyHash(BODY),
        bodyHash(BODY),
        bodyHash(`${BODY}\n`),
        Buffer.from(bodyHash(BODY), 'base64').toString('hex'),
        bodyHash(BODY).replace(/=$/, ''),
        undefined,
        5,
      ]),
    );
    const iat = note(
      'iat',
      pick<unknown>([
        IAT,
        IAT,
        IAT,
        IAT,
        IAT,
        IAT - 299,
        IAT - 300,
        IAT + 300,
        IAT + 301,
        String(IAT),
        undefined,
        1.5e12,
      ]),
    );
    const claims: Record<string, unknown> = { iat, request_body_sha256: hash };
    if (chance(0.15)) claims.exp = note('exp', pick<unknown>([IAT + 10, IAT, IAT - 10, 'soon', null]));
    if (chance(0.15)) claims.nbf = note('nbf', pick<unknown>([IAT + 1, IAT, IAT - 1, '1', Number.NaN]));
    if (chance(0.1)) claims.note = 'café ✓';
    const header = note(
      'header',
      pick<Record<string, unknown>>([
        ...Array.from({ length: 10 }, () => ({ alg: 'HS256', typ: 'JWT' })),
        { alg: 'HS256' },
        { alg: 'HS256', kid: 'k1' },
        { alg: 'HS256', x: { y: 1 } },
        { alg: 'HS256', crit: ['b64'] },
        { alg: 'none' },
        { alg: 'HS512' },
        { alg: ['HS256'] },
        {},
      ]),
    );
    const alg = header.alg === 'none' ? 'none' : header.alg === 'HS512' ? 'HS512' : 'HS256';
    const signer = note('signer', pick([SECRET, SECRET, SECRET, SECRET, SECRET, 'another-secret']));
    let token: string | undefined = makeToken({ header, claims, secret: signer, alg });
    // Segments that are not JSON objects, signed all the same.
    if (chance(0.03)) {
      const [h, p] = token.split('.');
      const raw = pick(['[1]', 'null', 'x{', '"s"', '']);
      const segments = chance(0.5) ? [b64url(raw), p] : [h, b64url(raw)];
      const input = segments.join('.');
      token = `${input}.${createHmac('sha256', signer).update(input).digest('base64url')}`;
      recipe.push(`raw segment ${JSON.stringify(raw)}`);
    }
    token = mutate(token, random, pick, recipe);
    if (chance(0.02)) token = note('token', pick([undefined, '', '   ']));
    const prefixed = chance(0.08);
    const delivery: MutatedDelivery = {
      token: prefixed && token !== undefined ? `Bearer ${token}` : token,
      body,
      secrets: note(
        'secrets',
        pick([
          [SECRET],
          [SECRET],
          [SECRET],
          ['other'],
          ['', SECRET],
          [
            { secret: 'x', label: 'sandbox' },
            { secret: SECRET, label: 'production' },
          ],
          [`${SECRET}\n`],
        ]),
      ),
      nowSeconds: IAT + note('now', pick([0, 0, 0, 0, 1, 9, 10, 299, 300, 301, -300, -301, 5000])),
      toleranceSeconds: note('tolerance', pick([300, 300, 300, 10, 1])),
      ignoreExpiry: note('ignoreExpiry', chance(0.1)),
      allowFutureIat: note('allowFutureIat', chance(0.1)),
      recipe,
    };
    if (prefixed && chance(0.7)) delivery.verificationPrefix = note('prefix', pick(['Bearer ', 'bearer', 'Token ']));
    out.push(delivery);
  }
  return out;
}

/** One textual mutation, or none (most tokens stay as signed). */
function mutate(token: string, random: () => number, pick: <T>(values: readonly T[]) => T, recipe: string[]): string {
  if (random() < 0.7) return token;
  const at = Math.floor(random() * token.length);
  const segments = token.split('.');
  const kind = pick([
    'change',
    'drop',
    'insert',
    'respell',
    'respell',
    'blanks',
    'pad',
    'extra segment',
    'drop segment',
    'cut',
    'swap signature',
  ]);
  recipe.push(`mutation=${kind}@${at}`);
  switch (kind) {
    case 'change':
      return `${token.slice(0, at)}${pick([...ALPHABET])}${token.slice(at + 1)}`;
    case 'drop':
      return `${token.slice(0, at)}${token.slice(at + 1)}`;
    case 'insert':
      return `${token.slice(0, at)}${pick([...ALPHABET, ...ODD])}${token.slice(at)}`;
    case 'respell': {
      // The last character of a segment, with other spare bits: the same bytes, another spelling.
      const index = Math.floor(random() * segments.length);
      const segment = segments[index] ?? '';
      const last = ALPHABET.indexOf(segment.at(-1) ?? 'A');
      segments[index] = `${segment.slice(0, -1)}${ALPHABET[(last & ~15) | Math.floor(random() * 16)]}`;
      return segments.join('.');
    }
    case 'blanks':
      return `${pick([' ', '\n', '\t', ''])}${token}${pick([' ', '\r\n', '\n', ''])}`;
    case 'pad':
      segments[Math.floor(random() * segments.length)] += pick(['=', '==']);
      return segments.join('.');
    case 'extra segment':
      return `${token}.${pick(['', 'x', 'e30'])}`;
    case 'drop segment':
      return segments.slice(0, 2).join('.');
    case 'cut':
      return token.slice(0, at);
    default:
      return `${segments.slice(0, 2).join('.')}.${makeToken({ claims: { iat: IAT }, secret: SECRET }).split('.')[2]}`;
  }
}

/** xorshift32: a seeded generator, so that a failing mutation is found again from its seed. */
function xorshift(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}
