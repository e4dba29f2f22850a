import { entityAtPath, type EntityPaths } from '../catalogue/entity-paths.js';
import { HttpStatusError, LedgerhookError } from '../errors.js';

/**
 * A 404 on an entity's list path most likely means the service serves that entity elsewhere (the
 * spec's table and its sample disagree for expense). Says which entity, which path was tried, and the
 * path the spec itself shows where there is one; other errors pass through unchanged.
 */
export function explainEntityNotFound(error: unknown, path: string, paths: EntityPaths | undefined): unknown {
  if (!(error instanceof HttpStatusError) || error.status !== 404) return error;
  const entity = entityAtPath(path, paths);
  if (!entity) return error;
  const overridden = paths?.[entity.name] !== undefined;
  const other = !overridden && entity.specSamplePath !== undefined ? entity.specSamplePath : undefined;
  const where = overridden
    ? `the path set for ${entity.name}, ${path},`
    : `${path}, the catalogue's path for ${entity.name},`;
  return new LedgerhookError(
    'ERR_HTTP_STATUS',
    `${error.method} ${error.url} answered 404: the service has no list at ${where} so it may serve ${entity.name} at another path${other ? ` (the spec's own sample request uses ${other})` : ''}`,
    {
      cause: error,
      details: {
        reason: 'entity_path_not_found',
        entity: entity.name,
        path,
        overridden,
        ...(other ? { suggested: other } : {}),
      },
    },
  );
}
