import { DEFAULT_HEADER_NAME } from '../defaults.js';
import type { WebhookBody } from './body-hash.js';
import { verifyWebhook, type VerifyResult, type VerifyWebhookOptions } from './verify.js';

/** Node's IncomingMessage.headers, a fetch Headers, or any plain object of header values. */
export type HeadersLike = { get(name: string): string | null } | Record<string, string | readonly string[] | undefined>;

export type HeaderLookup = { value: string | undefined; count: number };

/** Finds a header case-insensitively; reports how often it appears so duplicates can be refused. */
export function findHeader(headers: HeadersLike, name: string): HeaderLookup {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const value = (headers as { get(name: string): string | null }).get(name);
    return { value: value ?? undefined, count: value === null ? 0 : 1 };
  }
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    if (typeof value === 'string') values.push(value);
    else values.push(...value);
  }
  return { value: values[0], count: values.length };
}

/** Options of `verifyWebhookRequest`: those of `verifyWebhook`, with the request headers and the header name in place of the token. */
export interface VerifyWebhookRequestOptions extends Omit<VerifyWebhookOptions, 'token' | 'body'> {
  headers: HeadersLike;
  /** The raw request body, byte for byte as received (never a re-serialised object). */
  body: WebhookBody;
  headerName?: string | undefined;
}

/**
 * Verifies a delivery from its request headers and raw body: give it `req.headers` (or a fetch
 * `Headers`) and the raw body bytes, and it finds the verification header in any case and verifies
 * as `verifyWebhook` does. A header sent twice is refused as malformed: which of the two was signed
 * cannot be told.
 */
export async function verifyWebhookRequest(options: VerifyWebhookRequestOptions): Promise<VerifyResult> {
  const { headers, headerName: chosen, ...rest } = options;
  const headerName = chosen ?? DEFAULT_HEADER_NAME;
  const found = findHeader(headers, headerName);
  if (found.count > 1) {
    return {
      ok: false,
      code: 'malformed_token',
      message: `the ${headerName} header appears ${found.count} times; a delivery carries exactly one`,
      hints: [],
      warnings: [],
      checks: [{ name: 'token', status: 'fail', detail: `${found.count} ${headerName} headers` }],
    };
  }
  return verifyWebhook({ ...rest, token: found.value });
}
