import { findEntity } from '@ledgerhook/webhooks';
import { entityPath, type EntityPaths } from '../catalogue/entity-paths.js';
import { datasetKey, jobId, tokenFingerprint, userDirName } from '../store/identity.js';
import { isObject } from '../util/is-object.js';
import { checkedTraceparent } from '../telemetry/traceparent.js';

/**
 * What a sync job carries through Redis: whose dataset, which one. Never a token (the worker maps
 * userId to its token from its own file). Job data read back from Redis is checked like any input.
 */
export interface SyncJobData {
  userId: string;
  /** The entity name from the webhook (for lines and events). */
  entity: string;
  path: string;
  filter: Record<string, string>;
  /** The delivery that caused the job (provenance in the history; a coalesced job keeps one of them). */
  deliveryId?: string | undefined;
  /** The W3C traceparent of that delivery's span, when the listener traced it (checked when read back). */
  traceparent?: string | undefined;
}

export const SYNC_JOB_NAME = 'sync';
const MAX_USER_ID = 512;

export function datasetOf(data: Pick<SyncJobData, 'path' | 'filter'>): string {
  return datasetKey(data.path, data.filter);
}

/**
 * The deduplication id of a (user, dataset): the same for every receiver, and two different pairs
 * never share one. It is identity.ts's job id (the percent-encoded owner and dataset key), for a
 * queue serving one API: the base URL is left out, and a job always has a user.
 */
export function syncDedupeId(userId: string, dataset: string): string {
  return jobId({ userId, tokenFingerprint: '', baseUrl: '', dataset });
}

/**
 * The job for one (user, entity) of an ENTITY_UPDATE, or undefined for an entity not in the catalogue.
 * `paths` are the producer's overrides of the catalogue's list paths.
 */
export function syncJobFor(userId: string, entityName: string, paths?: EntityPaths): SyncJobData | undefined {
  const entity = findEntity(entityName);
  if (!entity) return undefined;
  return { userId, entity: entity.name, path: entityPath(entity, paths), filter: {} };
}

/** A webhook's userId that can name a user (identity.ts: not '', '.' or '..', not too long). */
export function isQueueableUser(userId: string): boolean {
  if (userId.length > MAX_USER_ID) return false;
  try {
    userDirName(userId);
    return true;
  } catch {
    return false;
  }
}

/**
 * A job read back from Redis, or undefined when it is not one. The path must be the entity's
 * catalogue path or this worker's own override for it (`paths`): a job can never make a worker fetch
 * an arbitrary URL. The worker requests its own path for the entity whatever the job says.
 */
export function parseSyncJobData(value: unknown, paths?: EntityPaths): SyncJobData | undefined {
  if (!isObject(value)) return undefined;
  const { userId, entity, path, filter, deliveryId } = value;
  const traceparent = checkedTraceparent(value.traceparent);
  if (typeof userId !== 'string' || !isQueueableUser(userId) || typeof entity !== 'string') return undefined;
  const known = findEntity(entity);
  if (!known || (path !== known.path && path !== paths?.[known.name])) return undefined;
  if (!isObject(filter) || !Object.values(filter).every((v) => typeof v === 'string')) return undefined;
  // Read back from Redis like any input: an id the listener could have made, or none.
  const id = typeof deliveryId === 'string' && /^[\x21-\x7e]{1,200}$/.test(deliveryId) ? { deliveryId } : {};
  return {
    userId,
    entity: known.name,
    path: entityPath(known, paths),
    filter: filter as Record<string, string>,
    ...id,
    ...(traceparent === undefined ? {} : { traceparent }),
  };
}

/** A short, stable name for a token's rate-limit keys: its fingerprint, never the token. */
export function tokenKey(token: string): string {
  return tokenFingerprint(token);
}
