import { checkReceiver, type ReceiverCaseResult } from '../../delivery/check-receiver.js';
import { resolveTarget } from '../../delivery/target.js';
import { LedgerhookError } from '../../errors.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import type { CheckReceiverCommandOptions } from '../definitions/check-receiver.js';
import { requireSigningSecret, resolveHeaderName } from '../resolve-settings.js';
import { table } from '../table.js';

const list = (value: string | undefined) =>
  value
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export async function run(options: CheckReceiverCommandOptions, ctx: CliContext): Promise<void> {
  const url = resolveTarget(options.to);
  const secret = await requireSigningSecret(options, ctx, { createLocal: true });
  const headerName = await resolveHeaderName(options, ctx);
  const only = list(options.only);
  const skip = list(options.skip);
  if (!options.json)
    writeLine(ctx.stdout, `checking ${url.href} (header ${headerName}, tolerance ${options.tolerance}s)`);
  const report = await checkReceiver({
    url,
    secret,
    headerName,
    toleranceSeconds: options.tolerance,
    timeoutMs: Math.round(options.timeout * 1000),
    signal: ctx.signal,
    only,
    skip,
  });
  if (options.json) {
    writeJson(ctx, report);
  } else {
    const c = ctx.color;
    const verdict = (r: ReceiverCaseResult) =>
      r.verdict === 'pass' ? c.green('ok') : c.red(r.verdict === 'fail' ? 'FAIL' : 'ERROR');
    writeLine(
      ctx.stdout,
      table(
        ['case', 'expected', 'got', 'verdict', 'detail'],
        report.cases.map((r) => [
          r.id,
          r.expected === 'accept' ? '2xx' : '4xx',
          r.status !== undefined ? String(r.status) : '-',
          verdict(r),
          r.verdict === 'pass' ? '' : r.detail,
        ]),
        c.bold,
      ),
    );
    const failed = report.cases.filter((r) => r.verdict !== 'pass').length;
    writeLine(
      ctx.stdout,
      failed === 0
        ? c.green(report.cases.length === 1 ? 'the case holds' : `all ${report.cases.length} cases hold`)
        : c.red(`${failed} of ${report.cases.length} ${report.cases.length === 1 ? 'case does' : 'cases do'} not hold`),
    );
  }
  if (!report.passed) {
    const names = report.cases.filter((r) => r.verdict !== 'pass').map((r) => r.id);
    throw new LedgerhookError(
      'ERR_CHECK_FAILED',
      `the receiver got ${names.length} case${names.length === 1 ? '' : 's'} wrong: ${names.join(', ')}`,
    );
  }
}
