/// <reference lib="dom" />
import type { Summary } from './api.js';
import { h } from './dom.js';

export interface FilterState {
  verdict: string;
  type: string;
  event: string;
  user: string;
  search: string;
}

export function matches(d: Summary, f: FilterState): boolean {
  if (f.verdict !== '' && d.verdict !== f.verdict) return false;
  if (f.type !== '' && d.type !== f.type) return false;
  if (f.event !== '' && d.event !== f.event) return false;
  if (f.user !== '' && !(d.userId ?? '').toLowerCase().includes(f.user)) return false;
  if (f.search === '') return true;
  const haystack = [d.id, d.userId, d.type, d.event, d.code, d.message, d.entities?.join(' '), String(d.status)]
    .join(' ')
    .toLowerCase();
  return haystack.includes(f.search);
}

function select(label: string, values: Array<[string, string]>): HTMLSelectElement {
  const element = h('select', { attrs: { 'aria-label': label } });
  for (const [value, text] of values) {
    const option = h('option', {}, text);
    option.value = value;
    element.appendChild(option);
  }
  return element;
}

/** The filter bar; `onChange` runs on every edit. Event names seen so far fill the event menu. */
export function filterBar(onChange: (state: FilterState) => void) {
  const verdict = select('verdict', [
    ['', 'any verdict'],
    ['valid', 'valid'],
    ['refused', 'refused'],
    ['unverified', 'not verified'],
  ]);
  const type = select('type', [
    ['', 'any type'],
    ['ENTITY_UPDATE', 'ENTITY_UPDATE'],
    ['LIFECYCLE_EVENT', 'LIFECYCLE_EVENT'],
  ]);
  const event = select('event', [['', 'any event']]);
  const user = h('input', { attrs: { type: 'search', placeholder: 'user', 'aria-label': 'user' } });
  const search = h('input', { attrs: { type: 'search', placeholder: 'search', 'aria-label': 'search' } });
  const known = new Set<string>();
  const state = (): FilterState => ({
    verdict: verdict.value,
    type: type.value,
    event: event.value,
    user: user.value.trim().toLowerCase(),
    search: search.value.trim().toLowerCase(),
  });
  for (const control of [verdict, type, event, user, search])
    control.addEventListener('input', () => onChange(state()));
  return {
    element: h('div', { class: 'filters' }, verdict, type, event, user, search),
    state,
    learn(delivery: Summary) {
      if (delivery.event === undefined || known.has(delivery.event) || known.size >= 500) return;
      known.add(delivery.event);
      const option = h('option', {}, delivery.event);
      option.value = delivery.event;
      event.appendChild(option);
    },
  };
}
