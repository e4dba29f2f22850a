import { isObject } from '../util/is-object.js';

/** Spec 2.4: one page of a list endpoint. */
export interface ListPage {
  data: Array<Record<string, unknown> & { id: number | string }>;
  lastUpdatedDate: string;
  cursor?: string;
  deletedIds?: Array<number | string>;
}

export type ClassifiedBody =
  | { kind: 'page'; page: ListPage }
  | { kind: 'document'; body: unknown }
  | { kind: 'invalid'; reason: string };

const isId = (value: unknown) => (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string';

/**
 * Tells an envelope from a plain document (/userTaxSetup answers one settings object) and from
 * a broken envelope, saying exactly what is wrong with the latter.
 */
export function classifyBody(body: unknown): ClassifiedBody {
  if (!isObject(body) || !('data' in body || 'lastUpdatedDate' in body || 'cursor' in body))
    return { kind: 'document', body };
  if (!Array.isArray(body.data)) return { kind: 'invalid', reason: 'data is not an array' };
  if (typeof body.lastUpdatedDate !== 'string' || !Number.isFinite(Date.parse(body.lastUpdatedDate)))
    return {
      kind: 'invalid',
      reason: `lastUpdatedDate is ${body.lastUpdatedDate === undefined ? 'missing' : `not a timestamp (${JSON.stringify(body.lastUpdatedDate)})`}`,
    };
  if (body.cursor !== undefined && (typeof body.cursor !== 'string' || body.cursor === ''))
    return { kind: 'invalid', reason: 'cursor is present but not a non-empty string' };
  if (body.deletedIds !== undefined && (!Array.isArray(body.deletedIds) || !body.deletedIds.every(isId)))
    return { kind: 'invalid', reason: 'deletedIds is not an array of ids' };
  const badItem = body.data.findIndex((item) => !isObject(item) || !isId(item.id));
  if (badItem >= 0) return { kind: 'invalid', reason: `data[${badItem}] has no id` };
  return { kind: 'page', page: body as unknown as ListPage };
}
