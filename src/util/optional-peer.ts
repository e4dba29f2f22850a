import { LedgerhookError } from '../errors.js';

/**
 * pg, bullmq, ioredis, rate-limiter-flexible and @opentelemetry/api are optional peer dependencies: a user who imports
 * only `ledgerhook/webhooks` never installs them. What each one is needed for, for the error that
 * says which package to install when a feature that needs it is used without it.
 */
export const OPTIONAL_PEERS: Readonly<Record<string, { feature: string; install: string }>> = {
  pg: { feature: 'the Postgres store', install: 'pg' },
  // bullmq depends on ioredis: installing bullmq brings both.
  bullmq: { feature: 'the sync queue', install: 'bullmq' },
  ioredis: { feature: 'the sync queue', install: 'bullmq' },
  'rate-limiter-flexible': { feature: "the worker's shared rate limit", install: 'rate-limiter-flexible' },
  // Only the API: the application registers the SDK and exporters it wants (ledgerhook bundles none).
  '@opentelemetry/api': { feature: 'OpenTelemetry traces and metrics', install: '@opentelemetry/api' },
};

/** Every optional peer, in the order `npm install` should name them. */
export const OPTIONAL_PEER_NAMES = Object.keys(OPTIONAL_PEERS);

/**
 * The error Node raises when an optional peer is missing (ERR_MODULE_NOT_FOUND, "Cannot find
 * package 'pg'"), turned into one line that names the package and the install command; any other
 * error gives undefined.
 */
export function missingPeerError(error: unknown): LedgerhookError | undefined {
  const err = error as NodeJS.ErrnoException | undefined;
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || typeof err.message !== 'string') return undefined;
  const name = /Cannot find package '([^']+)'/.exec(err.message)?.[1];
  const peer = name === undefined ? undefined : OPTIONAL_PEERS[name];
  if (name === undefined || peer === undefined) return undefined;
  return new LedgerhookError(
    'ERR_USAGE',
    `${peer.feature} needs the package ${name}, which is not installed: run npm install ${peer.install} beside ledgerhook`,
    { cause: error, details: { reason: 'missing_dependency', package: name } },
  );
}
