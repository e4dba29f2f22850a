import { readCaptures } from '../../../capture/read-captures.js';
import { LedgerhookError } from '../../../errors.js';
import { ENVIRONMENTS, type EnvironmentName, type EnvironmentSettings } from '../../../settings/environments.js';
import type { SettingsStore } from '../../../settings/settings-store.js';
import { probeService } from '../../../probe/probe.js';
import { changesSince, probeRecord, readProbeRecord } from '../../../probe/probe-record.js';
import { isReady } from '../../../probe/readiness.js';
import { refit, settingsToWrite } from '../../../probe/setting-fit.js';
import type { LabelledSecret } from '@ledgerhook/webhooks';
import type { ProbeReport } from '../../../probe/probe-types.js';
import { isoTime } from '../../../util/iso-time.js';
import { type CliContext, writeJson } from '../../context.js';
import { LOCAL_BASE_URL, localWebhookSecret } from '../../local-environment.js';
import { createProgressView } from '../../progress.js';
import { resolveBaseUrl, resolveToken } from '../../resolve-dataset.js';
import { resolveEnvironment, settingsStore } from '../../resolve-settings.js';
import type { ProbeCommandOptions } from './definition.js';
import { renderProbe } from './render-probe.js';

/** Captured deliveries looked at, at most: the newest. */
const MAX_CAPTURES = 500;

/** Every stored webhook secret, labelled by its environment (and the local one, only if it exists). */
function storedSecrets(store: SettingsStore, ctx: CliContext): LabelledSecret[] {
  const secrets: LabelledSecret[] = ENVIRONMENTS.flatMap((env) => {
    const secret = store.get(env, 'webhookSecret');
    return secret ? [{ secret, label: env }] : [];
  });
  const local = secrets.some((entry) => entry.label === 'local') ? undefined : localWebhookSecret(store, ctx, false);
  return local ? [...secrets, { secret: local.secret, label: 'local' }] : secrets;
}

/**
 * The settings as probe compares with them: the stored ones, with the base URL a later command finds
 * without a flag too: LEDGERHOOK_BASE_URL, or for `local` the mock's address.
 */
function currentSettings(
  store: SettingsStore,
  env: EnvironmentName,
  baseUrl: string,
  ctx: CliContext,
): EnvironmentSettings {
  const settings = store.environment(env);
  const fallback = ctx.env.LEDGERHOOK_BASE_URL || (env === 'local' ? LOCAL_BASE_URL : undefined);
  if (settings.baseUrl === undefined && fallback?.replace(/\/+$/, '') === baseUrl) settings.baseUrl = baseUrl;
  return settings;
}

export async function run(options: ProbeCommandOptions, ctx: CliContext): Promise<void> {
  const env = await resolveEnvironment(options.env, ctx);
  const baseUrl = await resolveBaseUrl(options, ctx);
  if (baseUrl === undefined)
    throw new LedgerhookError('ERR_USAGE', 'no base URL', { details: { reason: 'missing_base_url' } });
  const token = await resolveToken(options, ctx);
  const store = await settingsStore(ctx);
  const settings = currentSettings(store, env, baseUrl, ctx);
  // Read before any request: a capture that cannot be read costs the service nothing.
  const captures =
    options.capture === undefined ? undefined : (await readCaptures(options.capture, { last: MAX_CAPTURES })).records;
  const progress = await createProgressView(ctx, { json: Boolean(options.json) });
  let report: ProbeReport;
  try {
    report = await probeService({
      baseUrl,
      token,
      settings,
      limits: {
        maxRequests: options.maxRequests,
        maxWaitMs: options.maxWait,
        timeoutMs: Math.round(options.timeout * 1000),
      },
      webhooks: captures && { captures, secrets: storedSecrets(store, ctx), environment: env },
      signal: ctx.signal,
      onRequest: ({ requests, path }) => progress.update(`probing ${env}: request ${requests} (${path})`),
    });
  } finally {
    progress.stop();
  }
  const previous = readProbeRecord(store.probeRecord(env));
  const changes = previous ? changesSince(previous, report) : [];
  let wrote: EnvironmentSettings | undefined;
  if (options.write && report.authFailure === undefined) {
    wrote = settingsToWrite(report.findings, settings);
    const writer = await settingsStore(ctx, 'write');
    writer.applyProbe(env, wrote, probeRecord(report, wrote, isoTime(Date.now())));
    const findings = refit(report.findings, { ...settings, ...wrote });
    report = { ...report, findings, ready: isReady(findings, report.authFailure) };
  }
  const document = {
    env,
    ...report,
    wrote: wrote ?? null,
    settingsFile: store.path,
    lastProbe: previous ? { at: previous.at, wrote: previous.wrote } : null,
    changes,
    // A secret is never written by probe: a token given only as a flag is not there for the next command.
    tokenStored: env === 'local' || Boolean(ctx.env.LEDGERHOOK_TOKEN) || store.get(env, 'token') !== undefined,
  };
  // Every finding says the setting it implies: none is null.
  const findings = document.findings.map((finding) => ({ ...finding, setting: finding.setting ?? null }));
  if (options.json) writeJson(ctx, { ...document, findings });
  else renderProbe(document, ctx);
  verdict(document, Boolean(options.write));
}

/** Exit 3 for a refused token, 1 for a finding that still needs a setting (or a problem), else 0. */
function verdict(
  document: Pick<ProbeReport, 'ready' | 'authFailure' | 'findings'> & { env: string },
  written: boolean,
): void {
  if (document.authFailure)
    throw new LedgerhookError('ERR_HTTP_STATUS', document.authFailure.message, {
      details: { reason: 'token_rejected', status: document.authFailure.status },
    });
  if (document.ready) return;
  const needed = [
    ...new Set(
      document.findings.flatMap(({ setting }) => (setting?.required && setting.state !== 'set' ? [setting.key] : [])),
    ),
  ];
  const problems = document.findings.filter((finding) => finding.problem !== undefined).length;
  const parts = [
    needed.length > 0 ? `${needed.join(', ')} ${needed.length === 1 ? 'is' : 'are'} needed and not set` : '',
    problems > 0 ? `${problems} problem${problems === 1 ? '' : 's'} no setting fixes (above)` : '',
  ].filter(Boolean);
  throw new LedgerhookError('ERR_CHECK_FAILED', `${document.env} is not ready to sync: ${parts.join('; ')}`, {
    details: { reason: 'probe_not_ready', writable: written ? 0 : needed.length },
  });
}
