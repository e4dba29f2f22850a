import { ENTITIES, type EntityDefinition } from '@ledgerhook/webhooks';
import type { PathSettingKey } from '../settings/environments.js';
import { listUrl } from '../sync/paginate.js';
import type { ListAnswer, ProbeRun } from './probe-run.js';

/** Where an entity answered (or did not), and what. */
export interface Located {
  entity: EntityDefinition;
  /** Every path tried, with its status, in order. */
  tried: Array<{ path: string; status: number }>;
  /** The path that answered with something other than 404, and its answer. */
  path?: string | undefined;
  answer?: ListAnswer | undefined;
}

// The spec's samples put the API root at {base_url}/rest/v5 (spec 9).
const VERSIONED = /\/rest\/v\d+$/;
export const SPEC_ROOT = '/rest/v5';

/**
 * An entity at its table path; after a 404, at the other path the spec itself shows (expense's
 * /expenses/expenses) and at the `paths.*` stored for it. A list is asked for one item (`limit: 1`)
 * unless `request` says otherwise; a document (userTaxSetup) without a limit.
 */
export async function locate(
  run: ProbeRun,
  entity: EntityDefinition,
  request: { limit?: number | undefined } = { limit: entity.paginated ? 1 : undefined },
): Promise<Located> {
  const candidates = [...new Set([entity.path, entity.specSamplePath, run.paths[entity.name]])].filter(
    (path): path is string => path !== undefined,
  );
  const tried: Located['tried'] = [];
  for (const path of candidates) {
    const answer = await run.get(path, request);
    tried.push({ path, status: answer.status });
    if (answer.status !== 404) return { entity, tried, path, answer };
  }
  return { entity, tried };
}

/**
 * Every list 404s at a base URL without /rest/vN: asks once at base/rest/v5 (the spec's root); when
 * that answers, the probe goes on there and the finding says to store it.
 */
export async function checkVersionedRoot(run: ProbeRun, located: Located): Promise<boolean> {
  if (VERSIONED.test(new URL(run.baseUrl).pathname.replace(/\/+$/, ''))) return false;
  const root = `${run.baseUrl}${SPEC_ROOT}`;
  const answer = await run.get(located.entity.path, { limit: 1 }, root);
  if (answer.status === 404) return false;
  run.add({
    area: 'reachability',
    id: 'base-url',
    quirk: 'base-url-without-version',
    observed: `${listUrl(run.baseUrl, located.entity.path).href} answered 404 and ${listUrl(root, located.entity.path).href} answered ${answer.status}: the API root is ${root} (the spec's samples use {base_url}${SPEC_ROOT})`,
    setting: run.imply('baseUrl', root, true),
  });
  run.baseUrl = root;
  return true;
}

/** The findings of the paths phase: one per entity that is not at its table path, one for the rest. */
export function pathFindings(run: ProbeRun, located: readonly Located[]): void {
  const atTable: string[] = [];
  for (const entry of located) {
    const { entity, path, answer } = entry;
    const tried = entry.tried.map((attempt) => `${attempt.path} ${attempt.status}`).join(', ');
    if (path === undefined) {
      run.add({
        area: 'paths',
        id: `path.${entity.name}`,
        quirk: 'path-not-found',
        observed: `${entity.name}: no list at ${entry.tried.map((attempt) => attempt.path).join(' or ')} (404); sync of ${entity.name} fails until its path is set (paths.${entity.name})`,
      });
      continue;
    }
    const document = answer?.status === 200 && answer.page === undefined;
    if (answer?.status !== 200)
      run.add({ area: 'paths', id: `path.${entity.name}`, observed: `${entity.name}: ${tried}` });
    else if (entity.paginated && document)
      run.add({
        area: 'paths',
        id: `path.${entity.name}`,
        observed: `${entity.name}: ${path} answered 200 with something that is not a list envelope (no data array and lastUpdatedDate)`,
      });
    else if (!entity.paginated && !document)
      run.add({
        area: 'paths',
        id: `path.${entity.name}`,
        quirk: 'list-not-document',
        observed: `${entity.name}: ${path} answers a list envelope, where the spec names it as not paginated; sync reads it as a list`,
      });
    if (path !== entity.path) {
      run.add({
        area: 'paths',
        id: `path.${entity.name}.moved`,
        quirk: path.startsWith(`${entity.path}/`) ? 'nested-path' : 'other-path',
        observed: `${entity.name}: ${tried}: it is served at ${path}`,
        setting: run.imply(`paths.${entity.name}` as PathSettingKey, path, true),
      });
    } else if (answer?.status === 200) atTable.push(entity.name);
  }
  if (atTable.length > 0) {
    const taxSetup = located.find((entry) => entry.entity.name === 'userTaxSetup');
    const document =
      atTable.includes('userTaxSetup') && taxSetup?.answer?.page === undefined ? ' (userTaxSetup as one document)' : '';
    run.add({
      area: 'paths',
      id: 'paths',
      observed: `${atTable.length} of ${ENTITIES.length} entities answer at their table paths${document}`,
    });
  }
}
