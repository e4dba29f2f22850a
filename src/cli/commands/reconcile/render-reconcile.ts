import { isAbsolute, relative } from 'node:path';
import type { ItemId } from '../../../dataset/item-id.js';
import type { DatasetStore } from '../../../store/dataset-store.js';
import type { ReconcileResult } from '../../../sync/reconcile.js';
import type { CliContext } from '../../context.js';
import { quoted } from '../../render-delivery.js';

/** Ids printed per kind of difference; --json lists every one. */
const SHOWN_IDS = 20;

const place = (store: DatasetStore, result: ReconcileResult) => {
  const where = store.placeOf({ userId: result.userId, dataset: result.dataset });
  return store.kind === 'files' && isAbsolute(where) ? relative(process.cwd(), where) : where;
};

function idList(ids: readonly ItemId[]): string {
  // Ids come from the service: a string id never drives the terminal (C1 controls escaped too).
  const shown = ids.slice(0, SHOWN_IDS).map((id) => (typeof id === 'string' ? quoted(id) : String(id)));
  return ids.length > SHOWN_IDS
    ? `${shown.join(', ')} … and ${ids.length - SHOWN_IDS} more (--json lists all)`
    : shown.join(', ');
}

/** A reconcile's lines: equal, or the difference by kind with its ids, and the repair. */
export function renderReconcile(result: ReconcileResult, store: DatasetStore, ctx: CliContext): string[] {
  const c = ctx.color;
  const counts = `server ${result.serverItems}, stored ${result.storedItems} in ${place(store, result)}`;
  if (result.equal) return [`${c.green('✔')} ${result.dataset}: equal (${counts})`];
  const kinds = (['missing', 'extra', 'different'] as const).filter((kind) => result[kind].length > 0);
  const lines = [
    `${c.red('✖')} ${result.dataset}: ${kinds.map((kind) => `${result[kind].length} ${kind}`).join(', ')} (${counts})`,
    ...kinds.map((kind) => `    ${kind}: ${idList(result[kind])}`),
  ];
  if (result.repaired)
    lines.push(
      `  ${c.green('repaired')}: ${result.repaired.upserted} upserted, ${result.repaired.removed} removed, ${result.repaired.total} in all; the next sync goes on from ${result.lastUpdatedDate}`,
    );
  return lines;
}
