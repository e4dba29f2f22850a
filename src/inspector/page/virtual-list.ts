/// <reference lib="dom" />
import { clear, h } from './dom.js';

/** Two lines a row (app.ts's renderRow): what it is and its verdict, then where it came and whose. */
export const ROW_HEIGHT = 46;
const OVERSCAN = 8;

/**
 * A list that creates DOM only for the rows in view (plus a few), so that 5,000 or 20,000
 * deliveries cost the same to show. Rows are absolutely placed inside a spacer of full height.
 */
export class VirtualList<T> {
  readonly element: HTMLDivElement;
  #spacer: HTMLDivElement;
  #items: readonly T[] = [];
  #pending = false;

  constructor(
    private readonly renderRow: (item: T, index: number) => HTMLElement,
    label: string,
  ) {
    this.#spacer = h('div', { class: 'spacer' });
    this.element = h(
      'div',
      { class: 'list', attrs: { role: 'listbox', 'aria-label': label, tabindex: '0' } },
      this.#spacer,
    );
    this.element.addEventListener('scroll', () => this.refresh());
    new ResizeObserver(() => this.refresh()).observe(this.element);
  }

  get items(): readonly T[] {
    return this.#items;
  }

  /** Replaces the items; `shift` rows were added above the view (keeps what the user looks at still). */
  setItems(items: readonly T[], shift = 0): void {
    this.#items = items;
    this.#spacer.style.height = `${items.length * ROW_HEIGHT}px`;
    if (shift > 0 && this.element.scrollTop > 0) this.element.scrollTop += shift * ROW_HEIGHT;
    this.refresh();
  }

  scrollToIndex(index: number): void {
    const top = index * ROW_HEIGHT;
    const view = this.element;
    if (top < view.scrollTop) view.scrollTop = top;
    else if (top + ROW_HEIGHT > view.scrollTop + view.clientHeight)
      view.scrollTop = top + ROW_HEIGHT - view.clientHeight;
    this.refresh();
  }

  refresh(): void {
    if (this.#pending) return;
    this.#pending = true;
    requestAnimationFrame(() => {
      this.#pending = false;
      this.#render();
    });
  }

  #render(): void {
    const view = this.element;
    const first = Math.max(0, Math.floor(view.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.#items.length, Math.ceil((view.scrollTop + view.clientHeight) / ROW_HEIGHT) + OVERSCAN);
    clear(this.#spacer);
    for (let index = first; index < last; index += 1) {
      const item = this.#items[index];
      if (item === undefined) continue;
      const row = this.renderRow(item, index);
      row.style.transform = `translateY(${index * ROW_HEIGHT}px)`;
      this.#spacer.appendChild(row);
    }
  }
}
