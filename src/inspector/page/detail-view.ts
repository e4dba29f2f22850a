/// <reference lib="dom" />
import type { Detail, Meta } from './api.js';
import { section } from './card.js';
import { dateWithZone } from './time.js';
import { append, clear, h, type Child } from './dom.js';
import { editCard } from './edit-view.js';
import { actionsCard } from './replay-view.js';

const MARKS = { pass: '✔', fail: '✖', warn: '!', skip: '–' } as const;

function formatAge(seconds: number): string {
  const abs = Math.abs(seconds);
  const text =
    abs < 120
      ? `${abs} s`
      : abs < 7200
        ? `${Math.round(abs / 60)} min`
        : abs < 172800
          ? `${Math.round(abs / 3600)} h`
          : `${Math.round(abs / 86400)} days`;
  return seconds < 0 ? `${text} in the future` : `${text} old`;
}

function checklist(detail: Detail): HTMLElement {
  if (detail.checks === null) {
    return section(
      'Verification',
      h('p', { class: `verdict ${detail.verdict}` }, verdictText(detail)),
      claimedNote(detail),
      h('p', { class: 'muted' }, 'No secret was given to this inspector: this is the verdict recorded at receipt.'),
    );
  }
  const failed = detail.checks.filter((check) => check.status === 'fail').map((check) => check.name);
  return section(
    'Verification',
    h('p', { class: `verdict ${detail.verdict}` }, verdictText(detail)),
    claimedNote(detail),
    failed.length > 0 ? h('p', { class: 'failed-checks' }, `Failed check: ${failed.join(', ')}`) : null,
    h(
      'table',
      { class: 'checks' },
      ...detail.checks.map((check) =>
        h(
          'tr',
          { class: `check ${check.status}`, attrs: { 'data-check': check.name } },
          h('td', { class: 'mark' }, MARKS[check.status]),
          h('td', { class: 'name' }, check.name),
          h('td', {}, check.detail),
        ),
      ),
    ),
    detail.hints.length > 0 ? h('ul', { class: 'hints' }, ...detail.hints.map((hint) => h('li', {}, hint))) : null,
    ...detail.warnings.map((warning) => h('p', { class: 'warn' }, warning)),
  );
}

/** A refused body that reads as a webhook: what it claims, said as a claim (nothing in it verified). */
function claimedNote(detail: Detail): HTMLElement | null {
  const claimed = detail.claimed;
  if (!claimed) return null;
  const what =
    claimed.type === 'LIFECYCLE_EVENT'
      ? `${claimed.type} ${claimed.event ?? ''}`
      : claimed.type === 'ENTITY_UPDATE'
        ? `${claimed.type} of ${claimed.entities?.join(', ') ?? ''}`
        : claimed.type;
  return h(
    'p',
    { class: 'claimed-note' },
    `The body claims to be ${what} for user ${claimed.userId} — unverified: its signature did not verify, so none of it can be trusted.`,
  );
}

function verdictText(detail: Detail): string {
  if (detail.verdict === 'valid') return `Valid — answered ${detail.status}`;
  if (detail.verdict === 'refused')
    return `Refused: ${detail.code ?? ''} — ${detail.message ?? ''} (answered ${detail.status})`;
  return `Not verified (no secret configured) — answered ${detail.status}`;
}

function tokenCard(detail: Detail): HTMLElement {
  const token = detail.token;
  if (token === null) return section('Token', h('p', { class: 'muted' }, `No ${detail.headerName} header.`));
  if (token.problem !== undefined)
    return section('Token', h('p', { class: 'warn' }, `Does not decode: ${token.problem}`));
  const iat =
    token.iatDate !== undefined && token.ageAtReceiptSeconds !== undefined
      ? h(
          'p',
          { class: 'iat' },
          `iat ${token.iatDate} — ${formatAge(token.ageAtReceiptSeconds)} when received, ${formatAge(Math.floor(Date.now() / 1000) - Math.floor(Date.parse(token.iatDate) / 1000))} now`,
        )
      : null;
  return section(
    'Token',
    iat,
    h('h4', {}, 'Header'),
    h('pre', {}, JSON.stringify(token.header, null, 2)),
    h('h4', {}, 'Claims'),
    h('pre', {}, JSON.stringify(token.claims, null, 2)),
  );
}

function headersCard(detail: Detail): HTMLElement {
  const rows = Object.entries(detail.headers).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((one) => h('tr', {}, h('th', {}, name), h('td', {}, one))),
  );
  return section(
    'Request',
    h('p', { class: 'mono' }, `${detail.method} ${detail.path}`),
    h('table', { class: 'headers' }, ...rows),
  );
}

