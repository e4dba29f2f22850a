import { checkEntityPath } from '../catalogue/entity-paths.js';
import { DEFAULT_EXPIRED_CURSOR_STATUSES, DEFAULT_HEADER_NAME } from '../defaults.js';
import {
  type EnvironmentSettings,
  isPathSettingKey,
  PATH_SETTING_PREFIX,
  type SettingKey,
} from '../settings/environments.js';
import { isHeaderName } from '../util/header-name.js';
import { validateVerificationPrefix } from '@ledgerhook/webhooks/advanced';
import {
  isServiceSettingKey,
  parseLag,
  parsePageLimit,
  parseRateLimit,
  parseTolerance,
  perSecond,
  SERVICE_SETTING_DEFAULTS,
  serviceSettingProblem,
} from '../settings/setting-values.js';
import { parseStatusList } from '../sync/expired-cursor.js';
import type { ImpliedSetting } from './probe-types.js';

const number = (value: number | string | undefined) => (typeof value === 'number' ? value : undefined);

/** A list of statuses as the setting holds it, or the default list when it is not set. */
function statuses(text: string | undefined): number[] | undefined {
  const parsed = parseStatusList(text ?? DEFAULT_EXPIRED_CURSOR_STATUSES.join(','));
  return typeof parsed === 'string' ? undefined : parsed;
}

/**
 * Whether what a setting holds (or its default, when unset) already does what a finding needs.
 * Each implied value is a bound, not an exact value: a page size at most, a lag or a tolerance at
 * least, a rate at most, statuses included; paths, the base URL and the header must be the same.
 */
export function fits(key: SettingKey, current: string | undefined, implied: string): boolean {
  switch (key) {
    case 'pageLimit': {
      const now = number(parsePageLimit(current ?? SERVICE_SETTING_DEFAULTS.pageLimit));
      const most = number(parsePageLimit(implied));
      return now !== undefined && most !== undefined && now <= most;
    }
    case 'lag': {
      const now = number(parseLag(current ?? SERVICE_SETTING_DEFAULTS.lag));
      const least = number(parseLag(implied));
      return now !== undefined && least !== undefined && now >= least;
    }
    case 'tolerance': {
      const now = number(parseTolerance(current ?? SERVICE_SETTING_DEFAULTS.tolerance));
      const least = number(parseTolerance(implied));
      return now !== undefined && least !== undefined && now >= least;
    }
    case 'rateLimit': {
      if (current === undefined) return false;
      const now = parseRateLimit(current);
      const most = parseRateLimit(implied);
      return typeof now !== 'string' && typeof most !== 'string' && perSecond(now) <= perSecond(most);
    }
    case 'expiredCursorStatuses': {
      const now = statuses(current);
      const needed = statuses(implied);
      return needed?.every((status) => now?.includes(status) === true) === true;
    }
    case 'headerName':
      return (current ?? DEFAULT_HEADER_NAME).toLowerCase() === implied.toLowerCase();
    case 'baseUrl':
      return current?.replace(/\/+$/, '') === implied.replace(/\/+$/, '');
    default:
      if (isPathSettingKey(key) && current !== undefined) {
        const entity = key.slice(PATH_SETTING_PREFIX.length);
        try {
          return checkEntityPath(current, entity) === checkEntityPath(implied, entity);
        } catch {
          return false;
        }
      }
      return current === implied;
  }
}

/** The value to store for a setting that does not fit: for statuses, the ones set and the ones found. */
function valueToStore(key: SettingKey, current: string | undefined, implied: string): string {
  if (key !== 'expiredCursorStatuses') return implied;
  const merged = [...(statuses(current) ?? statuses(undefined) ?? []), ...(statuses(implied) ?? [])];
  return [...new Set(merged)].sort((a, b) => a - b).join(',');
}

/** The setting a finding implies, compared with what the environment holds. */
export function implySetting(
  key: SettingKey,
  implied: string,
  settings: EnvironmentSettings,
  required: boolean,
): ImpliedSetting {
  const current = settings[key];
  const state = fits(key, current, implied) ? 'set' : current === undefined ? 'not-set' : 'differs';
  return { key, value: implied, ...(current === undefined ? {} : { current }), state, required };
}

/** Of several values found for one setting, the one that fits them all (the smallest page, the longest lag...). */
function strictest(key: SettingKey, values: readonly string[]): string {
  return values.reduce((kept, value) => (fits(key, value, kept) ? value : valueToStore(key, value, kept)));
}

/** Whether the setting would take the value (`config set` refuses what this refuses): never store one it would not. */
function acceptable(key: SettingKey, value: string): boolean {
  try {
    if (isPathSettingKey(key)) return checkEntityPath(value, key.slice(PATH_SETTING_PREFIX.length)) !== '';
    if (key === 'expiredCursorStatuses') return typeof parseStatusList(value) !== 'string';
    if (key === 'headerName') return isHeaderName(value);
    if (key === 'verificationPrefix') return validateVerificationPrefix(value) !== '';
    if (key === 'baseUrl') return /^https?:$/.test(new URL(value).protocol);
    return isServiceSettingKey(key) && serviceSettingProblem(key, value) === undefined;
  } catch {
    return false;
  }
}

/**
 * What `--write` stores: each setting some finding needs or advises that does not fit yet, at the
 * value that fits every finding about it. Secrets are never among them (no finding implies one).
 */
export function settingsToWrite(
  findings: ReadonlyArray<{ setting?: ImpliedSetting | undefined }>,
  current: EnvironmentSettings,
): EnvironmentSettings {
  const byKey = new Map<SettingKey, string[]>();
  for (const { setting } of findings)
    if (setting && setting.state !== 'set') byKey.set(setting.key, [...(byKey.get(setting.key) ?? []), setting.value]);
  const settings: EnvironmentSettings = {};
  for (const [key, values] of byKey) {
    const value = valueToStore(key, current[key], strictest(key, values));
    if (acceptable(key, value)) settings[key] = value;
  }
  return settings;
}

/** The same findings, their settings compared again with what the environment holds now (after a write). */
export function refit<F extends { setting?: ImpliedSetting | undefined }>(
  findings: readonly F[],
  settings: EnvironmentSettings,
): F[] {
  return findings.map((finding) =>
    finding.setting
      ? {
          ...finding,
          setting: implySetting(finding.setting.key, finding.setting.value, settings, finding.setting.required),
        }
      : finding,
  );
}
