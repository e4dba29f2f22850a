import { usageError } from '../errors.js';

/**
 * Where to send deliveries, as people type it: a URL, `host:port`, `:port`, a bare port
 * (http://localhost:PORT/), or a bare host (http://host/). Only http and https.
 */
export function resolveTarget(input: string): URL {
  const value = input.trim();
  if (value === '') throw usageError('the target is empty: give a URL, host:port, :port or a port number');
  let candidate: string;
  if (/^\d+$/.test(value)) candidate = `http://localhost:${value}/`;
  else if (/^:\d+(\/.*)?$/.test(value)) candidate = `http://localhost${value}`;
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) candidate = value;
  else candidate = `http://${value}`;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    throw usageError(`"${input}" is not a usable target: give a URL, host:port, :port or a port number`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`only http and https targets are supported, got ${url.protocol.slice(0, -1)}`);
  if (url.port !== '' && (Number(url.port) < 1 || Number(url.port) > 65535))
    throw usageError(`port ${url.port} is out of range`);
  if (url.username || url.password) throw usageError('put no credentials in the target URL');
  return url;
}
