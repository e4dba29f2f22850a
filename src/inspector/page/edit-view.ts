/// <reference lib="dom" />
import { checkEditedBody, checkEditedHeaders } from '../../replay/edit-checks.js';
import { api, type Detail, type Meta } from './api.js';
import { h } from './dom.js';

/** The body as the edit starts from it: pretty when it is JSON (it is re-signed, so bytes may change). */
function startingBody(detail: Detail): string {
  return detail.body.pretty ?? detail.body.text;
}

/** The same checks the server runs again on what arrives: here, to show the exact problem while typing. */
function problemsOf(detail: Detail, bodyText: string, headersText: string): { problem?: string; notes: string[] } {
  const body = checkEditedBody(bodyText, detail.edit.maxBodyBytes);
  if (!body.ok) return { problem: `Body: ${body.problem}`, notes: [] };
  let value: unknown;
  try {
    value = JSON.parse(headersText);
  } catch (error) {
    return { problem: `Headers: not JSON: ${(error as Error).message}`, notes: [] };
  }
  const headers = checkEditedHeaders(value, detail.edit.headerName);
  if (!headers.ok) return { problem: `Headers: ${headers.problem}`, notes: [] };
  return { notes: body.notes };
}

/**
 * "Edit and resend": the body and headers as editable text (textareas: text only, no markup), checked
 * on every keystroke against the spec's body shapes; the send is always re-signed by the server with
 * its own secret (the page never holds one) and comes back as a new delivery linked to this one.
 */
export function editCard(detail: Detail, meta: Meta): HTMLElement {
  const offer = detail.edit;
  const card = h('section', { class: 'card edit' }, h('h3', {}, 'Edit and resend'));
  if (!offer.allowed) {
    card.appendChild(h('p', { class: 'muted edit-unavailable' }, offer.why ?? 'This delivery cannot be edited here.'));
    return card;
  }
  const target = h('input', {
    attrs: { type: 'url', placeholder: 'http://localhost:3000/webhooks', 'aria-label': 'edit target' },
  });
  target.value = meta.forwardTo ?? '';
  const body = h('textarea', {
    class: 'editor',
    attrs: { 'aria-label': 'edited body', rows: '12', spellcheck: 'false' },
  });
  body.value = startingBody(detail);
  const headers = h('textarea', {
    class: 'editor headers-editor',
    attrs: { 'aria-label': 'edited headers', rows: '6', spellcheck: 'false' },
  });
  headers.value = JSON.stringify(offer.headers, null, 2);
  const status = h('p', { class: 'edit-status', attrs: { 'aria-live': 'polite' } });
  const output = h('pre', { class: 'output edit-output', attrs: { 'aria-live': 'polite' } });
  const send = h('button', {}, 'Send edited');
  const check = () => {
    const { problem, notes } = problemsOf(detail, body.value, headers.value);
    status.className = `edit-status ${problem ? 'problem' : 'ok'}`;
    status.textContent = problem ?? `Valid webhook body${notes.length > 0 ? ` (note: ${notes.join('; ')})` : ''}.`;
    send.disabled = problem !== undefined;
  };
  body.addEventListener('input', check);
  headers.addEventListener('input', check);
  send.addEventListener('click', () => {
    output.textContent = 'sending…';
    api
      .edit(detail.id, target.value, body.value, JSON.parse(headers.value) as unknown)
      .then((a) => {
        const answer = a.error ? `no answer: ${a.error}` : `${a.status} in ${a.latencyMs} ms\n${a.body ?? ''}`;
        output.textContent = `sent as ${a.id} (edited from ${a.editedFrom}, re-signed) → ${answer}`;
      })
      .catch((error: Error) => {
        output.textContent = error.message;
      });
  });
  check();
  card.append(
    h(
      'p',
      { class: 'muted' },
      `Sent as a new delivery, re-signed with a fresh token in ${offer.headerName} (never the original token), and recorded as edited from ${detail.id}.`,
    ),
    h('div', { class: 'row' }, target, send),
    h('h4', {}, 'Body'),
    body,
    h('h4', {}, 'Headers'),
    headers,
    status,
    output,
  );
  return card;
}
