import { LedgerhookError } from '../errors.js';
import { checkServiceUrl, redactUrl } from '../util/service-url.js';

/** Where a deployment's jobs are (no Redis client here: the CLI resolves flags without loading one). */
export const DEFAULT_QUEUE_NAME = 'ledgerhook-sync';

/** Kept under its old name for importers; the helper is shared with the Postgres store. */
export const redactRedisUrl = redactUrl;

export function checkRedisUrl(url: string): string {
  checkServiceUrl(url, ['redis:', 'rediss:'], 'queue', 'queue_url_invalid');
  return url;
}

export function checkQueueName(name: string): string {
  // BullMQ keys are `bull:<name>:...`: a colon would make keys of two queues collide.
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(name))
    throw new LedgerhookError('ERR_USAGE', `queue name "${name}" must be 1-100 letters, digits, _ . or -`, {
      details: { reason: 'queue_name_invalid' },
    });
  return name;
}

/** A queue URL and name, checked. */
export function queueTarget(url: string, name: string | undefined): { url: string; queueName: string } {
  return { url: checkRedisUrl(url), queueName: checkQueueName(name ?? DEFAULT_QUEUE_NAME) };
}
