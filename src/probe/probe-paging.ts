import { DEFAULT_PAGE_LIMIT } from '../defaults.js';
import { describeBody } from '../http/error-body.js';
import { MAX_PAGE_LIMIT, parsePageLimit } from '../settings/setting-values.js';
import type { ListAnswer, ProbeRun } from './probe-run.js';

/** Requests the search for the largest page size may make, past the first two. */
const SEARCH_STEPS = 5;

/** What one page size brought: accepted (its items, whether more pages remain), or refused. */
type SizeAnswer =
  | { kind: 'accepted'; items: number; more: boolean }
  | { kind: 'refused'; status: number; text: string; said: string }
  | { kind: 'other'; status: number };

async function ask(run: ProbeRun, path: string, limit: number): Promise<{ answer: ListAnswer; size: SizeAnswer }> {
  const answer = await run.get(path, { limit });
  if (answer.page)
    return { answer, size: { kind: 'accepted', items: answer.page.items, more: answer.page.cursor !== undefined } };
  // A page size refused is a client error other than the token's (stopped already) and the rate's (waited out).
  if (answer.status >= 400 && answer.status < 500 && answer.status !== 404)
    return {
      answer,
      size: {
        kind: 'refused',
        status: answer.status,
        text: answer.text.slice(0, 2000),
        said: JSON.stringify(describeBody(answer.text, answer.headers['content-type']).summary),
      },
    };
  return { answer, size: { kind: 'other', status: answer.status } };
}

/** The page size sync asks for: the stored pageLimit, else 100. */
export function pageLimitInUse(run: ProbeRun): number {
  const stored = run.settings.pageLimit === undefined ? undefined : parsePageLimit(run.settings.pageLimit);
  return typeof stored === 'number' ? stored : DEFAULT_PAGE_LIMIT;
}

/**
 * The largest accepted page size between `accepted` (0: none known) and `refused`, in a few
 * requests: first any number the refusal names (a service that says "at most 50" is believed once
 * 50 is accepted and 51 refused), then halving. Stops early at a size that comes back clamped.
 */
async function largestAccepted(
  run: ProbeRun,
  path: string,
  accepted: number,
  refused: SizeAnswer & { kind: 'refused' },
  limit: number,
) {
  let lo = accepted;
  let hi = limit;
  let clampedAt: number | undefined;
  // A refusal that names the largest size ("at most 50"): that size, or the one past it when it is
  // the size already accepted, is asked for first.
  const named = [...refused.text.matchAll(/\d+/g)]
    .map((match) => Number(match[0]))
    .filter((n) => n >= lo && n < hi && n !== refused.status);
  const most = named.length > 0 ? Math.max(...named) : undefined;
  const tryFirst = most === undefined ? [] : most === lo ? [lo + 1] : [most];
  for (let step = 0; step < SEARCH_STEPS && hi - lo > 1; step += 1) {
    const next = tryFirst.shift() ?? Math.floor((lo + hi) / 2);
    const { size } = await ask(run, path, next);
    if (size.kind === 'accepted') {
      if (size.more && size.items < next) {
        clampedAt = size.items;
        lo = size.items;
        break;
      }
      lo = next;
      // The size the refusal named: one more is asked for, to be sure of the edge.
      if (named.includes(next)) tryFirst.push(next + 1);
    } else if (size.kind === 'refused') hi = next;
    else break;
  }
  return { accepted: lo, refusedAbove: hi, clampedAt };
}

/**
 * Page sizes: the default (no `limit`), the size sync asks for, and the largest the service accepts
 * (a 400 above some size, or pages silently clamped below what was asked).
 */
