import { usageError } from '../../../errors.js';
import type { LabelledSecret } from '@ledgerhook/webhooks';
import type { ListenCommandOptions } from './definition.js';

// listen's flag checks: said before anything is opened, bound or created.

/** Flags that only make sense together are refused before anything is opened or bound. */
export function checkPairs(options: ListenCommandOptions): void {
  if (!options.sync && (options.token || options.tokenFile || options.tokens || options.baseUrl || options.queue))
    throw usageError('--token, --token-file, --tokens, --base-url and --queue go with --sync', 'conflicting_flags');
  if (!options.sync && (options.reconcileEvery !== undefined || options.keepDeleted))
    throw usageError('--reconcile-every and --keep-deleted go with --sync', 'conflicting_flags');
  if (options.queue && (options.reconcileEvery !== undefined || options.keepDeleted))
    throw usageError(
      'with --queue the workers sync: give --reconcile-every and --keep-deleted to `ledgerhook worker`',
      'conflicting_flags',
    );
  const captureFlags =
    options.captureSync ||
    options.captureRefusedBodies ||
    options.captureRefusedRate !== undefined ||
    options.captureRefusedMax !== undefined;
  if (!options.capture && captureFlags)
    throw usageError(
      '--capture-sync, --capture-refused-bodies, --capture-refused-rate and --capture-refused-max go with --capture FILE',
      'conflicting_flags',
    );
  const ui = options.ui || options.uiPort !== undefined || options.uiHost !== undefined;
  if (options.redact !== undefined && !options.capture && !ui && !options.printBody)
    throw usageError('--redact goes with --capture FILE, --ui or --print-body (what it redacts)', 'conflicting_flags');
}

export function checkFlags(
  options: Pick<ListenCommandOptions, 'sync' | 'insecureNoVerify'>,
  secrets: readonly LabelledSecret[],
): void {
  // Syncing on deliveries nobody verified would let anyone trigger syncs with the real access token.
  if (options.sync && secrets.length === 0 && !options.insecureNoVerify)
    throw usageError(
      'listen --sync needs a webhook secret to verify deliveries before syncing: pass --secret-file FILE (or set LEDGERHOOK_WEBHOOK_SECRET), or --insecure-no-verify to sync unverified deliveries',
      'sync_needs_secret',
    );
}
