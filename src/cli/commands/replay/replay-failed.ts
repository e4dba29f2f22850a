import type { CaptureRecord } from '../../../capture/capture-record.js';
import { routeStandings } from '../../../capture/route-standings.js';
import { resolveTarget } from '../../../delivery/target.js';
import { usageError } from '../../../errors.js';
import { printableLine } from '../../render-delivery.js';

/**
 * `replay --failed [--route NAME]`: the deliveries whose last attempt at a route failed for good (one
 * still waiting for a retry is left to listen), and where to send them: --to, else the one URL they
 * failed at (several URLs need --route or --to).
 */
export function failedDeliveries(
  records: readonly CaptureRecord[],
  options: { route?: string | undefined; to?: string | undefined },
): { records: CaptureRecord[]; url: URL | undefined } {
  const urls = new Set<string>();
  const chosen = records.filter((record) => {
    const failed = routeStandings(record).filter(
      (standing) => standing.outcome === 'failed' && (options.route === undefined || standing.route === options.route),
    );
    for (const standing of failed) urls.add(standing.url);
    return failed.length > 0;
  });
  if (options.to !== undefined) return { records: chosen, url: resolveTarget(options.to) };
  if (urls.size > 1)
    throw usageError(
      `the failed deliveries failed at ${urls.size} URLs (${[...urls].map(printableLine).join(', ')}): choose one with --route NAME, or send them all to --to TARGET`,
      'missing_target',
    );
  const [only] = urls;
  // Read back from the capture file: the same checks as a typed target.
  return { records: chosen, url: only === undefined ? undefined : resolveTarget(only) };
}
