import type { CaptureRecord } from '../capture/capture-record.js';
import type { LabelledSecret } from '@ledgerhook/webhooks';
import { inspectorActions } from '../inspector/inspector-actions.js';
import { startInspector, type RunningInspector } from '../inspector/inspector-server.js';
import type { MemorySource } from '../inspector/inspector-source.js';

export interface InspectorFlags {
  port: number;
  /** Given explicitly by the user; otherwise loopback. */
  host?: string | undefined;
  title: string;
  secrets: readonly LabelledSecret[];
  toleranceSeconds: number;
  verificationPrefix?: string | undefined;
  forwardTo?: string | undefined;
  /** Where an edited delivery's capture line goes (the capture file), besides the page's list. */
  recordSent?: ((record: CaptureRecord) => Promise<void>) | undefined;
}

/**
 * The one place the CLI starts an inspector (for `inspect FILE` and `listen --ui`): the secrets go
 * to the server-side actions and checklist, never into anything the page receives.
 */
export function serveInspector(source: MemorySource, flags: InspectorFlags): Promise<RunningInspector> {
  return startInspector({
    source,
    actions: inspectorActions({
      secret: flags.secrets[0]?.secret,
      secrets: flags.secrets,
      verificationPrefix: flags.verificationPrefix,
      // Written first, then listed: the page shows an edit once its line is in the capture file.
      onSent: async (record) => {
        await flags.recordSent?.(record);
        source.push(record);
      },
    }),
    title: flags.title,
    port: flags.port,
    host: flags.host,
    forwardTo: flags.forwardTo,
    detail: {
      secrets: flags.secrets,
      toleranceSeconds: flags.toleranceSeconds,
      verificationPrefix: flags.verificationPrefix,
    },
  });
}
