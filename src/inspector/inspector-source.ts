import type { CaptureRecord } from '../capture/capture-record.js';
import { DEFAULT_INSPECTOR_HELD_BODY_BYTES } from '../defaults.js';
import type { SyncResult } from './delivery-detail.js';
import { fromCaptureRecord, type InspectorDelivery } from './inspector-delivery.js';

/** What the inspector shows: the deliveries so far, and each new one as it arrives. */
export interface InspectorSource {
  snapshot(): readonly InspectorDelivery[];
  find(id: string): InspectorDelivery | undefined;
  /** Returns the unsubscribe function. */
  subscribe(listener: (delivery: InspectorDelivery) => void): () => void;
  syncsOf(id: string): SyncResult[];
}

/**
 * Memory stays bounded however many deliveries arrive: the oldest are dropped past this many, or
 * past this many stored body bytes (Base64), whichever comes first. The newest is always kept.
 */
export const DEFAULT_MAX_DELIVERIES = 20_000;
const MAX_SYNCS_PER_DELIVERY = 100;

export interface MemorySource extends InspectorSource {
  push(record: CaptureRecord): InspectorDelivery;
  /** Attaches a sync result to the latest delivery of that user naming that entity. */
  addSync(userId: string, entity: string, result: SyncResult): void;
}

export function memorySource(
  records: readonly CaptureRecord[] = [],
  { maxDeliveries = DEFAULT_MAX_DELIVERIES, maxBodyBytes = DEFAULT_INSPECTOR_HELD_BODY_BYTES } = {},
): MemorySource {
  const deliveries: InspectorDelivery[] = [];
  const byId = new Map<string, InspectorDelivery>();
  const syncs = new Map<string, SyncResult[]>();
  const listeners = new Set<(delivery: InspectorDelivery) => void>();
  let next = 0;
  let bodyBytes = 0;
  const push = (record: CaptureRecord): InspectorDelivery => {
    const delivery = fromCaptureRecord(record, next++);
    deliveries.push(delivery);
    byId.set(delivery.id, delivery);
    bodyBytes += record.body.length;
    while (deliveries.length > 1 && (deliveries.length > maxDeliveries || bodyBytes > maxBodyBytes)) {
      const dropped = deliveries.shift();
      if (!dropped) break;
      bodyBytes -= dropped.record.body.length;
      // A hostile capture may repeat an id: forget it only if it still names the dropped one.
      if (byId.get(dropped.id) === dropped) {
        byId.delete(dropped.id);
        syncs.delete(dropped.id);
      }
    }
    for (const listener of listeners) listener(delivery);
    return delivery;
  };
  for (const record of records) push(record);
  return {
    push,
    snapshot: () => deliveries,
    find: (id) => byId.get(id),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    syncsOf: (id) => syncs.get(id) ?? [],
    addSync(userId, entity, result) {
      for (let index = deliveries.length - 1; index >= 0; index -= 1) {
        const delivery = deliveries[index];
        if (delivery?.userId === userId && delivery.entities?.includes(entity)) {
          const list = syncs.get(delivery.id) ?? [];
          if (list.length < MAX_SYNCS_PER_DELIVERY) list.push(result);
          syncs.set(delivery.id, list);
          return;
        }
      }
    },
  };
}
