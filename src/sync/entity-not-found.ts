import { API_ROOT_PATH, lacksApiVersion, withApiRoot } from '../catalogue/api-root.js';
import { entityAtPath, type EntityPaths } from '../catalogue/entity-paths.js';
import { HttpStatusError, LedgerhookError } from '../errors.js';

/**
 * A 404 on a list path. With a base URL that has no `/rest/vN` segment, the base URL is what is wrong
 * (every list answers 404 then), not the path. Otherwise it most likely means the service serves that
 * entity elsewhere (the spec's table and its sample disagree for expense): says which entity, which path
 * was tried, and the path the spec itself shows where there is one. Other errors pass through unchanged.
 */
export function explainEntityNotFound(
  error: unknown,
  path: string,
  paths: EntityPaths | undefined,
  baseUrl: string,
): unknown {
  if (!(error instanceof HttpStatusError) || error.status !== 404) return error;
  if (lacksApiVersion(baseUrl)) return baseUrlWithoutVersion(error, baseUrl);
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

/**
 * When every dataset of a run answered 404 (a run of several), the base URL is what is wrong, not
 * each entity's path: one error saying so, or undefined when some dataset was found.
 */
export function everyListNotFound(errors: readonly LedgerhookError[], baseUrl: string): LedgerhookError | undefined {
  const notFound = (error: LedgerhookError) =>
    error.details.reason === 'entity_path_not_found' || error.details.reason === 'base_url_not_api_root';
  if (errors.length < 2 || !errors.every(notFound)) return undefined;
  const lacks = lacksApiVersion(baseUrl);
  return new LedgerhookError(
    'ERR_HTTP_STATUS',
    `every one of the ${errors.length} datasets answered 404: the base URL ${baseUrl} is probably not the API root${lacks ? ` (it lacks ${API_ROOT_PATH})` : ` (the service's lists are usually under ${API_ROOT_PATH})`}`,
    { details: { reason: 'base_url_not_api_root', baseUrl, ...(lacks ? { suggested: withApiRoot(baseUrl) } : {}) } },
  );
}

function baseUrlWithoutVersion(error: HttpStatusError, baseUrl: string): LedgerhookError {
  return new LedgerhookError(
    'ERR_HTTP_STATUS',
    `${error.method} ${error.url} answered 404: the base URL ${baseUrl} has no /rest/vN segment, so it probably lacks ${API_ROOT_PATH}`,
    { cause: error, details: { reason: 'base_url_not_api_root', baseUrl, suggested: withApiRoot(baseUrl) } },
  );
}
