import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_OUT_DIR } from '../../../defaults.js';
import { LedgerhookError } from '../../../errors.js';
import { ENVIRONMENTS, type EnvironmentName, storedEntityPaths } from '../../../settings/environments.js';
import { type AccessCheck, checkAccess } from '../../../sync/check-access.js';
import { OPTIONAL_PEERS } from '../../../util/optional-peer.js';
import { redactUrl } from '../../../util/service-url.js';
import type { CliContext } from '../../context.js';
import { withAdvice } from '../../error-advice.js';
import { configDirOf } from '../../local-environment.js';
import { findListener } from '../../local-listener.js';
import { findBaseUrl, findToken, type SettingSource, stateFilePath } from '../../resolve-dataset.js';
import { findWebhookSecret, resolveEnvironment, settingsStore } from '../../resolve-settings.js';

/** Whether the base URL and token of an environment work, from one request (sync/check-access.ts). */
export type AccessReport =
  | { checked: false; why: string }
  | { checked: true; ok: true; path: string }
  | { checked: true; ok: false; path: string; code: string; reason: string; message: string };

export interface EnvironmentReport {
  name: EnvironmentName;
  chosen: boolean;
  /** The keys stored in the settings for it: names only, never values. */
  stored: string[];
  /** What a command run with --env NAME would use, and where it comes from (null: none). */
  baseUrl: SettingSource | null;
  token: SettingSource | null;
  webhookSecret: 'variable' | 'settings' | 'local development secret' | null;
  access: AccessReport;
  /** The `ledgerhook listen` running here for it, recorded on start (local-listener.ts). */
  listening: string | null;
}

export interface StatusReport {
  environment: EnvironmentName;
  ready: boolean;
  settingsFile: string;
  /** The LEDGERHOOK_* variables set in this shell (names only): they apply to every environment. */
  variables: string[];
  environments: EnvironmentReport[];
  state: { file: string; exists: boolean; store: string | null };
  /** Where `sync` writes its JSON files unless --out says otherwise (absolute). */
  data: string;
  /** Captures are written only where `listen --capture FILE` is told to: there is no default file. */
  captures: null;
  optionalPackages: Array<{ name: string; feature: string; installed: boolean; version: string | null }>;
  /** When not ready: why, and what to do (the error line). */
  problem: LedgerhookError | null;
}

const VARIABLES = [
  'LEDGERHOOK_ENV',
  'LEDGERHOOK_BASE_URL',
  'LEDGERHOOK_TOKEN',
  'LEDGERHOOK_WEBHOOK_SECRET',
  'LEDGERHOOK_HEADER_NAME',
  'LEDGERHOOK_VERIFICATION_PREFIX',
  'LEDGERHOOK_STORE',
  'LEDGERHOOK_QUEUE',
  'LEDGERHOOK_CONFIG_DIR',
];

/** The version of an optional package as this ledgerhook would load it, or null when it is absent. */
function installedVersion(name: string): string | null {
  let file: string;
  try {
    file = fileURLToPath(import.meta.resolve(name));
  } catch {
    return null;
  }
  for (let dir = dirname(file), depth = 0; depth < 12 && dir !== dirname(dir); dir = dirname(dir), depth += 1) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === name) return typeof manifest.version === 'string' ? manifest.version : '';
    } catch {
      // no package.json at this level
    }
  }
  return '';
}

function accessReport(check: AccessCheck): AccessReport {
  if (check.ok) return { checked: true, ok: true, path: check.path };
  return {
    checked: true,
    ok: false,
    path: check.path,
    code: check.code,
    reason: check.reason,
    message: withAdvice(check.error),
  };
}

/** Why the chosen environment cannot sync, and what to do; null when it can. */
function problemOf(report: EnvironmentReport, check: AccessCheck | undefined): LedgerhookError | null {
  const env = report.name;
  const notReady = (why: string) =>
    new LedgerhookError('ERR_CHECK_FAILED', `${env} is not ready to sync: ${why}`, {
      details: { reason: 'not_ready_to_sync', environment: env },
    });
  if (!report.baseUrl)
    return notReady(
      `no base URL; run \`ledgerhook config set baseUrl URL --env ${env}\` (the API root, e.g. https://HOST/rest/v5) or set LEDGERHOOK_BASE_URL`,
    );
  if (!report.token)
    return notReady(`no access token; run \`ledgerhook config set token - --env ${env}\` or set LEDGERHOOK_TOKEN`);
  if (check && !check.ok) return notReady(withAdvice(check.error));
  return null;
}

/** Everything `ledgerhook status` says; one access check per distinct base URL and token. */
export async function statusReport(
  options: { env?: string | undefined; timeoutSeconds: number },
  ctx: CliContext,
): Promise<StatusReport> {
  const chosen = await resolveEnvironment(options.env, ctx);
  const store = await settingsStore(ctx);
  const dir = configDirOf(ctx.env);
  const checks = new Map<string, Promise<AccessCheck>>();
  const environments = await Promise.all(
    ENVIRONMENTS.map(async (name) => {
      const baseUrl = await findBaseUrl({ env: name }, ctx);
      const token = await findToken({ env: name }, ctx);
      const settings = store.environment(name);
      let check: Promise<AccessCheck> | undefined;
      if (baseUrl && token) {
        const key = JSON.stringify([baseUrl.value, token.value]);
        check = checks.get(key);
        if (!check) {
          check = checkAccess({
            baseUrl: baseUrl.value.replace(/\/+$/, ''),
            token: token.value,
            paths: storedEntityPaths(settings),
            timeoutMs: Math.round(options.timeoutSeconds * 1000),
            signal: ctx.signal,
          });
          checks.set(key, check);
        }
      }
      return { name, baseUrl, token, settings, check };
    }),
  );
  const reports: EnvironmentReport[] = [];
  let problem: LedgerhookError | null = null;
  for (const { name, baseUrl, token, settings, check } of environments) {
    const result = check ? await check : undefined;
    const secret = await findWebhookSecret({ env: name }, ctx);
    reports.push({
      name,
      chosen: name === chosen,
      stored: Object.keys(settings).sort(),
      baseUrl: baseUrl?.from ?? null,
      token: token?.from ?? null,
      webhookSecret: secret?.from ?? null,
      access: result ? accessReport(result) : { checked: false, why: baseUrl ? 'no access token' : 'no base URL' },
      listening: findListener(dir, name)?.href ?? null,
    });
    const report = reports.at(-1);
    if (report?.chosen) problem = problemOf(report, result);
  }
  const storeUrl = ctx.env.LEDGERHOOK_STORE;
  const stateFile = await stateFilePath(ctx);
  return {
    environment: chosen,
    ready: problem === null,
    settingsFile: store.path,
    variables: VARIABLES.filter((name) => (ctx.env[name] ?? '') !== ''),
    environments: reports,
    state: { file: stateFile, exists: existsSync(stateFile), store: storeUrl ? redactUrl(storeUrl) : null },
    data: resolve(DEFAULT_OUT_DIR),
    captures: null,
    optionalPackages: Object.entries(OPTIONAL_PEERS).map(([name, { feature }]) => {
      const version = installedVersion(name);
      return { name, feature, installed: version !== null, version: version || null };
    }),
    problem,
  };
}
