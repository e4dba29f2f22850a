import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson as writeJson } from '@ledgerhook/webhooks/node';

/**
 * Everything the inspector serves carries these: no framing, no foreign origin for anything, no
 * inline script or style (a captured value can never run), and the token never leaks in a Referer.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
};

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * DNS rebinding guard: a foreign page whose name resolves to 127.0.0.1 sends its own Host. On a
 * loopback bind only loopback names are answered; an explicit --ui-host also allows that host.
 */
export function hostAllowed(req: IncomingMessage, boundHost: string, loopbackOnly: boolean): boolean {
  const host = req.headers.host;
  if (host === undefined) return false;
  const name = host.replace(/:\d+$/, '').toLowerCase();
  if (!loopbackOnly) return true;
  return LOOPBACK_NAMES.has(name) || name === boundHost.toLowerCase();
}

/** A state-changing request must come from the page itself, not from another origin's form. */
export function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return req.headers['sec-fetch-site'] !== 'cross-site';
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

export function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(body)),
    ...extra,
  });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  writeJson(res, status, value, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8' });
}
