import type { ReceivedDelivery, RefusedRequest } from './received-delivery.js';

export type ListenerEvent =
  | {
      type: 'delivery';
      delivery: ReceivedDelivery;
      /** Recorded and not refused as forged: what may drive a sync (never a forged one, even answered 200). */
      accepted: boolean;
      /** False when a recorder kept it out by design (a refused delivery past the capture's refused bound). */
      recorded: boolean;
    }
  | ({ type: 'refused' } & RefusedRequest)
  | { type: 'capture-error'; message: string }
  /**
   * Once per run: refused deliveries are now counted, not written to the capture file, because they
   * came faster than `perSecond` (`limit: 'rate'`) or passed `maxBytes` in all (`limit: 'total'`).
   */
  | { type: 'capture-limit'; limit: 'rate' | 'total'; perSecond: number; maxBytes: number };

/**
 * Something that wants every delivery: the capture writer, webhook-sync, the CLI printer, an
 * inspector. All get the same typed ReceivedDelivery; none sees the capture format.
 */
export interface DeliverySubscriber {
  /**
   * Awaited before the answer, so that a 2xx answer means the delivery is recorded. A rejection
   * turns a 2xx answer into a 503 (the sender retries); resolving to 'skipped' says it was kept out by design (a
   * refused delivery past a bound), and then it is not answered 2xx either.
   */
  record?: ((delivery: ReceivedDelivery) => Promise<unknown>) | undefined;
  /** False while the subscriber cannot take more: new requests get a 503 with Retry-After. */
  hasRoom?: (() => boolean) | undefined;
  /** Every event, after the answer. */
  onEvent?: ((event: ListenerEvent) => void) | undefined;
  /** Each accepted delivery, after its answer (webhook-sync). */
  onAccepted?: ((delivery: ReceivedDelivery) => void) | undefined;
  /** Called once when the listener closes, after the last delivery. */
  close?: (() => Promise<void>) | undefined;
}

/** The listener's one event API: subscribers in order, recorders awaited, then everyone told. */
export class DeliveryEvents {
  #subscribers: DeliverySubscriber[] = [];

  subscribe(subscriber: DeliverySubscriber): () => void {
    this.#subscribers.push(subscriber);
    return () => {
      this.#subscribers = this.#subscribers.filter((entry) => entry !== subscriber);
    };
  }

  hasRoom(): boolean {
    for (const subscriber of this.#subscribers) if (subscriber.hasRoom && !subscriber.hasRoom()) return false;
    return true;
  }

  /** Resolves false when a recorder kept the delivery out by design ('skipped'). */
  async record(delivery: ReceivedDelivery): Promise<boolean> {
    let kept = true;
    for (const subscriber of this.#subscribers)
      if (subscriber.record && (await subscriber.record(delivery)) === 'skipped') kept = false;
    return kept;
  }

  emit(event: ListenerEvent): void {
    for (const subscriber of this.#subscribers) subscriber.onEvent?.(event);
    if (event.type !== 'delivery' || !event.accepted) return;
    for (const subscriber of this.#subscribers) subscriber.onAccepted?.(event.delivery);
  }

  async close(): Promise<void> {
    for (const subscriber of this.#subscribers) await subscriber.close?.();
  }
}
