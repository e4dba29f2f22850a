import { MAX_CAPTURE_LINE_BYTES } from '../../../capture/capture-lines.js';
import { canonical, type ItemId } from '../../../dataset/item-id.js';
import type { HistoryEntry } from '../../../store/dataset-history.js';
import { datasetKey } from '../../../store/identity.js';
import { type CliContext, writeJson, writeLine } from '../../context.js';
import { printable, quoted } from '../../render-delivery.js';
import { fileStore, resolveDatasetPath, resolveFilter } from '../../resolve-dataset.js';
import { postgresStore, resolveStoreUrl } from '../../resolve-scale.js';
import { resolveEntityPaths } from '../../resolve-settings.js';
import type { HistoryCommandOptions } from './definition.js';
import { plural } from '../../../util/plural.js';

/** An id as typed: 7 and "7" are one id (item-id.ts), anything else a string. */
const parseId = (text: string): ItemId => canonical(text);

/** Top-level fields that differ between two versions, as `field: old → new` (values cut short). */
function changedFields(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown> | undefined,
): string {
  if (!before || !after) return '';
  const show = (value: unknown) => {
    const text = value === undefined ? '—' : JSON.stringify(value);
    return printable(text.length > 40 ? `${text.slice(0, 39)}…` : text);
  };
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys
    .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))
    .map((key) => `${printable(key)}: ${show(before[key])} → ${show(after[key])}`)
    .join(', ');
}

function line(entry: HistoryEntry, previous: HistoryEntry | undefined, withId: boolean): string {
  const what =
    entry.op === 'upsert'
      ? previous && previous.op === 'upsert'
        ? 'changed'
        : 'added'
      : `removed${entry.reason ? ` (${entry.reason})` : ''}`;
  const source = entry.cause === 'webhook' ? `webhook ${printable(entry.deliveryId ?? '?')}` : entry.cause;
  const diff = entry.op === 'upsert' ? changedFields(previous?.item, entry.item) : '';
  const id = withId ? `id ${typeof entry.id === 'string' ? quoted(entry.id) : String(entry.id)} ` : '';
  // The page date came from the service, the run from a file on disk: neither drives the terminal.
  const page = entry.page ? `, page of ${printable(entry.page)}` : '';
  return `${printable(entry.at)}  ${id}${what}  by ${source}, ${printable(entry.run)}${page}${diff ? `\n    ${diff}` : ''}`;
}

export async function run(options: HistoryCommandOptions, ctx: CliContext): Promise<void> {
  const path = resolveDatasetPath(options.target, await resolveEntityPaths({}, ctx));
  const ref = { userId: options.user ?? '', dataset: datasetKey(path, resolveFilter(options)) };
  const storeUrl = resolveStoreUrl(options, ctx);
  const store = storeUrl ? await postgresStore(storeUrl, 1) : await fileStore(ctx, options.out);
  let entries: HistoryEntry[];
  let skippedLines = 0;
  const latest = options.id === undefined && !options.deleted;
  const read = { onSkipped: (lines: number) => (skippedLines = lines), ...(latest ? { last: options.last } : {}) };
  try {
    entries = options.deleted
      ? await store.tombstones(ref, read)
      : await store.history(ref, options.id === undefined ? undefined : parseId(options.id), read);
  } finally {
    await store.close();
  }
  const shown = latest ? entries.slice(-options.last) : entries;
  if (skippedLines > 0)
    writeLine(
      ctx.stderr,
      `${ctx.color.yellow('warning:')} ${plural(skippedLines, 'line')} of the history kept beside ${store.placeOf(ref)} skipped (longer than ${MAX_CAPTURE_LINE_BYTES / 1024 / 1024} MiB, or not JSON)`,
    );
  if (options.json) {
    writeJson(ctx, {
      dataset: ref.dataset,
      userId: ref.userId,
      ...(options.id !== undefined ? { id: parseId(options.id) } : {}),
      entries: shown,
      skippedLines,
    });
    return;
  }
  const subject = options.deleted ? 'tombstones' : options.id !== undefined ? `id ${printable(options.id)}` : 'changes';
  if (shown.length === 0) {
    writeLine(ctx.stdout, ctx.color.dim(`${ref.dataset}: no ${subject} recorded (${store.placeOf(ref)})`));
    return;
  }
  writeLine(
    ctx.stdout,
    ctx.color.bold(
      `${ref.dataset}${ref.userId ? ` of ${quoted(ref.userId)}` : ''}: ${shown.length} ${subject === 'changes' ? 'latest changes' : subject}`,
    ),
  );
  let previous: HistoryEntry | undefined;
  for (const entry of shown) {
    writeLine(
      ctx.stdout,
      `  ${line(entry, options.id !== undefined ? previous : undefined, options.id === undefined)}`,
    );
    previous = entry;
  }
}
