import type { CaptureRecord } from '../../../capture/capture-record.js';
import { roundMs } from '../../../util/percentiles.js';
import { printable, printableLine } from '../../render-delivery.js';
import { readCaptures, selectCaptures } from '../../../capture/read-captures.js';
import { usageError } from '../../../errors.js';
import { describeVerdict } from '../../../replay/captured-delivery.js';
import { sendSummaryError, type DeliveryOutcome } from '../../../delivery/send-deliveries.js';
import { assertResignable } from '../../../capture/original-token.js';
import {
  planReplay,
  replayDeliveries,
  resignedRecords,
  type PlannedReplay,
  type ReplayPlan,
} from '../../../replay/replay.js';
import type { LabelledSecret } from '@ledgerhook/webhooks';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import type { ReplayCommandOptions } from './definition.js';
import { captureSelector } from '../captures/capture-selector.js';
import { checkFlags, chooseRecords, nothingToResend } from './replay-selection.js';
import { owedAttempts } from './replay-owed.js';
import { describeRecord } from '../../delivery-line.js';
import { sayCaptureWarnings } from '../../capture-warnings.js';
import { requireWebhookSecrets, resolveHeaderName, resolveVerificationPrefix } from '../../resolve-settings.js';

const deliveries = (count: number) => `${count} ${count === 1 ? 'delivery' : 'deliveries'}`;

interface ReplayLine {
  id: string;
  verdict: string;
  mode: PlannedReplay['mode'];
  status?: number | undefined;
  latencyMs?: number | undefined;
  error?: string | undefined;
}

function humanLine(line: ReplayLine, record: CaptureRecord, ctx: CliContext): string {
  const c = ctx.color;
  const how = line.mode === 're-signed' ? 're-signed' : 'as captured';
  const verdict = line.verdict === 'valid' ? c.green(line.verdict) : c.yellow(line.verdict);
  const head = `${c.dim(printableLine(record.id))} ${describeRecord(record)} [${printable(verdict)}] ${how}`;
  if (line.error !== undefined) return `${head} → ${c.red(`no answer: ${printable(line.error)}`)}`;
  if (line.status === undefined) return `${head} (dry run: not sent)`;
  const paint = line.status >= 200 && line.status < 300 ? c.green : c.red;
  return `${head} → ${paint(String(line.status))} in ${line.latencyMs} ms`;
}

type Skipped = Array<{ id: string; verdict: string }>;

/** Says on stderr what is not sent, and warns when refused deliveries are about to verify. */
function announce(
  plan: ReplayPlan,
  skipped: Skipped,
  url: URL,
  options: Pick<ReplayCommandOptions, 'json' | 'dryRun'>,
  ctx: CliContext,
): void {
  const c = ctx.color;
  // Where it goes, resolved, before anything is sent (a typed target is never silently reinterpreted).
  if (!options.json)
    writeLine(
      ctx.stderr,
      `${options.dryRun ? 'would replay' : 'replaying'} ${deliveries(plan.send.length)} to ${url.href}`,
    );
  if (skipped.length > 0 && !options.json) {
    const verdicts = [...new Set(skipped.map((s) => s.verdict))].join(', ');
    writeLine(
      ctx.stderr,
      `${c.yellow('note:')} skipped ${deliveries(skipped.length)} not verified at receipt (${verdicts}); --include-refused or --include-unverified sends them`,
    );
  }
  if (plan.send.some((p) => p.verdict === 'refused' && p.mode === 're-signed'))
    writeLine(
      ctx.stderr,
      `${c.yellow('warning:')} re-signing deliveries that listen refused at receipt (their original tokens verify now): they will be accepted although they were not then`,
    );
}

function dryRun(
  plan: ReplayPlan,
  skipped: Skipped,
  url: URL,
  options: Pick<ReplayCommandOptions, 'json'>,
  ctx: CliContext,
): void {
  const lines = plan.send.map((p) => ({ id: p.record.id, verdict: describeVerdict(p.record), mode: p.mode }));
  if (options.json) {
    writeJson(ctx, { url: url.href, dryRun: true, deliveries: lines, skipped });
    return;
  }
  plan.send.forEach((p, index) => {
    const line = lines[index];
    if (line) writeLine(ctx.stdout, humanLine(line, p.record, ctx));
  });
  writeLine(ctx.stdout, `dry run: would send ${deliveries(plan.send.length)} to ${url.href}; nothing was sent`);
}

