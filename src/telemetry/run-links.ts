import type { TelemetrySpan } from './telemetry.js';

/** A run links at most this many of the deliveries coalesced into it (a burst stays bounded). */
export const MAX_RUN_LINKS = 32;

/**
 * The spans of the deliveries each pending run answers, per run key. Runs coalesce several
 * deliveries (webhook-sync's scheduler): the run's span is a child of the first and linked to the
 * others, so each delivery's trace leads to the run that synced it.
 */
export class RunLinks {
  readonly #spans = new Map<string, TelemetrySpan[]>();

  note(key: string, spans: readonly TelemetrySpan[]): void {
    if (spans.length === 0) return;
    const list = this.#spans.get(key) ?? [];
    for (const span of spans) if (list.length < MAX_RUN_LINKS) list.push(span);
    this.#spans.set(key, list);
  }

  take(key: string): TelemetrySpan[] {
    const list = this.#spans.get(key) ?? [];
    this.#spans.delete(key);
    return list;
  }
}