/** The raw text with the first byte that differs from what was signed marked (a re-serialised body). */
function markedRaw(text: string, difference: { at: number; signedFromThere: string }): Child[] {
  const { at } = difference;
  const char = text.slice(at, at + 1);
  // Whitespace is what re-serialisers change, and it cannot be seen: the mark shows a sign for it.
  const shown = char === '\n' ? '↵' : char === ' ' ? '·' : char === '\t' ? '⇥' : char === '' ? '␃' : char;
  return [
    text.slice(0, at),
    h('mark', { class: 'differs', title: `signed here: ${JSON.stringify(difference.signedFromThere)}` }, shown),
    char === '\n' ? '\n' : '',
    text.slice(at + 1),
  ];
}

function bodyCard(detail: Detail): HTMLElement {
  const body = detail.body;
  const difference = body.difference;
  // A re-serialised body opens on Raw, its first differing byte marked: Pretty would hide the difference.
  const pre = h(
    'pre',
    { class: 'body' },
    ...(difference ? markedRaw(body.text, difference) : [body.pretty ?? body.text]),
  );
  const tab = (label: string, text: string) =>
    h(
      'button',
      {
        class: 'tab',
        on: {
          click: () => {
            pre.textContent = text;
          },
        },
      },
      label,
    );
  const size = body.truncated ? `${body.storedBytes} of ${body.bytes} bytes captured (cut)` : `${body.bytes} bytes`;
  return section(
    'Body',
    // Base64 first, as request_body_sha256 carries it (spec 5.2): compared in one encoding; hex after.
    h(
      'p',
      { class: 'muted' },
      `${size} · SHA-256 ${body.sha256Base64 || '(of the whole body)'} (hex ${body.sha256Hex})`,
    ),
    difference
      ? h(
          'p',
          { class: 'warn differs-note' },
          `These bytes differ from the signed ones at character ${difference.at} (marked): signed there was ${JSON.stringify(difference.signedFromThere)}.`,
        )
      : null,
    h(
      'div',
      { class: 'tabs' },
      body.pretty !== null ? tab('Pretty', body.pretty) : null,
      difference
        ? h(
            'button',
            {
              class: 'tab',
              on: {
                click: () => {
                  clear(pre);
                  append(pre, ...markedRaw(body.text, difference));
                },
              },
            },
            'Raw',
          )
        : tab('Raw', body.text),
      // Text cannot show bytes that are not UTF-8; Base64 is the exact bytes.
      body.base64 !== null ? tab('Base64 (not UTF-8)', body.base64) : null,
    ),
    pre,
  );
}

function extrasCard(detail: Detail): HTMLElement | null {
  const lines: Child[] = [];
  if (detail.forward)
    lines.push(
      h(
        'p',
        {},
        `Forwarded to ${detail.forward.url}: ${detail.forward.error ?? `${detail.forward.status} in ${detail.forward.latencyMs} ms`}`,
      ),
    );
  // Routes and attempts (listen with routes, --retry): text only, like everything from a capture.
  if (detail.routes.length > 1 || detail.attempts.length > 0)
    for (const route of detail.routes)
      lines.push(
        h(
          'p',
          { class: route.outcome === 'delivered' ? 'ok' : 'warn' },
          `Route ${route.route} (${route.url}): ${route.outcome}${route.attempts > 0 ? ` after ${route.attempts} attempt(s)` : ''}${route.nextAt ? `, next at ${route.nextAt}` : ''}`,
        ),
      );
  for (const attempt of detail.attempts)
    lines.push(
      h(
        'p',
        {},
        `${attempt.at} ${attempt.route} #${attempt.attempt}: ${attempt.error ?? `${attempt.status} in ${attempt.latencyMs} ms`} (${attempt.outcome})`,
      ),
    );
  for (const sync of detail.syncs)
    lines.push(h('p', { class: sync.ok ? 'ok' : 'warn' }, `${sync.entity}: ${sync.summary}`));
  return lines.length > 0 ? section('Forward and syncs', ...lines) : null;
}

export function detailView(detail: Detail, meta: Meta): HTMLElement {
  return h(
    'div',
    { class: 'detail-body' },
    h(
      'h2',
      {},
      detail.id,
      h(
        'span',
        { class: 'muted' },
        `  #${detail.index} · ${detail.method} ${detail.path} · ${dateWithZone(detail.receivedAt)}`,
      ),
    ),
    detail.replayOf
      ? h('p', { class: 'replay-of' }, `↻ a replay of delivery ${detail.replayOf} (its ledgerhook-replay-of header)`)
      : '',
    detail.editedFrom
      ? h('p', { class: 'edited-from' }, `✎ edited from delivery ${detail.editedFrom}, re-signed by ledgerhook`)
      : '',
    checklist(detail),
    actionsCard(detail, meta),
    editCard(detail, meta),
    tokenCard(detail),
    headersCard(detail),
    bodyCard(detail),
    extrasCard(detail),
  );
}