function lineFor(planned: PlannedReplay, outcome: DeliveryOutcome): ReplayLine {
  const line: ReplayLine = { id: planned.record.id, verdict: describeVerdict(planned.record), mode: planned.mode };
  if (!outcome.ok) return { ...line, error: outcome.error.message };
  return { ...line, status: outcome.response.status, latencyMs: roundMs(outcome.response.latencyMs) };
}

/** The secrets, when anything is re-signed: the first signs, and every original token must verify with one. */
async function resigning(plan: ReplayPlan, options: ReplayCommandOptions, ctx: CliContext) {
  if (!plan.send.some((p) => p.mode === 're-signed')) return undefined;
  const secrets: LabelledSecret[] = await requireWebhookSecrets(options, ctx);
  const verificationPrefix = await resolveVerificationPrefix(options, ctx);
  // Before anything is sent or listed as sendable: the same check replayDeliveries makes.
  await assertResignable(resignedRecords(plan.send), { secrets, verificationPrefix });
  return { secrets, verificationPrefix };
}

export async function run(options: ReplayCommandOptions, ctx: CliContext): Promise<void> {
  // Flags before the file: a missing target is said without reading anything.
  checkFlags(options);
  const capture = await readCaptures(options.file);
  sayCaptureWarnings(options.file, capture, ctx);
  const all = capture.records;
  const selector = captureSelector(options, all);
  if (options.edit) return (await import('./replay-edit.js')).runEdit(options, ctx, all);
  if (options.capture !== undefined) throw usageError('--capture goes with --edit', 'conflicting_flags');
  const { records, url, owedRoute } = chooseRecords(options, all);
  if ((options.failed || options.owed) && records.length === 0) return nothingToResend(options, ctx);
  const plan = planReplay(selectCaptures(records, selector), {
    includeUnverified: options.includeUnverified,
    includeRefused: options.includeRefused,
    resignRefused: options.resignRefused,
    asCaptured: options.asCaptured,
  });
  const skipped = plan.skipped.map(({ record }) => ({ id: record.id, verdict: describeVerdict(record) }));
  const signing = await resigning(plan, options, ctx);
  announce(plan, skipped, url, options, ctx);
  if (options.dryRun) return dryRun(plan, skipped, url, options, ctx);
  // No fallback name: each delivery then keeps the header it was captured with.
  const headerName = await resolveHeaderName(options, ctx, '');
  const owed = owedRoute === undefined ? undefined : owedAttempts(owedRoute, url);
  const lines: ReplayLine[] = [];
  let summary: Awaited<ReturnType<typeof replayDeliveries>>['summary'];
  try {
    ({ summary } = await replayDeliveries({
      planned: plan.send,
      url,
      concurrency: options.concurrency,
      timeoutMs: Math.round(options.timeout * 1000),
      signal: ctx.signal,
      secret: signing?.secrets[0]?.secret,
      secrets: signing?.secrets,
      headerName: headerName === '' ? undefined : headerName,
      verificationPrefix: signing?.verificationPrefix,
      delayMs: options.delay,
      onProgress: ({ planned, outcome }) => {
        owed?.add(planned, outcome);
        const line = lineFor(planned, outcome);
        lines.push(line);
        if (!options.json) writeLine(ctx.stdout, humanLine(line, planned.record, ctx));
      },
    }));
  } finally {
    // Also when stopped: what went out is owed no more.
    await owed?.write(options.file);
  }
  const recorded = owed === undefined ? {} : { recorded: owed.count };
  if (options.json)
    writeJson(ctx, {
      url: url.href,
      results: lines,
      skipped,
      ...summary,
      ...recorded,
      elapsedMs: Math.round(summary.elapsedMs),
    });
  else {
    writeLine(
      ctx.stdout,
      `replayed ${summary.sent} of ${deliveries(records.length)} captured to ${url.href}: ${summary.succeeded} answered 2xx${skipped.length > 0 ? `, ${skipped.length} skipped` : ''}`,
    );
    if (owed !== undefined && owed.count > 0)
      writeLine(
        ctx.stdout,
        ctx.color.dim(`recorded in ${options.file} as attempts of route ${printableLine(owedRoute ?? '')}`),
      );
  }
  const failed = sendSummaryError(summary, url, 'replayed');
  if (failed) throw failed;
}
