/// <reference lib="dom" />
import type { DeliveryDetail } from '../delivery-detail.js';
import type { EditAnswer, EditOffer } from '../edit-action.js';
import type { ReplayAnswer, ReplayMode } from '../inspector-actions.js';
import type { InspectorSummary } from '../inspector-delivery.js';

/** Every URL is relative to the page's own (/TOKEN/), so every request carries the token. */
export type Summary = InspectorSummary;
export type Detail = DeliveryDetail & { replayModes: ReplayMode[]; edit: EditOffer };
export type { EditAnswer, ReplayAnswer, ReplayMode };

export interface Meta {
  title: string;
  forwardTo: string | null;
}

async function json<T>(response: Response): Promise<T> {
  const value = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(value.error ?? `HTTP ${response.status}`);
  return value;
}

export const api = {
  meta: () => fetch('api/meta').then((r) => json<Meta>(r)),
  detail: (id: string) => fetch(`api/deliveries/${encodeURIComponent(id)}`).then((r) => json<Detail>(r)),
  curl: (id: string, to: string) =>
    fetch(`api/deliveries/${encodeURIComponent(id)}/curl?to=${encodeURIComponent(to)}`).then((r) =>
      json<{ command: string }>(r),
    ),
  replay: (id: string, to: string, mode: ReplayMode, confirmRefused = false) =>
    fetch(`api/deliveries/${encodeURIComponent(id)}/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to, mode, confirmRefused }),
    }).then((r) => json<ReplayAnswer>(r)),
  /** The server checks the edit again and re-signs it with its own secret: the page sends text only. */
  edit: (id: string, to: string, body: string, headers: unknown) =>
    fetch(`api/deliveries/${encodeURIComponent(id)}/edit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to, body, headers }),
    }).then((r) => json<EditAnswer>(r)),
};

/** Live updates: a snapshot first, then each new delivery. EventSource reconnects by itself. */
export function follow(
  onSnapshot: (deliveries: Summary[]) => void,
  onDelivery: (delivery: Summary) => void,
  onState: (live: boolean) => void,
): EventSource {
  const events = new EventSource('api/events');
  events.addEventListener('snapshot', (event) => onSnapshot(JSON.parse((event as MessageEvent<string>).data)));
  events.addEventListener('delivery', (event) => onDelivery(JSON.parse((event as MessageEvent<string>).data)));
  events.addEventListener('open', () => onState(true));
  events.addEventListener('error', () => onState(false));
  return events;
}
