import { shellQuote } from '../util/shell-quote.js';

export interface CurlParts {
  url: string;
  body: Buffer;
  contentType: string;
  /** The verification header's name: from a capture file, so quoted like any other captured value. */
  headerName: string;
  /** Re-sign with `ledgerhook sign -`; else send `token` as captured. */
  resign: boolean;
  token: string;
  /** The variable `ledgerhook sign` reads the secret from (named in the comment, never valued). */
  secretEnv: string;
  /** Put before a re-signed token, as the service would (the verificationPrefix setting). */
  verificationPrefix?: string | undefined;
}

/**
 * A copy-and-paste curl command that sends the body byte for byte and never contains the secret.
 * Every captured value is single-quoted. The body is never given as `--data-binary "$BODY"`: a body
 * starting with `@` would make curl upload a local file instead; text goes as `--data-raw`, other
 * bytes through a pipe (`@-`), since a shell variable cannot hold them exactly.
 */
export function curlCommand(parts: CurlParts): string {
  const text = parts.body.toString('utf8');
  const exact = Buffer.from(text, 'utf8').equals(parts.body) && !text.includes('\0');
  const setBody = exact ? `BODY=${shellQuote(text)}` : `BODY_BASE64=${shellQuote(parts.body.toString('base64'))}`;
  const bytes = exact ? 'printf %s "$BODY"' : 'printf %s "$BODY_BASE64" | base64 -d';
  const header = parts.resign
    ? `${shellQuote(`${parts.headerName}: ${parts.verificationPrefix ?? ''}`)}"$(${bytes} | ledgerhook sign -)"`
    : shellQuote(`${parts.headerName}: ${parts.token}`);
  const curl = `curl -sS -X POST ${shellQuote(parts.url)} -H ${shellQuote(`content-type: ${parts.contentType}`)} -H ${header}`;
  return [
    parts.resign
      ? `# re-signed with a fresh iat; the secret is read from $${parts.secretEnv}`
      : '# sent as captured (original token): deliveries that did not verify are never re-signed',
    setBody,
    exact ? `${curl} --data-raw "$BODY"` : `${bytes} | ${curl} --data-binary @-`,
  ].join('\n');
}
