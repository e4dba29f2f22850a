import type { CaptureRecord } from '../../../capture/capture-record.js';
import { type ForwardState, standingsIn } from '../../../capture/route-standings.js';
import { usageError } from '../../../errors.js';
import { printableLine } from '../../render-delivery.js';

/**
 * `replay --failed` / `--owed` [--route NAME]: the deliveries with a forward in that state, and the
 * routes and URLs of those forwards. The URLs are only ever shown: a capture file never chooses
 * where a delivery goes.
 */
export function forwardsIn(
  records: readonly CaptureRecord[],
  state: ForwardState,
  route: string | undefined,
): { records: CaptureRecord[]; routes: Set<string>; urls: Set<string> } {
  const routes = new Set<string>();
  const urls = new Set<string>();
  const chosen = records.filter((record) => {
    const matching = standingsIn(record, state, route);
    for (const standing of matching) {
      routes.add(standing.route);
      urls.add(standing.url);
    }
    return matching.length > 0;
  });
  return { records: chosen, routes, urls };
}

/** `--failed`/`--owed` without `--to`: where the file says they were going is shown, for the person to pass. */
export function targetNotFromFile(state: ForwardState, urls: ReadonlySet<string>): Error {
  const shown = [...urls].slice(0, 3).map(printableLine);
  const where = shown.length === 0 ? '' : ` (the capture names ${shown.join(', ')}${urls.size > 3 ? ', ...' : ''})`;
  return usageError(
    `replay --${state} needs --to TARGET: a capture file never chooses where its deliveries go${where}`,
    'missing_target',
  );
}
