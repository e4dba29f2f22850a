import type pg from 'pg';
import { LedgerhookError } from '../../errors.js';
import type { ChangeSet, CommitResult, DatasetRef, DatasetState } from '../dataset-store.js';
import { deleteReturning, recordChanges } from './postgres-history.js';
import {
  countItems,
  datasetLockKey,
  deleteItems,
  rowKey,
  STATE_COLUMNS,
  type StateRow,
  upsertItems,
  writeState,
} from './postgres-rows.js';

/**
 * An incremental run's changes (or a repair's) applied in the caller's transaction: upserts,
 * deletes (kept as tombstones and recorded in the history when the change says where it came
 * from) and the state, together; refused when the dataset has no state or another token's.
 */
export async function applyChangeSet(
  client: pg.ClientBase,
  ref: DatasetRef,
  changes: ChangeSet,
  state: DatasetState,
  historyDays: number,
): Promise<CommitResult> {
  // Locks the state row (or, before the first state, the dataset) against a concurrent run.
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [datasetLockKey(ref)]);
  const current = await client.query<StateRow>(
    `SELECT ${STATE_COLUMNS} FROM ledgerhook_state WHERE user_id = $1 AND dataset = $2`,
    [ref.userId, ref.dataset],
  );
  const before = current.rows[0];
  if (!before)
    throw new LedgerhookError('ERR_USAGE', `${ref.dataset} of user "${ref.userId}" has no state to apply changes to`, {
      details: { reason: 'store_state_missing', dataset: ref.dataset },
    });
  if (before.token_fingerprint !== '' && before.token_fingerprint !== ref.tokenFingerprint)
    throw new LedgerhookError(
      'ERR_USAGE',
      `${ref.dataset} of user "${ref.userId}" was synced with another access token; changes are not merged into it`,
      { details: { reason: 'store_token_changed', dataset: ref.dataset } },
    );
  const upsertIds = new Set(changes.upserts.map((item) => rowKey(item.id)));
  const removedIds = [...new Set(changes.deletedIds.map(rowKey))].filter((id) => !upsertIds.has(id));
  const inserted = await upsertItems(client, ref, changes.upserts);
  let removed: number;
  if (changes.origin) {
    const gone = await deleteReturning(client, ref, removedIds);
    removed = gone.length;
    await recordChanges(client, ref, changes.origin, changes.upserts, gone, {
      ...changes,
      days: historyDays,
    });
  } else removed = await deleteItems(client, ref, removedIds);
  // Counted from the previous total, not with count(*): an incremental run touches only its rows.
  // A repair counts, since the rows it repairs may have been changed behind the count's back.
  const total = changes.recount ? await countItems(client, ref) : Number(before.items) + inserted - removed;
  await writeState(client, ref, { ...state, items: total, run: changes.origin?.run });
  return { total, upserted: upsertIds.size, removed };
}
