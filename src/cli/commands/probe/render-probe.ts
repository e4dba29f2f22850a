import type { ProbeChange } from '../../../probe/probe-record.js';
import type { ImpliedSetting, ProbeArea, ProbeFinding, ProbeReport } from '../../../probe/probe-types.js';
import type { EnvironmentSettings } from '../../../settings/environments.js';
import { type CliContext, writeLine } from '../../context.js';
import { printable } from '../../render-delivery.js';

export type ProbeDocument = ProbeReport & {
  env: string;
  wrote: EnvironmentSettings | null;
  settingsFile: string;
  lastProbe: { at: string; wrote: Record<string, string> } | null;
  changes: ProbeChange[];
  tokenStored: boolean;
};

const AREAS: Record<ProbeArea, string> = {
  reachability: 'reachability and the token',
  paths: 'paths',
  paging: 'paging',
  time: 'time',
  limits: 'limits',
  errors: 'errors',
  webhooks: 'webhooks',
};

/** What a finding's setting stands at, in words. */
function standing(setting: ImpliedSetting): string {
  const role = setting.required ? 'needed' : 'advised';
  if (setting.state === 'set')
    return setting.current === undefined ? `the default fits` : `set (${printable(setting.current)}): fits`;
  if (setting.state === 'not-set') return `not set, ${role}`;
  return `set to ${printable(setting.current ?? '')}, ${role}`;
}

/** A finding's mark: a problem, a habit of the service worth knowing, or nothing to see. */
function mark(finding: ProbeFinding, ctx: CliContext): string {
  if (finding.problem !== undefined) return ctx.color.red('✖');
  return finding.quirk ? ctx.color.yellow('•') : ctx.color.green('✔');
}

/** A setting's line: red when needed and not set, yellow when advised and not set, dim when it fits. */
function settingLine(setting: ImpliedSetting, ctx: CliContext): string {
  const c = ctx.color;
  const text = `→ ${setting.key} ${printable(setting.value)} (${standing(setting)})`;
  if (setting.state === 'set') return c.dim(text);
  return setting.required ? c.red(text) : c.yellow(text);
}

/** The report for people: findings by area, each with its setting; then what changed, what was written, the verdict. */
export function renderProbe(document: ProbeDocument, ctx: CliContext): void {
  const c = ctx.color;
  const out = (text = '') => writeLine(ctx.stdout, text);
  out(
    `${c.bold(`probe of ${document.env}`)} at ${printable(document.baseUrl)}: ${document.requests} request${document.requests === 1 ? '' : 's'} (at most ${document.maxRequests})`,
  );
  for (const area of Object.keys(AREAS) as ProbeArea[]) {
    const findings = document.findings.filter((finding) => finding.area === area);
    if (findings.length === 0) continue;
    out(c.bold(AREAS[area]));
    for (const finding of findings) {
      const quirk = finding.quirk ? c.dim(` [${finding.quirk}]`) : '';
      out(`  ${mark(finding, ctx)} ${printable(finding.observed)}${quirk}`);
      const setting = finding.setting;
      if (setting) out(`      ${settingLine(setting, ctx)}`);
      else if (!finding.problem) out(c.dim('      → no setting'));
      if (finding.problem) out(`      ${c.red('✖')} ${printable(finding.problem)}`);
    }
  }
  for (const skipped of document.notProbed) out(c.yellow(`not probed: ${printable(skipped)}`));
  if (document.notProbed.length > 0) out(c.dim('  (raise --max-requests or --max-wait to probe the rest)'));
  if (document.lastProbe) {
    const wrote = Object.keys(document.lastProbe.wrote);
    out(
      `since the probe of ${printable(document.lastProbe.at)}${wrote.length > 0 ? ` (which wrote ${wrote.map(printable).join(', ')})` : ''}: ${document.changes.length === 0 ? 'nothing changed' : 'changed'}`,
    );
    for (const change of document.changes)
      out(
        `  ${printable(change.id)}: ${printable(change.before ?? '(not found then)')} → ${printable(change.after ?? '(not found now)')}`,
      );
  }
  if (document.wrote) {
    const entries = Object.entries(document.wrote);
    out(
      entries.length === 0
        ? `nothing to write for ${document.env}; the probe is recorded in ${printable(document.settingsFile)}`
        : `wrote ${entries.map(([key, value]) => `${key} ${printable(value ?? '')}`).join(', ')} for ${document.env} in ${printable(document.settingsFile)}`,
    );
  }
  if (!document.tokenStored && document.authFailure === undefined)
    out(
      c.dim(
        `the access token is not stored for ${document.env} (probe never writes a secret): \`ledgerhook config set token - --env ${document.env}\` spares later commands the flag`,
      ),
    );
  if (document.ready) out(c.green(`ready: ${document.env} can sync with the settings it has`));
}
