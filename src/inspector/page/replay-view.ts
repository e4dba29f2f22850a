/// <reference lib="dom" />
import { api, type Detail, type Meta, type ReplayMode } from './api.js';
import { section } from './card.js';
import { h } from './dom.js';

/**
 * The replay card: send the delivery again (re-signed or as captured) or copy it as curl. Both run
 * on the server, which holds the secret; the page only asks.
 */
export function actionsCard(detail: Detail, meta: Meta): HTMLElement {
  const target = h('input', {
    attrs: { type: 'url', placeholder: 'http://localhost:3000/webhooks', 'aria-label': 'replay target' },
  });
  target.value = meta.forwardTo ?? '';
  const mode = h('select', { attrs: { 'aria-label': 'replay mode' } });
  for (const value of ['resigned', 'as-captured'] as ReplayMode[]) {
    const option = h('option', {}, value === 'resigned' ? 're-signed (fresh iat)' : 'as captured (original token)');
    option.value = value;
    option.disabled = !detail.replayModes.includes(value);
    mode.appendChild(option);
  }
  mode.value = detail.replayModes[0] ?? 'as-captured';
  const output = h('pre', { class: 'output', attrs: { 'aria-live': 'polite' } });
  const show = (text: string) => {
    output.textContent = text;
  };
  const replay = h(
    'button',
    {
      on: {
        click: () => {
          show('sending…');
          api
            .replay(detail.id, target.value, mode.value as ReplayMode, confirm.checked)
            .then((a) =>
              show(a.error ? `no answer: ${a.error}` : `${a.status} in ${a.latencyMs} ms (${a.mode})\n${a.body ?? ''}`),
            )
            .catch((error: Error) => show(error.message));
        },
      },
    },
    'Replay',
  );
  // The CLI's --include-refused, in the page: a refused delivery is sent on only once the person
  // ticks a box that names its verdict (the server refuses the replay without it too).
  const refused = detail.verdict === 'refused';
  const confirm = h('input', { attrs: { type: 'checkbox', 'aria-label': 'confirm replay of a refused delivery' } });
  const confirmLabel = refused
    ? h(
        'label',
        { class: 'confirm-refused' },
        confirm,
        ` This delivery was refused: ${detail.code ?? 'refused'}. Send it on as captured anyway.`,
      )
    : null;
  replay.disabled = detail.replayModes.length === 0 || refused;
  confirm.addEventListener('change', () => {
    replay.disabled = detail.replayModes.length === 0 || (refused && !confirm.checked);
  });
  const curl = h(
    'button',
    {
      on: {
        click: () => {
          api
            .curl(detail.id, target.value || 'http://localhost:3000/webhooks')
            .then(async ({ command }) => {
              show(command);
              await navigator.clipboard?.writeText(command).catch(() => undefined);
            })
            .catch((error: Error) => show(error.message));
        },
      },
    },
    'Copy as curl',
  );
  // The server re-verified the original token: the edit offer carries its reason when it did not.
  const note = detail.replayModes.includes('resigned')
    ? null
    : h('p', { class: 'muted' }, `Not re-signed: ${detail.edit.why ?? 'its original token does not verify'}.`);
  return section('Replay', h('div', { class: 'row' }, target, mode, replay, curl), note, confirmLabel, output);
}
