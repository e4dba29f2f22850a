import { LedgerhookError } from '../../../errors.js';
import type { DatasetStore } from '../../../store/dataset-store.js';
import { datasetRef, type SyncDatasetOptions } from '../../../sync/sync-dataset.js';
import type { SyncOutcome } from '../../../sync/sync-many.js';
import { describeDrift } from '../../../sync/schema-drift.js';
import { describeStampBehind } from '../../../sync/server-stamp.js';
import { everyListNotFound } from '../../../sync/entity-not-found.js';
import { type CliContext, writeJson, writeLine } from '../../context.js';
import { withAdvice } from '../../error-advice.js';
import { jsonError, jsonLine } from '../../json-output.js';
import { plural } from '../../../util/plural.js';
import type { SyncCommandOptions } from './definition.js';
import { describe, type ReadSoFar, summaryTable } from './sync-output.js';

/** What a sync run (or a watch round) says of each dataset: its summary, or why it failed. */
export function report(
  options: Pick<SyncCommandOptions, 'json' | 'all'>,
  ctx: CliContext,
  store: DatasetStore,
  datasets: readonly SyncDatasetOptions[],
  outcomes: readonly SyncOutcome[],
  round?: number,
): void {
  const fileOf = (index: number) => {
    const dataset = datasets[index];
    return dataset ? store.placeOf(datasetRef(dataset)) : '';
  };
  // The dataset as the user named it, filter included (/expenses?type=PENDING).
  const nameOf = (index: number, path: string) => {
    const dataset = datasets[index];
    return dataset ? datasetRef(dataset).dataset : path;
  };
  const rendered = outcomes.map((outcome, index) => {
    if (outcome.ok) return { ok: true, ...outcome.summary, file: fileOf(index) };
    if ('stopped' in outcome) return { ok: false, dataset: nameOf(index, outcome.path), stopped: true };
    return { ok: false, dataset: nameOf(index, outcome.path), error: jsonError(outcome.error) };
  });
  if (options.json && round !== undefined) {
    writeLine(ctx.stdout, jsonLine('round', { round, datasets: rendered }));
  } else if (options.json && options.all) {
    writeJson(ctx, { datasets: rendered });
  } else if (options.json) {
    // One dataset: its summary is the document; on failure the contract's error says why.
    const [only] = rendered;
    if (only) {
      const { ok: _ok, error: _error, ...fields } = only as Record<string, unknown>;
      writeJson(ctx, fields);
    }
  } else if (!options.all)
    outcomes.forEach((outcome, index) => {
      if (!outcome.ok) return;
      writeLine(ctx.stdout, `${ctx.color.green('✔')} ${describe({ ...outcome.summary, file: fileOf(index) })}`);
      if (outcome.summary.drift) writeLine(ctx.stdout, `  schema: ${describeDrift(outcome.summary.drift)}`);
    });
  // The server's stamp went back past the stored one: said on every run it happens (--json: stampBehind).
  if (!options.json)
    for (const outcome of outcomes)
      if (outcome.ok && outcome.summary.stampBehind)
        writeLine(
          ctx.stderr,
          `${ctx.color.yellow('warning:')} ${outcome.summary.dataset}: ${describeStampBehind(outcome.summary.stampBehind)}`,
        );
  // Every dataset answering 404 is one mistake (the base URL), said once by verdict(), not per dataset.
  const oneMistake = datasets[0] !== undefined && everyListNotFound(failuresOf(outcomes), datasets[0].baseUrl);
  if ((options.all || round !== undefined) && !oneMistake)
    for (const outcome of outcomes)
      if (!outcome.ok && !('stopped' in outcome))
        writeLine(ctx.stderr, `${ctx.color.red('✖')} ${outcome.path}: ${withAdvice(outcome.error)}`);
  if (options.all && !options.json) {
    writeLine(ctx.stdout, summaryTable(outcomes, ctx));
    for (const outcome of outcomes)
      if (outcome.ok && outcome.summary.drift)
        writeLine(ctx.stdout, `schema of ${outcome.summary.dataset}: ${describeDrift(outcome.summary.drift)}`);
  }
}

/** The errors of the datasets that failed (not those left as they were by a stop). */
function failuresOf(outcomes: readonly SyncOutcome[]): LedgerhookError[] {
  return outcomes.flatMap((outcome) => (!outcome.ok && !('stopped' in outcome) ? [outcome.error] : []));
}

/** The exit: interrupted (which datasets finished, which were left), failed, or fine. */
export function verdict(
  options: Pick<SyncCommandOptions, 'all'>,
  ctx: CliContext,
  outcomes: readonly SyncOutcome[],
  soFar: ReadSoFar,
  baseUrl: string,
): void {
  const stopped = outcomes.filter((outcome) => !outcome.ok && 'stopped' in outcome);
  if (ctx.signal.aborted || stopped.length > 0) {
    const done = outcomes.filter((outcome) => outcome.ok).map((outcome) => outcome.path);
    const left = stopped.map((outcome) => {
      const read = soFar.get(outcome.path);
      // Kept with a checkpoint: the next run goes on where this one stopped.
      const kept = read?.kept ? `; kept: the next run goes on at page ${read.pages + 1}` : '';
      return read
        ? `${outcome.path} (${plural(read.pages, 'page')}, ${plural(read.items, 'item')} read, not committed: a run commits only once its read is complete${kept})`
        : outcome.path;
    });
    const finished = done.length ? `finished: ${done.join(', ')}; ` : '';
    throw new LedgerhookError(
      'ERR_ABORTED',
      `sync stopped; ${finished}left as they were (nothing half-written): ${left.join(', ') || 'none'}`,
    );
  }
  const failures = outcomes.filter((outcome) => !outcome.ok);
  const first = failures[0];
  if (first === undefined || 'stopped' in first) return;
  if (!options.all) throw first.error;
  const errors = failuresOf(outcomes);
  const everyNotFound = errors.length === outcomes.length ? everyListNotFound(errors, baseUrl) : undefined;
  if (everyNotFound) throw everyNotFound;
  throw new LedgerhookError(
    first.error.code,
    failures.length === outcomes.length
      ? `all ${outcomes.length} datasets failed`
      : `${failures.length} of ${outcomes.length} datasets failed; the others are synced`,
  );
}