export async function probePageSizes(run: ProbeRun, path: string, unlimited: ListAnswer | undefined): Promise<number> {
  if (unlimited?.page) {
    const { items, cursor } = unlimited.page;
    run.facts.defaultPageSize = { size: items, atLeast: cursor === undefined };
    run.add({
      area: 'paging',
      id: 'default-page-size',
      observed:
        cursor === undefined
          ? `without a limit header the whole list came in one page (${items} items): the default page size is at least that; sync always sends limit`
          : `without a limit header pages hold ${items} items (the service's default page size); sync always sends limit`,
    });
  }
  const inUse = pageLimitInUse(run);
  const first = await ask(run, path, inUse);
  const size = first.size;
  if (size.kind === 'other') {
    run.add({ area: 'paging', id: 'page-size', observed: `GET ${path} with limit ${inUse} answered ${size.status}` });
    return inUse;
  }
  if (size.kind === 'refused') {
    const found = await largestAccepted(run, path, 0, size, inUse);
    run.facts.pageSize = found;
    const range =
      found.refusedAbove - found.accepted > 1
        ? `; sizes from ${found.accepted + 1} to ${found.refusedAbove - 1} were not tried`
        : '';
    run.add({
      area: 'paging',
      id: 'page-size',
      quirk: 'limit-400-above-max',
      observed:
        found.accepted === 0
          ? `limit ${inUse} answered ${size.status} and no smaller page size tried was accepted`
          : `limit ${inUse} answered ${size.status} (${size.said}); the largest page size accepted is ${found.accepted}${range}`,
      ...(found.accepted > 0
        ? { setting: run.imply('pageLimit', String(found.clampedAt ?? found.accepted), true) }
        : { problem: 'no page size was accepted: ask the API team which limit the list endpoints take' }),
    });
    return found.accepted || inUse;
  }
  if (size.items > inUse) {
    run.add({
      area: 'paging',
      id: 'page-size',
      quirk: 'limit-header-ignored',
      observed: `limit ${inUse} brought ${size.items} items: the service ignores the limit header and pages at its own size (sync follows its cursors all the same)`,
    });
    return inUse;
  }
  if (size.more && size.items < inUse) {
    noteClamped(
      run,
      size.items,
      `limit ${inUse} brought ${size.items} items and a cursor: pages are silently clamped at ${size.items}`,
    );
    return size.items;
  }
  await probeUpper(run, path, inUse);
  return inUse;
}

/** Pages come back clamped at `items`, with a cursor: that is the page size to ask for. */
function noteClamped(run: ProbeRun, items: number, observed: string): void {
  run.facts.pageSize = { accepted: items, clampedAt: items };
  run.add({
    area: 'paging',
    id: 'page-size',
    quirk: 'clamped-page-size',
    observed,
    setting: run.imply('pageLimit', String(items), false),
  });
}

/** Past the size in use: how far the service goes (information; what sync asks for is accepted). */
async function probeUpper(run: ProbeRun, path: string, inUse: number): Promise<void> {
  const upper = Math.min(MAX_PAGE_LIMIT, Math.max(1000, inUse * 10));
  if (upper <= inUse) {
    run.facts.pageSize = { accepted: inUse };
    run.add({ area: 'paging', id: 'page-size', observed: `limit ${inUse} is accepted` });
    return;
  }
  const { size } = await ask(run, path, upper);
  if (size.kind === 'refused') {
    const found = await largestAccepted(run, path, inUse, size, upper);
    run.facts.pageSize = found;
    const exact = found.refusedAbove - found.accepted === 1;
    run.add({
      area: 'paging',
      id: 'page-size',
      quirk: 'limit-400-above-max',
      observed: `limit ${inUse} is accepted; limit ${upper} answered ${size.status} (${size.said}): the largest page size is ${exact ? found.accepted : `between ${found.accepted} and ${found.refusedAbove - 1}`}${found.clampedAt !== undefined ? `, where pages are clamped` : ''}`,
      // The same bound as when the size in use is refused: the setting fits, and stays within it.
      setting: run.imply('pageLimit', String(found.clampedAt ?? found.accepted), true),
    });
  } else if (size.kind === 'accepted' && size.more && size.items < upper) {
    noteClamped(
      run,
      size.items,
      `limit ${inUse} is accepted; limit ${upper} brought ${size.items} items and a cursor: pages are clamped at ${size.items}, above the size in use`,
    );
  } else {
    const whole = size.kind === 'accepted' && !size.more;
    run.facts.pageSize = { accepted: whole ? Math.max(inUse, size.kind === 'accepted' ? size.items : 0) : upper };
    run.add({
      area: 'paging',
      id: 'page-size',
      observed:
        size.kind === 'other'
          ? `limit ${inUse} is accepted; limit ${upper} answered ${size.status}`
          : `limit ${inUse} and limit ${upper} are accepted${whole ? ` (the whole list, ${size.kind === 'accepted' ? size.items : 0} items, fit in one page: a clamp above that cannot be seen)` : ''}`,
    });
  }
}
