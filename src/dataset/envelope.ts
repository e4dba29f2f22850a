import { isObject } from '../util/is-object.js';

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
  | { kind: 'invalid'; reason: string };

const isId = (value: unknown) => (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string';

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
  if (body.deletedIds !== undefined && (!Array.isArray(body.deletedIds) || !body.deletedIds.every(isId)))
    return { kind: 'invalid', reason: 'deletedIds is not an array of ids' };
  const badItem = data.findIndex((item) => !isObject(item) || !isId(item.id));
  if (badItem >= 0) return { kind: 'invalid', reason: `data[${badItem}] has no id` };
  return { kind: 'page', page: body as unknown as ListPage, ...(quirk ? { quirk } : {}) };
}
