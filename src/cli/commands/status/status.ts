import { type CliContext, writeJson, writeLine } from '../../context.js';
import type { StatusCommandOptions } from './definition.js';
import { type AccessReport, type EnvironmentReport, type StatusReport, statusReport } from './status-report.js';

/** The settings every sync needs, always listed; the others only when stored. */
const ESSENTIAL = ['baseUrl', 'token', 'webhookSecret'] as const;

const SOURCE_WORDS: Record<string, string> = {
  variable: 'from its LEDGERHOOK_ variable',
  settings: 'stored',
  'built in': "built in: ledgerhook mock's",
  'local development secret': 'the local development secret',
  flag: 'from the flag',
};

function accessLine(access: AccessReport): [mark: 'ok' | 'bad' | 'none', text: string] {
  if (!access.checked) return ['none', `not checked (${access.why})`];
  if (access.ok) return ['ok', `the base URL and token work (GET ${access.path} answered 2xx)`];
  return ['bad', access.message];
}

function environmentLines(env: EnvironmentReport, ctx: CliContext): string[] {
  const c = ctx.color;
  const mark = { ok: c.green('✔'), bad: c.red('✖'), none: c.dim('–') } as const;
  const title = `${c.bold(env.name)}${env.chosen ? ' (chosen)' : ''}`;
  const lines = [title];
  const sources: Record<(typeof ESSENTIAL)[number], string | null> = {
    baseUrl: env.baseUrl,
    token: env.token,
    webhookSecret: env.webhookSecret,
  };
  for (const key of ESSENTIAL) {
    const from = sources[key];
    // The local environment makes its development secret on first use (listen, send-sample, sign).
    const later = !from && key === 'webhookSecret' && env.name === 'local';
    const text = from
      ? (SOURCE_WORDS[from] ?? from)
      : later
        ? 'made on first use (the local development secret)'
        : 'not set';
    lines.push(`  ${from ? mark.ok : later ? mark.none : mark.bad} ${key.padEnd(22)}${text}`);
  }
  const others = env.stored.filter((key) => !(ESSENTIAL as readonly string[]).includes(key));
  for (const key of others) lines.push(`  ${mark.ok} ${key.padEnd(22)}stored`);
  const [state, text] = accessLine(env.access);
  lines.push(`  ${mark[state]} ${'access'.padEnd(22)}${text}`);
  if (env.listening) lines.push(`  ${mark.ok} ${'listen'.padEnd(22)}running at ${env.listening}`);
  return lines;
}

function render(report: StatusReport, ctx: CliContext): void {
  const c = ctx.color;
  const out = (text = '') => writeLine(ctx.stdout, text);
  out(`${'settings'.padEnd(10)}${report.settingsFile}`);
  out(`${'variables'.padEnd(10)}${report.variables.length > 0 ? report.variables.join(', ') : 'none set'}`);
  for (const env of report.environments) {
    out();
    for (const line of environmentLines(env, ctx)) out(line);
  }
  out();
  out(
    `${'state'.padEnd(10)}${report.state.store ? `Postgres ${report.state.store} (LEDGERHOOK_STORE)` : `${report.state.file}${report.state.exists ? '' : ' (nothing synced yet)'}`}`,
  );
  out(`${'data'.padEnd(10)}${report.data} (sync's default --out)`);
  out(`${'captures'.padEnd(10)}only where \`listen --capture FILE\` writes them (there is no default file)`);
  out();
  out('optional packages');
  for (const peer of report.optionalPackages)
    out(
      `  ${peer.installed ? c.green('✔') : c.dim('–')} ${`${peer.name}${peer.version ? ` ${peer.version}` : ''}`.padEnd(32)}${peer.feature}${peer.installed ? '' : ` (npm install ${peer.name})`}`,
    );
  if (report.ready) {
    out();
    out(c.green(`${report.environment} is ready to sync`));
  }
}

export async function run(options: StatusCommandOptions, ctx: CliContext): Promise<void> {
  const report = await statusReport({ env: options.env, timeoutSeconds: options.timeout }, ctx);
  const { problem, ...document } = report;
  if (options.json) writeJson(ctx, document);
  else render(report, ctx);
  // Not ready: exit 1, and the one error line says why and what to do.
  if (problem) throw problem;
}
