/**
 * settings/: the environments (sandbox, production, local) and their stored settings.
 *   environments.ts   the environments and the keys each may hold
 *   settings-store.ts the settings file (conf only for writing; reading is a plain JSON read)
 *   setting-values.ts the values of what the spec leaves open (pageLimit, lag, rateLimit,
 *                     tolerance), read once for `config`, the commands and `probe`
 *   notices.ts        notes said once per configuration (notices.json)
 *   config-dir.ts     the OS config directory, as conf would choose it
 */
import { type EntityName, isEntityName } from '@ledgerhook/webhooks';
import { DEFAULT_EXPIRED_CURSOR_STATUSES, DEFAULT_PAGE_LIMIT, DEFAULT_TOLERANCE_SECONDS } from '../defaults.js';

/** Separate sandbox and production environments, each with its own secret and base address (spec 9); `local` is ledgerhook mock. */
export const ENVIRONMENTS = ['sandbox', 'production', 'local'] as const;
export type EnvironmentName = (typeof ENVIRONMENTS)[number];

/** The settings each environment can hold; `secret: true` ones are masked in every output. */
export const SETTING_KEYS = {
  baseUrl: { secret: false, describe: 'API root, e.g. https://sandbox.example.com/rest/v5' },
  webhookSecret: { secret: true, describe: 'the webhook_secret the API team sent for this environment' },
  token: { secret: true, describe: 'bearer access token for the list endpoints' },
  headerName: { secret: false, describe: 'name of the verification header (default Service-Verification)' },
  verificationPrefix: {
    secret: false,
    describe: 'what the service puts before the JWT in that header, e.g. "Bearer " (default none: the bare JWT)',
  },
  tokensFile: {
    secret: false,
    describe: 'JSON file mapping userId to access token, for listen --sync and worker with several users',
  },
  expiredCursorStatuses: {
    secret: false,
    describe: `HTTP statuses that, answered to the cursor of an interrupted full read, mean the server no longer accepts it, so sync reads again from page 1 (default ${DEFAULT_EXPIRED_CURSOR_STATUSES.join(',')})`,
  },
  pageLimit: {
    secret: false,
    describe: `the page size (limit) sync, reconcile, listen --sync and worker ask for, at most what the service accepts (default ${DEFAULT_PAGE_LIMIT})`,
  },
  lag: {
    secret: false,
    describe:
      'how far an incremental read looks back past the stored lastUpdatedDate, e.g. 1s for a service that stamps whole seconds and compares with > (default 0s)',
  },
  rateLimit: {
    secret: false,
    describe:
      'REQUESTS/SECONDS the service allows per token, e.g. 600/60: sync, listen --sync and worker keep to it (default none)',
  },
  maxStampAhead: {
    secret: false,
    describe:
      "how far the service's lastUpdatedDate may be ahead of its own clock (its Date header) before a sync refuses it, committing nothing (default 24h)",
  },
  tolerance: {
    secret: false,
    describe: `the webhook age in seconds past which listen and verify refuse a delivery as expired (default ${DEFAULT_TOLERANCE_SECONDS})`,
  },
} as const;
/**
 * `paths.<entity>`: the list path of one entity where the service differs from the catalogue's
 * table, e.g. `paths.expense` = `/expenses/expenses`. One key per catalogue entity.
 */
export type PathSettingKey = `paths.${EntityName}`;
export const PATH_SETTING_PREFIX = 'paths.';

export type SettingKey = keyof typeof SETTING_KEYS | PathSettingKey;

export type EnvironmentSettings = Partial<Record<SettingKey, string>>;

export function isPathSettingKey(value: string): value is PathSettingKey {
  return value.startsWith(PATH_SETTING_PREFIX) && isEntityName(value.slice(PATH_SETTING_PREFIX.length));
}

/** Whether a setting is a credential (masked in every output). */
export function isSecretSetting(key: SettingKey): boolean {
  return !isPathSettingKey(key) && SETTING_KEYS[key].secret;
}

/** The entity path overrides stored in one environment's settings: `{ expense: '/expenses/expenses' }`. */
export function storedEntityPaths(settings: EnvironmentSettings): Record<string, string> {
  const paths: Record<string, string> = {};
  for (const [key, value] of Object.entries(settings))
    if (isPathSettingKey(key) && value !== undefined) paths[key.slice(PATH_SETTING_PREFIX.length)] = value;
  return paths;
}

export function isEnvironmentName(value: string): value is EnvironmentName {
  return (ENVIRONMENTS as readonly string[]).includes(value);
}

export function isSettingKey(value: string): value is SettingKey {
  return Object.hasOwn(SETTING_KEYS, value) || isPathSettingKey(value);
}
