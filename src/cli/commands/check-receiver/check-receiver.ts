import { checkReceiver, type ReceiverCaseResult } from '../../../delivery/check-receiver.js';
import { resolveTarget } from '../../../delivery/target.js';
import { LedgerhookError } from '../../../errors.js';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import type { CheckReceiverCommandOptions } from './definition.js';
import { requireSigningSecret, resolveHeaderName, resolveVerificationPrefix } from '../../resolve-settings.js';
import { table } from '../../table.js';
import { commaList } from '../../parsers.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export async function run(options: CheckReceiverCommandOptions, ctx: CliContext): Promise<void> {
  const url = resolveTarget(options.to);
  const secret = await requireSigningSecret(options, ctx, { createLocal: true });
  const headerName = await resolveHeaderName(options, ctx);
  const verificationPrefix = await resolveVerificationPrefix(options, ctx);
  const only = commaList(options.only);
  const skip = commaList(options.skip);
  const c = ctx.color;
  // Progress, not result: stderr, so that stdout holds only the table (with --json the document says it all).
  if (!options.json)
    writeLine(
      ctx.stderr,
      `checking ${url.href} (header ${headerName}${verificationPrefix ? `, prefix ${JSON.stringify(verificationPrefix)}` : ''}, tolerance ${options.tolerance}s, skew ${options.skew}s${options.strict ? ', strict' : ''})`,
    );
  const report = await checkReceiver({
    url,
    signing: { secret, headerName, verificationPrefix, toleranceSeconds: options.tolerance, skewSeconds: options.skew },
    cases: {
      only,
      skip,
      strict: options.strict === true,
      reject: { statuses: commaList(options.rejectStatus), bodyContains: options.rejectBody },
    },
    limits: { timeoutMs: Math.round(options.timeout * 1000) },
    signal: ctx.signal,
  });
  const rejection = report.rejectWhen.statuses.join('/');
  if (options.json) {
    writeJson(ctx, report);
  } else {
    const verdict = (r: ReceiverCaseResult) =>
      r.verdict === 'pass'
        ? c.green('ok')
        : r.warning
          ? c.yellow('warn')
          : c.red(r.verdict === 'fail' ? 'FAIL' : 'ERROR');
    writeLine(
      ctx.stdout,
      table(
        ['case', 'level', 'expected', 'got', 'verdict', 'detail'],
        report.cases.map((r) => [
          r.id,
          r.level,
          r.expected === 'accept' ? '2xx' : rejection,
          r.status !== undefined ? String(r.status) : '-',
          verdict(r),
          r.verdict === 'pass' ? '' : r.detail,
        ]),
        c.bold,
      ),
    );
    const required = report.cases.filter((r) => r.level === 'required');
    const failedRequired = required.filter((r) => r.verdict !== 'pass').length;
    writeLine(
      ctx.stdout,
      failedRequired === 0
        ? c.green(`${required.length === 1 ? 'the required case holds' : `all ${required.length} required cases hold`}`)
        : c.red(`${failedRequired} of ${plural(required.length, 'required case', 'required cases')} do not hold`),
    );
  }
  for (const r of report.cases.filter((r) => r.warning && !options.json))
    writeLine(
      ctx.stderr,
      c.yellow(`warning: ${r.id} (recommended, beyond spec 5.2): ${r.detail}; ${r.title}. --strict makes this fail`),
    );
  if (!report.passed) {
    throw new LedgerhookError(
      'ERR_CHECK_FAILED',
      `the receiver got ${plural(report.failed.length, 'case', 'cases')} wrong: ${report.failed.join(', ')}`,
    );
  }
}
