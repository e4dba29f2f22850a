/**
 * What an error answer's body is (spec 7 shows none): JSON, an HTML page (a gateway's or a
 * framework's), plain text or nothing, with the part worth quoting: a JSON body's message, an HTML
 * page's title. Errors quote that rather than markup; `probe` reports the shape.
 */
export type BodyShape = 'empty' | 'json' | 'html' | 'text';

export interface BodyDescription {
  shape: BodyShape;
  /** A JSON object's top-level field names (at most 12). */
  fields?: string[] | undefined;
  /** The part worth quoting, one line of at most 120 characters ('' when there is none). */
  summary: string;
}

const MAX_SUMMARY = 120;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** One line of plain text: tags dropped, the common entities decoded, blanks folded, cut to length. */
function line(text: string): string {
  const plain = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_, name: string) => ENTITIES[name] ?? '')
    .replace(/&#(\d{1,6});/g, (_, code: string) => String.fromCodePoint(Math.min(Number(code), 0x10ffff)))
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > MAX_SUMMARY ? `${plain.slice(0, MAX_SUMMARY - 1)}…` : plain;
}

const looksLikeHtml = (text: string) => /^\s*<(!doctype\s+html|html|head|body|title|h1|div|p)\b/i.test(text);

function htmlSummary(text: string): string {
  const title = /<title[^>]*>([\s\S]{0,2000}?)<\/title>/i.exec(text)?.[1];
  if (title !== undefined && line(title) !== '') return line(title);
  const heading = /<h1[^>]*>([\s\S]{0,2000}?)<\/h1>/i.exec(text)?.[1];
  if (heading !== undefined && line(heading) !== '') return line(heading);
  const body = /<body[^>]*>([\s\S]*)/i.exec(text)?.[1] ?? text;
  return line(body.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' '));
}

function jsonSummary(value: unknown): Pick<BodyDescription, 'fields' | 'summary'> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { summary: line(JSON.stringify(value)) };
  const object = value as Record<string, unknown>;
  const said = ['message', 'error_description', 'detail', 'title', 'error']
    .map((key) => object[key])
    .find((field): field is string => typeof field === 'string' && field.trim() !== '');
  return { fields: Object.keys(object).slice(0, 12), summary: said === undefined ? '' : line(said) };
}

/** An error body is read this far at most: its shape and title are at its start. */
const MAX_READ = 64 * 1024;

/** The shape of an answer's body from its text and Content-Type. */
export function describeBody(whole: string, contentType = ''): BodyDescription {
  const text = whole.length > MAX_READ ? whole.slice(0, MAX_READ) : whole;
  if (text.trim() === '') return { shape: 'empty', summary: '' };
  if (/json/i.test(contentType) || /^\s*[[{]/.test(text)) {
    try {
      return { shape: 'json', ...jsonSummary(JSON.parse(text)) };
    } catch {
      // Said to be JSON and is not: plain text (or a page), read below.
    }
  }
  if (/html/i.test(contentType) || looksLikeHtml(text)) return { shape: 'html', summary: htmlSummary(text) };
  return { shape: 'text', summary: line(text) };
}
