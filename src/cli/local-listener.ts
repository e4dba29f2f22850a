import { randomBytes } from 'node:crypto';
import { lstatSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_LISTEN_PORT } from '../defaults.js';
import type { EnvironmentName } from '../settings/environments.js';
import { makeDirectory } from '../util/fs-errors.js';

/**
 * Where the `ledgerhook listen` running on this machine receives, so that `send-sample` (no --to, or
 * `--to localhost`) reaches it: one small file per environment in the configuration directory
 * (`listen-local.json`), written when listen starts and removed when it stops. The file is input like
 * any other: a record that does not parse, names a process that is gone, or points anywhere but this
 * machine's loopback is ignored, so a file never decides where a signed delivery goes.
 */
export interface ListenerRecord {
  pid: number;
  /** The loopback URL deliveries are posted to, e.g. http://127.0.0.1:4000/ */
  url: string;
}

/** A record is a line of JSON: anything longer is not ours. */
const MAX_RECORD_BYTES = 4096;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

const recordFile = (dir: string, env: EnvironmentName) => join(dir, `listen-${env}.json`);

/**
 * The loopback URL of a listener bound at `url`: itself when it listens on loopback, 127.0.0.1 (or
 * [::1]) when it listens on every interface, undefined when it listens only on another address.
 */
function loopbackUrl(url: string): URL | undefined {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0') parsed.hostname = '127.0.0.1';
  else if (parsed.hostname === '[::]') parsed.hostname = '[::1]';
  return LOOPBACK_HOSTS.has(parsed.hostname) || /^127\.\d+\.\d+\.\d+$/.test(parsed.hostname) ? parsed : undefined;
}

/** Records the running listener; the returned function removes the record (only if it is still this one's). */
export function recordListener(dir: string, env: EnvironmentName, url: string, pid = process.pid): () => void {
  const target = loopbackUrl(url);
  if (!target) return () => {};
  const file = recordFile(dir, env);
  try {
    makeDirectory(dir);
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(temp, `${JSON.stringify({ pid, url: target.href } satisfies ListenerRecord)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    // Unrecorded, send-sample falls back to listen's default port: listen itself is not stopped for it.
    return () => {};
  }
  return () => {
    if (readRecord(file)?.pid !== pid) return; // another listen has started since: its record stays
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  };
}

function readRecord(file: string): ListenerRecord | undefined {
  try {
    const stat = lstatSync(file);
    if (!stat.isFile() || stat.size > MAX_RECORD_BYTES) return undefined;
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<ListenerRecord> | null;
    if (typeof value?.pid !== 'number' || typeof value.url !== 'string') return undefined;
    return { pid: value.pid, url: value.url };
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A recorded URL, checked: http on this machine's loopback, a real port, no credentials, a plain path. */
function checkedUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const port = Number(url.port);
  const usable =
    url.protocol === 'http:' &&
    loopbackUrl(url.href)?.hostname === url.hostname &&
    Number.isInteger(port) &&
    port >= 1 &&
    port <= 65535 &&
    url.username === '' &&
    url.password === '' &&
    url.search === '' &&
    url.hash === '' &&
    /^\/[A-Za-z0-9_\-./~]*$/.test(url.pathname);
  return usable ? url : undefined;
}

/** Where the local listener of this environment is, when one is recorded, running and on loopback. */
export function findListener(dir: string, env: EnvironmentName): URL | undefined {
  const record = readRecord(recordFile(dir, env));
  if (!record || !isRunning(record.pid)) return undefined;
  return checkedUrl(record.url);
}

/** A target that means "the listener on this machine": none, or a loopback host with no port or path. */
export function meansLocalListener(to: string | undefined): boolean {
  return to === undefined || /^(http:\/\/)?(localhost|127\.0\.0\.1|\[::1\])\/?$/i.test(to.trim());
}

/** Where `send-sample` posts when it means the local listener: the recorded one, else listen's default port. */
export function localListenerTarget(dir: string, env: EnvironmentName): { url: URL; recorded: boolean } {
  const found = findListener(dir, env);
  return found
    ? { url: found, recorded: true }
    : { url: new URL(`http://127.0.0.1:${DEFAULT_LISTEN_PORT}/`), recorded: false };
}
