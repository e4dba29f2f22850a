import type { RecordedExchange } from '../record/recording-format.js';
import { isObject } from '../util/is-object.js';
import type { CliContext } from './context.js';
import { printableLine } from './render-delivery.js';

/** What a recorded answer held, in a few words: "100 items, cursor" or "2 items, cursor: null, 1 deleted". */
function contents(exchange: RecordedExchange): string {
  if (exchange.bodyOmitted) return `${exchange.bodyBytes} bytes, not recorded`;
  const body = exchange.body;
  if (exchange.error !== undefined) return exchange.error;
  if (!isObject(body)) return exchange.text !== undefined ? `${exchange.bodyBytes} bytes, not JSON` : '';
  if (exchange.status >= 300) return JSON.stringify(body).slice(0, 100);
  if (!Array.isArray(body.data)) return 'a document';
  const parts = [`${body.data.length} item${body.data.length === 1 ? '' : 's'}`];
  if (typeof body.cursor === 'string' && body.cursor !== '') parts.push('cursor');
  else if ('cursor' in body) parts.push(`cursor: ${JSON.stringify(body.cursor)}`);
  if (Array.isArray(body.deletedIds)) parts.push(`${body.deletedIds.length} deleted`);
  return parts.join(', ');
}

/** "GET /expenses/expenses?type=PENDING limit=100 since=… → 200 100 items, cursor (12 ms)", escaped. */
export function exchangeText(exchange: RecordedExchange, ctx: CliContext): string {
  const c = ctx.color;
  const { request } = exchange;
  const paging = [
    request.limit !== undefined ? `limit=${request.limit}` : '',
    request.cursor !== undefined ? 'cursor' : '',
    request.lastUpdatedDate !== undefined ? `since=${request.lastUpdatedDate}` : '',
  ].filter(Boolean);
  const status =
    exchange.status === 0
      ? c.red('unreachable')
      : exchange.status < 400
        ? String(exchange.status)
        : c.red(String(exchange.status));
  // What came from the file or the network is escaped before colour is put around it.
  const what = printableLine(`${exchange.method} ${exchange.path}${exchange.query ? `?${exchange.query}` : ''}`);
  const sent = paging.length ? ` ${c.dim(printableLine(paging.join(' ')))}` : '';
  return `${c.dim(printableLine(exchange.at.slice(11, 23)))} ${c.dim(`#${exchange.seq}`)} ${what}${sent} → ${status} ${printableLine(contents(exchange))} ${c.dim(`(${exchange.ms} ms)`)}`;
}

/** The --json fields of an exchange: what it was, never its body. */
export function exchangeJson(exchange: RecordedExchange): Record<string, unknown> {
  const { body: _body, text: _text, kind: _kind, ...facts } = exchange;
  return { ...facts, contents: contents(exchange) };
}
