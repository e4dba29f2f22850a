import type { CaptureRecord } from '../../../capture/capture-record.js';
import { type ForwardState, standingsIn } from '../../../capture/route-standings.js';
import { resolveTarget } from '../../../delivery/target.js';
import { usageError } from '../../../errors.js';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import { printableLine } from '../../render-delivery.js';
import type { ReplayCommandOptions } from './definition.js';

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
  const shown = [...urls].slice(0, 3).map((url) => printableLine(url.slice(0, 200)));
  const where = shown.length === 0 ? '' : ` (the capture names ${shown.join(', ')}${urls.size > 3 ? ', ...' : ''})`;
  return usageError(
    `replay --${state} needs --to TARGET: a capture file never chooses where its deliveries go${where}`,
    'missing_target',
  );
}

/** Flags that do not go together, and a missing --to, are said before the file is read. */
export function checkFlags(options: ReplayCommandOptions): void {
  if (options.failed && options.owed) throw usageError('choose --failed or --owed, not both', 'conflicting_flags');
  if (options.route !== undefined && !options.failed && !options.owed)
    throw usageError('--route goes with --failed or --owed', 'conflicting_flags');
  if (options.edit && (options.failed || options.owed))
    throw usageError(
      '--edit sends one delivery to --to TARGET; it does not go with --failed or --owed',
      'conflicting_flags',
    );
  if (options.to === undefined && !options.failed && !options.owed)
    throw usageError('replay needs --to TARGET', 'missing_target');
  if (options.to !== undefined) resolveTarget(options.to);
}

/**
 * The deliveries to consider and where they go: always --to. With --failed or --owed, the ones with
 * such a forward (and, for --owed, the one route they are recorded against).
 */
export function chooseRecords(
  options: ReplayCommandOptions,
  records: CaptureRecord[],
): { records: CaptureRecord[]; url: URL; owedRoute?: string | undefined } {
  const state = options.failed ? 'failed' : options.owed ? 'owed' : undefined;
  if (state === undefined) return { records, url: resolveTarget(options.to ?? '') };
  const chosen = forwardsIn(records, state, options.route);
  if (options.to === undefined) throw targetNotFromFile(state, chosen.urls);
  const url = resolveTarget(options.to);
  if (state === 'failed') return { records: chosen.records, url };
  // Each sent forward is recorded against its route: one route at a time.
  if (chosen.routes.size > 1)
    throw usageError(
      `the owed forwards are due at ${chosen.routes.size} routes (${[...chosen.routes].map(printableLine).join(', ')}): choose one with --route NAME`,
      'missing_target',
    );
  return { records: chosen.records, url, owedRoute: [...chosen.routes][0] };
}

/** Nothing in the file failed (or is owed): said, and not an error. */
export function nothingToResend(options: ReplayCommandOptions, ctx: CliContext): void {
  if (options.json) writeJson(ctx, { url: null, results: [], skipped: [], sent: 0, succeeded: 0, failed: 0 });
  else
    writeLine(
      ctx.stdout,
      options.owed
        ? `no forward is still owed in ${options.file}${options.route === undefined ? '' : ` to route ${printableLine(options.route)}`}`
        : `no delivery in ${options.file} failed at its last attempt`,
    );
}
