import { usageError } from '../errors.js';

const ACCEPTED = 'give a URL (http://127.0.0.1:4000/webhooks), host:port, PORT, :PORT or PORT/path';

/**
 * A host the WHATWG parser would read as an IPv4 address although it is not written as one
 * (`2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1`): refused, so that a webhook goes only where typed.
 * A dotted quad of four plain decimals (127.0.0.1) is fine.
 */
function refuseIpv4Shorthand(input: string, candidate: string): void {
  const authority = candidate.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split(/[/?#]/)[0] ?? '';
  const host = authority.replace(/^.*@/, '').replace(/:\d*$/, '').replace(/\.$/, '');
  if (host.startsWith('[')) return;
  const parts = host.split('.');
  const last = parts.at(-1) ?? '';
  // WHATWG: a host whose last label is a number (decimal, 0x hex, or octal) is an IPv4 address.
  if (!/^(0x[0-9a-f]*|\d+)$/i.test(last)) return;
  const canonical = parts.length === 4 && parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255);
  if (!canonical)
    throw usageError(
      `"${input.slice(0, 100)}" names the host "${host.slice(0, 60)}", which would be read as a numeric IPv4 address: write the address in full (e.g. 127.0.0.1), or ${ACCEPTED}`,
      'invalid_target',
    );
}

/**
 * A scheme other than http and https written without `//` (`unix:/tmp/app.sock`, `mailto:x`,
 * `file:app.sock`): refused, where it would otherwise be read as a host named after the scheme. A
 * colon followed by digits, or by nothing, is host:port (`localhost:4000`, `example.com:`).
 */
function refuseOtherScheme(input: string, value: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):(?!\/\/)(?!\d+(?:[/?#]|$))(?!$)/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) return;
  const problem =
    scheme === 'http' || scheme === 'https'
      ? `is not a URL: write it ${scheme}://HOST[:PORT]/PATH`
      : `names the scheme "${scheme.slice(0, 20)}"${scheme === 'unix' ? ' (unix sockets are not supported)' : ''}: only http and https targets are supported`;
  throw usageError(`"${input.slice(0, 100)}" ${problem}; ${ACCEPTED}`, 'invalid_target');
}

/**
 * Where to send deliveries, as people type it: a URL, `host:port`, `:port`, a bare port
 * (http://localhost:PORT/), or a bare host (http://host/). Only http and https.
 */
export function resolveTarget(input: string): URL {
  const value = input.trim();
  if (value === '')
    throw usageError('the target is empty: give a URL, host:port, :port or a port number', 'invalid_target');
  let candidate: string;
  // PORT, PORT/path, :PORT, :PORT/path all mean this machine (WHATWG would read `4000/webhooks` as
  // the IPv4 address 0.0.15.160 and send a validly signed webhook there).
  const leading = /^(\d+)(\/.*)?$/.exec(value)?.[1];
  if (leading !== undefined && Number(leading) > 65535)
    throw usageError(
      `"${input.slice(0, 100)}" is too large for a port and would otherwise be read as a numeric IPv4 address: write the address in full (e.g. 127.0.0.1), or ${ACCEPTED}`,
      'invalid_target',
    );
  refuseOtherScheme(input, value);
  if (/^\d+(\/.*)?$/.test(value)) candidate = `http://localhost:${value.replace(/^(\d+)$/, '$1/')}`;
  else if (/^:\d+(\/.*)?$/.test(value)) candidate = `http://localhost${value}`;
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) candidate = value;
  else candidate = `http://${value}`;
  refuseIpv4Shorthand(input, candidate);
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    throw usageError(
      `"${input}" is not a usable target: give a URL, host:port, :port or a port number`,
      'invalid_target',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`only http and https targets are supported, got ${url.protocol.slice(0, -1)}`, 'invalid_target');
  if (url.port !== '' && (Number(url.port) < 1 || Number(url.port) > 65535))
    throw usageError(`port ${url.port} is out of range`, 'invalid_target');
  if (url.username || url.password) throw usageError('put no credentials in the target URL', 'invalid_target');
  return url;
}
