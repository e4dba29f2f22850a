import type { ChalkInstance } from 'chalk';
import type { SyncSummary } from '../sync/sync-options.js';
import { describeDrift } from '../sync/schema-drift.js';
import { describeStampBehind } from '../sync/server-stamp.js';
import { quoted } from './render-delivery.js';

/**
 * One webhook-driven run's result as a line, in the words `listen --sync` and `worker` share. The
 * userId comes from a webhook: quoted, so that no control character reaches the terminal.
 */
export function syncDoneLine(
  summary: Pick<SyncSummary, 'dataset' | 'mode' | 'upserted' | 'deleted' | 'total' | 'drift' | 'stampBehind'>,
  userId: string,
  c: ChalkInstance,
): string {
  const drift = summary.drift ? `; schema: ${describeDrift(summary.drift)}` : '';
  const behind = summary.stampBehind ? c.yellow(`; ${describeStampBehind(summary.stampBehind)}`) : '';
  return `  ${c.green('✔')} ${summary.dataset} for ${quoted(userId)}: ${summary.mode}, ${summary.upserted} upserted, ${summary.deleted} deleted, ${summary.total} items${drift}${behind}`;
}
