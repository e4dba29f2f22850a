import type { ChalkInstance } from 'chalk';
import {
  type CheckConsumerReport,
  checkConsumer,
  type ConsumerCaseResult,
} from '../../../consumer-check/check-consumer.js';
import type { CheckReceiverReport } from '../../../delivery/check-receiver.js';
import { notConverged } from '../../../consumer-check/consumer-report.js';
import { CONSUMER_CASE_TABLE } from '../../../consumer-check/consumer-case-table.js';
import { stateSource } from '../../../consumer-check/state-source.js';
import { resolveTarget } from '../../../delivery/target.js';
import { plural } from '../../../util/plural.js';
import { redactUrl } from '../../../util/service-url.js';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import { formatDuration } from '../../durations.js';
import { createProgressView } from '../../progress.js';
import { printableLine } from '../../render-delivery.js';
import { requireSigningSecret, resolveHeaderName, resolveVerificationPrefix } from '../../resolve-settings.js';
import type { CheckConsumerCommandOptions } from './definition.js';
import { commaList } from '../../parsers.js';

const ID_WIDTH = Math.max(...CONSUMER_CASE_TABLE.map((c) => c.id.length)) + 2;

/** "duplicate-after-change  FAIL   not converged within 10.0 s: /expenses: 1 different (100042: amount)" */
function caseLine(result: ConsumerCaseResult, c: ChalkInstance): string {
  const [word, paint] =
    result.verdict === 'converged'
      ? ['ok', c.green]
      : result.verdict === 'skipped'
        ? ['skip', c.dim]
        : !result.failed
          ? ['limit', c.yellow]
          : [result.verdict === 'error' ? 'ERROR' : 'FAIL', c.red];
  // The detail carries ids, keys and answers from the consumer: escaped, so that it stays one line.
  return `${result.id.padEnd(ID_WIDTH)}${paint(word.padEnd(7))}${printableLine(result.detail)}`;
}

function summary(report: CheckConsumerReport, c: ChalkInstance): string {
  const { cases } = report;
  const required = cases.filter((r) => r.level === 'required' && r.verdict !== 'skipped');
  const failing = cases.filter((r) => r.verdict === 'not-converged' && r.failed).map((r) => r.id);
  const errors = cases.filter((r) => r.verdict === 'error').map((r) => r.id);
  const limits = cases.filter((r) => r.level === 'limitation' && r.verdict === 'not-converged').map((r) => r.id);
  const limitText =
    limits.length > 0 ? `; ${limits.join(', ')} did not, as expected (only a reconcile catches it)` : '';
  if (failing.length === 0 && errors.length === 0 && report.notRun.length === 0) {
    const all =
      required.length === 1 ? 'the required case converged' : `all ${required.length} required cases converged`;
    return c.green(`${all}${limitText}`);
  }
  return c.red(
    [
      failing.length > 0
        ? `${failing.length} of ${required.length} required cases did not converge: ${failing.join(', ')}`
        : '',
      errors.length > 0 ? `the state could not be read in ${plural(errors.length, 'case')}: ${errors.join(', ')}` : '',
      report.notRun.length > 0
        ? `${report.notRun.length} not run (the store differed before them): ${report.notRun.join(', ')}`
        : '',
    ]
      .filter(Boolean)
      .join('; '),
  );
}

/** The forged, altered and invalid deliveries: run first (--with-receiver-checks), or where to find them. */
function signatureLine(report: CheckConsumerReport, to: URL, c: ChalkInstance): string {
  const receiver = report.receiver;
  if (!receiver)
    return c.dim(
      `signatures not checked: these cases send only valid deliveries; \`ledgerhook check-receiver --to ${redactUrl(to.href)}\` sends forged and altered ones (or add --with-receiver-checks)`,
    );
  const required = receiver.cases.filter((r) => r.level === 'required').length;
  return receiver.failed.length === 0
    ? c.green(`signatures: all ${required} required check-receiver cases hold`)
    : c.red(`signatures: ${receiver.failed.length} check-receiver cases do not hold: ${receiver.failed.join(', ')}`);
}

/** "receiver alg-none  FAIL   expected a rejection (4xx), got 200" for each receiver case that did not hold. */
function receiverLines(report: CheckReceiverReport, c: ChalkInstance): string[] {
  return report.cases
    .filter((r) => r.verdict !== 'pass')
    .map((r) => {
      const word = r.warning ? c.yellow('warn'.padEnd(7)) : c.red((r.verdict === 'error' ? 'ERROR' : 'FAIL').padEnd(7));
      return `${`receiver ${r.id}`.padEnd(ID_WIDTH - 1)} ${word}${printableLine(r.detail)}`;
    });
}

export async function run(options: CheckConsumerCommandOptions, ctx: CliContext): Promise<void> {
  const to = resolveTarget(options.to);
  const source = stateSource(options.state, { env: ctx.env });
  const secret = await requireSigningSecret(options, ctx, { createLocal: true });
  const headerName = await resolveHeaderName(options, ctx);
  const verificationPrefix = await resolveVerificationPrefix(options, ctx);
  const c = ctx.color;
  const progress = await createProgressView(ctx, { json: Boolean(options.json) });
  try {
    const report = await checkConsumer({
      to,
      signing: {
        secret,
        headerName,
        verificationPrefix,
        toleranceSeconds: options.tolerance,
        skewSeconds: options.skew,
      },
      state: source,
      cases: {
        only: commaList(options.only),
        skip: commaList(options.skip),
        withReceiverChecks: options.withReceiverChecks === true,
      },
      limits: { settleMs: options.settle, burst: options.burst, timeoutMs: Math.round(options.timeout * 1000) },
      mock: { port: options.mockPort, userId: options.user },
      signal: ctx.signal,
      onProgress: (event) => {
        if (options.json) return;
        if (event.type === 'started')
          // Status, not result: stderr. The consumer must read this service, with this token.
          progress.log(
            `checking ${to.href} against the mock at ${event.apiUrl} (token ${event.token}, user ${printableLine(event.userId)}), state from ${printableLine(source.label)}, settle ${formatDuration(options.settle)}`,
          );
        else if (event.type === 'case-start') progress.update(`${event.id}: ${event.title}`);
        else if (event.type === 'bring-back')
          progress.update(`bringing the store back to the service before ${event.before}`);
        else if (event.type === 'receiver')
          for (const line of receiverLines(event.report, c)) progress.log(line, ctx.stdout);
        else progress.log(caseLine(event.result, c), ctx.stdout);
      },
    });
    progress.stop();
    if (options.json) writeJson(ctx, report);
    else {
      writeLine(ctx.stdout, summary(report, c));
      writeLine(ctx.stdout, signatureLine(report, to, c));
      if (report.ignoredDatasets.length > 0)
        writeLine(
          ctx.stderr,
          c.dim(`not compared (other entities): ${printableLine(report.ignoredDatasets.slice(0, 5).join(', '))}`),
        );
    }
    if (!report.passed) throw notConverged(report);
  } finally {
    progress.stop();
  }
}
