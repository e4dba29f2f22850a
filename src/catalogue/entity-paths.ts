/**
 * catalogue/: where each entity of the catalogue is read (the tables themselves are
 * @ledgerhook/webhooks').
 *   entity-paths.ts  per-entity path overrides (`paths.expense`), checked once, used wherever an
 *                    entity becomes a request
 *   api-root.ts      the `/rest/v5` every list path is under, and whether a base URL lacks it
 *   resolve.ts       a name typed on the command line to an entity or event
 */
import { LedgerhookError } from '../errors.js';
import { ENTITIES, findEntity, type EntityDefinition } from '@ledgerhook/webhooks';

/**
 * Per-entity list paths that replace the catalogue's (spec 4.2's table) for a service that serves an
 * entity elsewhere, e.g. `{ expense: '/expenses/expenses' }`. The spec was written from samples: its
 * table and its only real request disagree for expense, so the path is a setting, not a constant.
 */
export type EntityPaths = Readonly<Partial<Record<string, string>>>;

// Plain path segments only: an override becomes part of a URL and a file name, never a query, a
// fragment, `..` or an empty segment.
const SEGMENT = /^[A-Za-z0-9_\-.~]+$/;

/** An override path as it will be requested: one leading slash, plain segments, no trailing slash. */
export function checkEntityPath(path: string, entity: string): string {
  const trimmed = path.trim().replace(/\/+$/, '');
  const segments = trimmed.split('/').slice(1);
  const usable =
    trimmed.startsWith('/') &&
    segments.length > 0 &&
    segments.every((segment) => SEGMENT.test(segment) && segment !== '.' && segment !== '..');
  if (!usable)
    throw new LedgerhookError(
      'ERR_USAGE',
      `the path for ${entity} "${path.slice(0, 80)}" is not a usable list path (e.g. /expenses/expenses: plain segments after a leading slash)`,
      { details: { reason: 'invalid_entity_path', entity } },
    );
  return trimmed;
}

/** Checks every override: known entity names, usable paths. Returns them normalised. */
export function checkEntityPaths(paths: EntityPaths | undefined): EntityPaths {
  const checked: Record<string, string> = {};
  for (const [name, path] of Object.entries(paths ?? {})) {
    if (path === undefined) continue;
    if (!findEntity(name))
      throw new LedgerhookError('ERR_USAGE', `"${name.slice(0, 80)}" is not an entity of the catalogue`, {
        details: { reason: 'unknown_entity', entity: name },
      });
    checked[name] = checkEntityPath(path, name);
  }
  return checked;
}

/** The path to request for an entity: its override, else the catalogue's. */
export function entityPath(entity: EntityDefinition, paths?: EntityPaths): string {
  return paths?.[entity.name] ?? entity.path;
}

/** The entity a dataset path stands for: an override first, then the catalogue's table. */
export function entityAtPath(path: string, paths?: EntityPaths): EntityDefinition | undefined {
  const overridden = Object.entries(paths ?? {}).find(([, value]) => value === path)?.[0];
  const entity = overridden === undefined ? undefined : findEntity(overridden);
  return entity ?? ENTITIES.find((candidate) => candidate.path === path && paths?.[candidate.name] === undefined);
}
