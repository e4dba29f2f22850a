/*
 * What an HTTP header may be, as the client that sends it (undici, like Node's own http) checks it:
 * the one rule for names and values everywhere, pure so that the inspector page runs it too.
 */

/** RFC 9110 token: what an HTTP header name may be. */
export const isHeaderName = (name: string): boolean => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name);

/** The first character a header value cannot carry: anything but a tab, visible ASCII, a space and U+0080–U+00FF. */
const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/u;

/**
 * What is wrong with a header value for the client, or undefined: no line break, NUL or other
 * control (a tab is fine), and nothing past U+00FF (a header is Latin-1 on the wire; undici refuses
 * the request otherwise).
 */
export function headerValueProblem(value: string): string | undefined {
  const found = UNSENDABLE.exec(value)?.[0];
  if (found === undefined) return undefined;
  if ((found.codePointAt(0) ?? 0) < 0x80) return 'a line break or control character in its value';
  return `${JSON.stringify(found)} in its value: a header carries Latin-1 only (up to U+00FF); percent-encode it`;
}

/** Whether the client would send this header value (headerValueProblem finds nothing). */
export const isHeaderValue = (value: string): boolean => !UNSENDABLE.test(value);

/**
 * Headers that belong to one connection, not to the message (hop-by-hop, and those the client sets
 * for its own request): never passed on by a forward, a replay or the recording proxy.
 */
export const CONNECTION_HEADERS: readonly string[] = [
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'expect',
];
