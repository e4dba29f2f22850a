/// <reference lib="dom" />
import { h, type Child } from './dom.js';

/** Every card of the detail view is a titled section (the page's stylesheet lays out `.card`). */
export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'card' }, h('h3', {}, title), ...children);
}
