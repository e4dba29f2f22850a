/// <reference lib="dom" />
import { api, follow, type Meta, type Summary } from './api.js';
import { detailView } from './detail-view.js';
import { clear, h } from './dom.js';
import { filterBar, matches, type FilterState } from './filters.js';
import { clockWithZone } from './time.js';
import { VirtualList } from './virtual-list.js';

/** The inspector page: a live, filterable list of deliveries (newest first) and one in detail. */
const all: Summary[] = [];
let shown: Summary[] = [];
let selected: string | undefined;
/** The delivery whose detail is shown or on its way: choosing it again keeps what was typed in it. */
let opened: string | undefined;
/** Only the latest detail asked for is drawn: an earlier answer that comes late is dropped. */
let asked = 0;
let meta: Meta = { title: 'ledgerhook inspector', forwardTo: null };

/**
 * What a delivery is: its event, or the entities it names. A refused one's is what its body claims
 * (`claimed`: nothing in it verified), shown as a claim.
 */
function what(d: Summary): { text: string; claimed: boolean } {
  const claimed = d.verdict === 'refused';
  const body = claimed ? d.claimed : d;
  const type = body?.type;
  if (type === 'LIFECYCLE_EVENT') return { text: body?.event ?? '', claimed };
  if (type === 'ENTITY_UPDATE') return { text: body?.entities?.join(', ') ?? '', claimed };
  if (type !== undefined) return { text: type, claimed };
  if (d.verdict === 'refused' && d.bodyTruncated) return { text: 'body cut off: not read', claimed: false };
  return { text: 'not a webhook body', claimed: false };
}

/** The badge: the verdict, and for a refused delivery its code with the cause in a word or two. */
function badgeText(d: Summary): string {
  if (d.verdict === 'valid') return 'valid';
  if (d.verdict === 'unverified') return 'not verified';
  const code = d.code ?? 'refused';
  return d.cause ? `${code}: ${d.cause}` : code;
}

/** The whole cause, for the badge's tooltip (the detail says it too). */
function fullCause(d: Summary): string {
  if (d.verdict !== 'refused') return `${badgeText(d)}, answered ${d.status}`;
  return `${d.code ?? 'refused'}: ${d.message ?? ''}${d.cause ? ` (${d.cause})` : ''}, answered ${d.status}`;
}

/**
 * One row, two lines, so that nothing is squeezed to nothing at 1280 px: time, what it is and the
 * verdict; then method and path, the user and the status. The verdict never shrinks (it is what the
 * list is read for); what it is takes the rest and is cut with an ellipsis, in full on hover.
 */
function renderRow(d: Summary): HTMLElement {
  const kind = what(d);
  const user = (d.verdict === 'refused' ? d.claimed?.userId : d.userId) ?? '';
  return h(
    'div',
    {
      class: `row-item ${d.verdict}${d.id === selected ? ' selected' : ''}`,
      attrs: { role: 'option', 'data-id': d.id, 'aria-selected': String(d.id === selected) },
      on: { click: () => select(d.id) },
    },
    h('span', { class: 'time', attrs: { title: d.receivedAt } }, clockWithZone(d.receivedAt)),
    h(
      'span',
      { class: `what${kind.claimed ? ' claimed' : ''}`, attrs: { title: kind.text } },
      d.replayOf ? h('span', { class: 'replay', attrs: { title: `a replay of ${d.replayOf}` } }, '↻ ') : '',
      d.editedFrom ? h('span', { class: 'edited', attrs: { title: `edited from ${d.editedFrom}` } }, '✎ ') : '',
      kind.text,
      kind.claimed ? ' ' : '',
      kind.claimed
        ? h(
            'span',
            { class: 'unverified-tag', attrs: { title: 'what the body claims: its signature did not verify' } },
            'unverified',
          )
        : '',
    ),
    h('span', { class: `badge ${d.verdict}`, attrs: { title: fullCause(d) } }, badgeText(d)),
    h('span', { class: 'route', attrs: { title: `${d.method} ${d.path}` } }, `${d.method} ${d.path}`),
    h('span', { class: `user${kind.claimed ? ' claimed' : ''}`, attrs: { title: user } }, user),
    h('span', { class: 'status' }, String(d.status)),
  );
}

const list = new VirtualList<Summary>(renderRow, 'deliveries');
const count = h('span', { class: 'count' });
const live = h('span', { class: 'live' }, 'connecting…');
const detail = h('main', { class: 'detail' }, h('p', { class: 'muted empty' }, 'Select a delivery.'));
const bar = filterBar(() => applyFilters());

function updateCount(): void {
  count.textContent = `${shown.length} of ${all.length} ${all.length === 1 ? 'delivery' : 'deliveries'}`;
}

function applyFilters(): void {
  const state: FilterState = bar.state();
  shown = [];
  for (let index = all.length - 1; index >= 0; index -= 1) {
    const d = all[index];
    if (d !== undefined && matches(d, state)) shown.push(d);
  }
  list.setItems(shown);
  updateCount();
}

/** Like the server, the page keeps a bounded window of the newest deliveries. */
const MAX_KEPT = 20_000;

/** Nothing selected yet: the newest delivery shown is opened, so the page never starts empty. */
function openNewest(): void {
  const newest = shown[0];
  if (selected === undefined && newest !== undefined) select(newest.id);
}

function add(d: Summary): void {
  all.push(d);
  if (all.length > MAX_KEPT + 1000) {
    all.splice(0, all.length - MAX_KEPT);
    bar.learn(d);
    applyFilters();
    return;
  }
  bar.learn(d);
  if (matches(d, bar.state())) {
    shown.unshift(d);
    list.setItems(shown, 1);
  }
  updateCount();
  openNewest();
}

function select(id: string): void {
  selected = id;
  list.refresh();
  if (opened === id) return;
  opened = id;
  const request = ++asked;
  api
    .detail(id)
    .then((d) => {
      if (request !== asked) return;
      clear(detail);
      detail.appendChild(detailView(d, meta));
    })
    .catch((error: Error) => {
      if (request !== asked) return;
      opened = undefined;
      clear(detail);
      detail.appendChild(h('p', { class: 'warn' }, error.message));
    });
}

list.element.addEventListener('keydown', (event) => {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  event.preventDefault();
  const at = shown.findIndex((d) => d.id === selected);
  const next = shown[Math.max(0, Math.min(shown.length - 1, at + (event.key === 'ArrowDown' ? 1 : -1)))];
  if (next) {
    select(next.id);
    list.scrollToIndex(shown.indexOf(next));
  }
});

const title = h('h1', {}, 'ledgerhook inspector');
document.body.appendChild(
  h(
    'div',
    { class: 'app' },
    h('header', {}, title, h('span', { class: 'source muted' }), count, live),
    h('aside', { class: 'side' }, bar.element, list.element),
    detail,
  ),
);

api
  .meta()
  .then((m) => {
    meta = m;
    const source = document.querySelector('.source');
    if (source) source.textContent = m.title;
  })
  .catch(() => undefined);

follow(
  (deliveries) => {
    all.length = 0;
    for (const d of deliveries) {
      all.push(d);
      bar.learn(d);
    }
    applyFilters();
    openNewest();
  },
  add,
  (on) => {
    live.textContent = on ? '● live' : '○ reconnecting…';
    live.className = on ? 'live on' : 'live';
  },
);
