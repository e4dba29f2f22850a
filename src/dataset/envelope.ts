import { isObject } from '../util/is-object.js';
import { collisionIn, inexactId, isItemId, type ItemId, showId } from './item-id.js';

/** Spec 2.4: one page of a list endpoint. */
export interface ListPage {
  data: Array<Record<string, unknown> & { id: number | string }>;
  lastUpdatedDate: string;
  cursor?: string;
  deletedIds?: Array<number | string>;
}

/**
 * What a real serialiser does that the spec's sample does not show: the last page's cursor written as
 * null or "" instead of left out. Both end the read, and the run says which it met.
 */
export type EnvelopeQuirk = 'cursor-null' | 'cursor-empty';

export type ClassifiedBody =
  | { kind: 'page'; page: ListPage; quirk?: EnvelopeQuirk | undefined }
  | { kind: 'document'; body: unknown }
  /** `code`: a finer reason than a broken envelope, when its ids are what is wrong. */
  | { kind: 'invalid'; reason: string; code?: 'id_not_exact' | 'id_collision' | undefined };

/**
 * Tells an envelope from a plain document (/userTaxSetup answers one settings object) and from
 * a broken envelope, saying exactly what is wrong with the latter.
 */
export function classifyBody(answer: unknown): ClassifiedBody {
  if (!isObject(answer)) return { kind: 'document', body: answer };
  let body: Record<string, unknown> = answer;
  if (!('data' in body || 'lastUpdatedDate' in body || 'cursor' in body)) return { kind: 'document', body };
  if (!Array.isArray(body.data)) return { kind: 'invalid', reason: 'data is not an array' };
  if (typeof body.lastUpdatedDate !== 'string' || !Number.isFinite(Date.parse(body.lastUpdatedDate)))
    return {
      kind: 'invalid',
      reason: `lastUpdatedDate is ${body.lastUpdatedDate === undefined ? 'missing' : `not a timestamp (${JSON.stringify(body.lastUpdatedDate)})`}`,
    };
  let quirk: EnvelopeQuirk | undefined;
  if (body.cursor === null || body.cursor === '') {
    quirk = body.cursor === null ? 'cursor-null' : 'cursor-empty';
    const { cursor: _end, ...rest } = body;
    body = rest;
  }
  const data = body.data as unknown[];
  if (body.cursor !== undefined && typeof body.cursor !== 'string')
    return {
      kind: 'invalid',
      reason: `cursor is ${Array.isArray(body.cursor) ? 'an array' : `a ${typeof body.cursor}`}, not a string`,
    };
  if (body.deletedIds !== undefined && (!Array.isArray(body.deletedIds) || !body.deletedIds.every(isItemId)))
    return { kind: 'invalid', reason: 'deletedIds is not an array of ids' };
  const badItem = data.findIndex((item) => !isObject(item) || !isItemId(item.id));
  if (badItem >= 0) return { kind: 'invalid', reason: `data[${badItem}] has no id` };
  const page = body as unknown as ListPage;
  return idProblem(page) ?? { kind: 'page', page, ...(quirk ? { quirk } : {}) };
}

/** A page whose ids a store could not keep apart as the server wrote them (item-id.ts). */
function idProblem(page: ListPage): ClassifiedBody | undefined {
  const ids = page.data.map((item) => item.id);
  for (const [field, list] of [
    ['data', ids],
    ['deletedIds', page.deletedIds ?? []],
  ] as const)
    for (let index = 0; index < list.length; index += 1) {
      const inexact = inexactId(list[index] as ItemId);
      if (inexact) return { kind: 'invalid', code: 'id_not_exact', reason: `${field}[${index}] has the id ${inexact}` };
    }
  // Within data only: deletedIds naming an item twice, or as data names it, still name one item.
  const collision = collisionIn(ids);
  if (collision)
    return {
      kind: 'invalid',
      code: 'id_collision',
      reason: `data holds the ids ${showId(collision[0])} and ${showId(collision[1])}: two items as written, one item once read (ids are compared as numbers where they spell one)`,
    };
  return undefined;
}
