/**
 * The request flags sync and reconcile share (--timeout in seconds, --max-response-bytes, --max-wait,
 * --max-pages), as syncDataset's and reconcileDataset's `limits` group.
 */
export function requestLimits(options: {
  timeout: number;
  maxResponseBytes?: number | undefined;
  maxWait?: number | undefined;
  maxPages?: number | undefined;
}) {
  return {
    timeoutMs: Math.round(options.timeout * 1000),
    maxResponseBytes: options.maxResponseBytes,
    maxWaitMs: options.maxWait,
    maxPages: options.maxPages,
  };
}
