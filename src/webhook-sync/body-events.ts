import { findEvent } from '@ledgerhook/webhooks';
import { userDirName } from '../store/identity.js';
import type { RawLifecycleEventBody } from '@ledgerhook/webhooks';
import type { WebhookSyncEvent } from './webhook-sync-options.js';

/** A lifecycle event syncs nothing: it is reported with the catalogue's suggested use. */
export function lifecycleEvent(body: RawLifecycleEventBody): WebhookSyncEvent {
  const event = findEvent(body.event);
  return {
    type: 'lifecycle',
    userId: body.userId,
    event: body.event,
    known: Boolean(event),
    message: event?.suggestedUse ?? 'not in the catalogue (a custom event arranged with the API team?)',
  };
}

/** Why a userId cannot name a user of its own, or undefined when it can. */
export function badUserReason(userId: string): string | undefined {
  try {
    userDirName(userId);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
