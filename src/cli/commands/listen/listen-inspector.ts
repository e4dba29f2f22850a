import { DEFAULT_INSPECTOR_PORT } from '../../../defaults.js';
import { captureRecordFrom } from '../../../capture/capture-from-delivery.js';
import type { CaptureRecord } from '../../../capture/capture-record.js';
import type { ForwardEvent, ListenerEvent } from '../../../listen/listener.js';
import { memorySource } from '../../../inspector/inspector-source.js';
import type { WebhookSyncEvent } from '../../../webhook-sync/webhook-sync.js';
import type { LabelledSecret } from '@ledgerhook/webhooks';
import type { ListenCommandOptions } from './definition.js';
import { serveInspector } from '../../inspector-cli.js';

/** What the inspector of `listen --ui` reads of listen's flags. */
export type InspectorFlags = Pick<ListenCommandOptions, 'captureRefusedBodies' | 'uiPort' | 'uiHost'> & {
  /** Resolved: the flag, the stored tolerance or the default. */
  tolerance: number;
};

/**
 * `listen --ui`: the listener's delivery events feed the inspector through the same adapter as a
 * capture file (CaptureRecord → InspectorDelivery). Loaded only when --ui is given.
 */
export function listenInspector(
  options: InspectorFlags,
  secrets: readonly LabelledSecret[],
  verificationPrefix?: string | undefined,
  /** --redact: applied to each delivery before the page can see it. */
  redact?: ((record: CaptureRecord) => CaptureRecord) | undefined,
) {
  const source = memorySource();
  return {
    onListenerEvent(event: ListenerEvent): void {
      if (event.type !== 'delivery') return;
      const record = captureRecordFrom(event.delivery, { refusedBodies: options.captureRefusedBodies });
      source.push(redact ? redact(record) : record);
    },
    /** An attempt made after the answer joins its delivery's record (shown in the detail view). */
    onForwardEvent(event: ForwardEvent): void {
      if (event.type !== 'attempt') return;
      const delivery = source.find(event.attempt.deliveryId);
      if (delivery) delivery.record.attempts = [...(delivery.record.attempts ?? []), event.attempt];
    },
    onSyncEvent(event: WebhookSyncEvent): void {
      if (event.type === 'sync-done') {
        const s = event.summary;
        source.addSync(event.userId, event.entity, {
          entity: event.entity,
          ok: true,
          summary: `${s.mode}, ${s.upserted} upserted, ${s.deleted} deleted, ${s.total} in all`,
        });
      } else if (event.type === 'sync-failed')
        source.addSync(event.userId, event.entity, { entity: event.entity, ok: false, summary: event.error });
    },
    /** `recordSent`: appends an edited delivery's line to listen's capture file (with --capture). */
    start(listenUrl: string, forwardTo: URL | undefined, recordSent?: (record: CaptureRecord) => Promise<void>) {
      return serveInspector(source, {
        port: options.uiPort ?? DEFAULT_INSPECTOR_PORT,
        host: options.uiHost,
        title: `listen on ${listenUrl}`,
        secrets,
        toleranceSeconds: options.tolerance,
        verificationPrefix,
        forwardTo: forwardTo?.href,
        recordSent,
      });
    },
  };
}
