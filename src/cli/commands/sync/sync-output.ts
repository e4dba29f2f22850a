import { dirname, isAbsolute, relative } from 'node:path';
import type { FullReadReason } from '../../../store/dataset-store.js';
import type { ResumeDiscardReason, SyncProgressEvent, SyncSummary } from '../../../sync/sync-dataset.js';
import type { SyncOutcome } from '../../../sync/sync-many.js';
import type { CliContext } from '../../context.js';
import type { createProgressView } from '../../progress.js';
import { table } from '../../table.js';
import { plural } from '../../../util/plural.js';

/** What `sync` prints: the result line of a dataset, the table of --all, and the progress on stderr. */

export type Rendered = SyncSummary & { file: string };

/** Why a run read everything, in the user's words: a full read is never unexplained. */
export function fullReasonText(reason: FullReadReason | undefined, file: string): string {
  switch (reason) {
    case 'requested':
      return '--full';
    case 'data-missing':
      return 'its data was gone';
    case 'token-changed':
      return 'another access token reads it now';
    default:
      return `first sync of this dataset into ${isTable(file) ? 'this Postgres store' : relativeToCwd(dirname(file)) || '.'}`;
  }
}

/** Where Postgres keeps a dataset (store.placeOf): a table, not a path to shorten. */
const isTable = (place: string) => place.startsWith('ledgerhook_items in ');

const relativeToCwd = (path: string) => (isAbsolute(path) ? relative(process.cwd(), path) : path);

/** Why kept pages of an interrupted full read were dropped, in the user's words. */
export function discardText(reason: ResumeDiscardReason): string {
  switch (reason) {
    case 'requested':
      return 'a read from page 1 was asked for (--full or --no-resume)';
    case 'other-token':
      return 'they were read with another access token';
    case 'other-base-url':
      return 'they came from another server';
    case 'other-dataset':
      return 'they belong to another dataset or filter';
    case 'other-limit':
      return 'they were read with another --limit';
    case 'other-location':
      return 'they were kept for another store location';
    case 'state-changed':
      return 'the dataset was committed since they were read';
    case 'damaged':
      return 'they no longer match their checkpoint';
    case 'invalid-cursor':
      return 'the server no longer accepts their cursor';
  }
}

export function describe(summary: Rendered): string {
  const name = isTable(summary.file) ? summary.file : relativeToCwd(summary.file);
  const dry = summary.dryRun ? ' (dry run: nothing written)' : '';
  if (summary.mode === 'document')
    return `${summary.dataset}: not a paginated list, saved as a document in ${name}${dry}`;
  const caught = summary.catchUp
    ? `, then caught up: ${summary.catchUp.upserted} upserted, ${summary.catchUp.deleted} deleted`
    : '';
  const resume = summary.resumed
    ? `; continued at page ${summary.resumed.fromPage}${caught}`
    : summary.resumeDiscarded
      ? `; from page 1: ${discardText(summary.resumeDiscarded)}`
      : '';
  const changes =
    summary.mode === 'full'
      ? `${summary.total} items (${fullReasonText(summary.fullReason, summary.file)}${resume})`
      : `${summary.since ? `window since ${summary.since}: ` : ''}${summary.upserted} upserted, ${summary.deleted} deleted, ${summary.total} in all`;
  const quirks = summary.quirks?.length
    ? ` (the server ended the read with ${summary.quirks.map((quirk) => (quirk === 'cursor-null' ? 'cursor: null' : 'cursor: ""')).join(' and ')})`
    : '';
  return `${summary.dataset}: ${summary.mode}, ${summary.pages} page${summary.pages === 1 ? '' : 's'}, ${changes} → ${name}${dry}${quirks}`;
}

/** The end of `sync --all`: one row per dataset, then the totals. */
export function summaryTable(outcomes: readonly SyncOutcome[], ctx: CliContext): string {
  let items = 0;
  let changes = 0;
  const rows = outcomes.map((outcome) => {
    if (!outcome.ok)
      return 'stopped' in outcome
        ? [outcome.path, 'stopped', '-', '-', '-']
        : [outcome.path, ctx.color.red('failed'), '-', '-', `${(outcome.ms / 1000).toFixed(1)}s`];
    const s = outcome.summary;
    items += s.total;
    changes += s.upserted + s.deleted;
    return [s.dataset, s.mode, String(s.total), String(s.upserted + s.deleted), `${(outcome.ms / 1000).toFixed(1)}s`];
  });
  const ok = outcomes.filter((outcome) => outcome.ok).length;
  rows.push([`total: ${ok} of ${outcomes.length} synced`, '', String(items), String(changes), '']);
  return table(['dataset', 'mode', 'items', 'changes', 'time'], rows, ctx.color.bold);
}

/** Pages and items read per dataset so far: what an interrupted run says it had done. */
export type ReadSoFar = Map<string, { pages: number; items: number; kept: boolean }>;

export function progressHandler(
  ctx: CliContext,
  progress: Awaited<ReturnType<typeof createProgressView>>,
  json: boolean,
  soFar: ReadSoFar,
  all = false,
) {
  const started = Date.now();
  return (event: SyncProgressEvent) => {
    if (event.type === 'page')
      soFar.set(event.dataset, { pages: event.page, items: event.itemsSoFar, kept: event.kept === true });
    if (event.type === 'page') {
      const rate = event.itemsSoFar / Math.max(0.001, (Date.now() - started) / 1000);
      progress.update(`${event.dataset}: page ${event.page}, ${event.itemsSoFar} items (${rate.toFixed(0)}/s)`);
    } else if (event.type === 'retry') {
      const wait =
        event.waitMs >= 10_000 ? `${Math.round(event.waitMs / 1000)} s` : `${(event.waitMs / 1000).toFixed(1)} s`;
      progress.log(
        ctx.color.yellow(
          event.rateLimited
            ? `${event.dataset}: rate limited, retrying in ${wait} (attempt ${event.attempt}; pages read so far are kept)`
            : `${event.dataset}: retrying in ${wait} (attempt ${event.attempt}): ${event.reason}`,
        ),
      );
    } else if (event.type === 'resume') {
      progress.log(
        `${event.dataset}: continuing an interrupted full read at page ${event.fromPage} (${plural(event.fromPage - 1, 'page')}, ${plural(event.itemsKept, 'item')} kept, the last at ${event.savedAt})`,
      );
    } else if (event.type === 'resume-discarded') {
      const detail = event.detail ? ` (${event.detail})` : '';
      progress.log(
        ctx.color.yellow(
          `${event.dataset}: dropped ${plural(event.pages, 'kept page')} of an interrupted full read: ${discardText(event.reason)}${detail}`,
        ),
      );
    } else if (event.type === 'start') {
      progress.update(`${event.dataset}: ${event.mode === 'full' ? 'full read' : `changes since ${event.since}`}`);
    } else if (event.type === 'done' && !json && all) {
      // One line per dataset: a single dataset's result line says it all; --all logs each as it ends.
      progress.log(
        `${ctx.color.green('✔')} ${event.summary.dataset}: ${event.summary.mode}, ${event.summary.total} items`,
      );
    }
  };
}
