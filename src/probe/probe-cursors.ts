import { describeBody } from '../http/error-body.js';
import { lookBack } from '../sync/look-back.js';
import type { ListAnswer, ProbeRun } from './probe-run.js';
import { stampForm } from './probe-time.js';
import type { ProbeQuirk } from './probe-types.js';

/** A cursor no service issued: what an expired or foreign one looks like to it. */
export const UNKNOWN_CURSOR = 'ledgerhook-probe-unknown-cursor';

/**
 * An incremental read since the latest stamp (spec 4.3 rule 5), which is almost always one last page:
 * how it ends, and that the service takes its own lastUpdatedDate back. At whole seconds, a read
 * since the stamp moved back by the lag too. Returns what that second read answered.
 */
export async function probeIncremental(
  run: ProbeRun,
  path: string,
  limit: number,
): Promise<{ stamp: string; status: number } | undefined> {
  const stamp = run.latestStamp(path);
  if (stamp === undefined) return undefined;
  const since = await run.get(path, { limit, lastUpdatedDate: stamp });
  if (since.status !== 200)
    run.add({
      area: 'paging',
      id: 'incremental',
      observed: `a read since the service's own lastUpdatedDate (${JSON.stringify(stamp)}) answered ${since.status}`,
      problem: 'incremental reads fail: ask the API team how lastUpdatedDate is to be sent',
    });
  const form = stampForm([stamp]);
  if (!form || form.precision === 'sub-second') return undefined;
  const moved = lookBack(stamp, form.unitMs);
  const answer = await run.get(path, { limit, lastUpdatedDate: moved });
  return { stamp: moved, status: answer.status };
}

/** How the last pages seen ended: no cursor field (the spec), `cursor: null` or `cursor: ""`. */
export function lastPageFinding(run: ProbeRun): void {
  const kinds = [...new Set(run.endings)];
  run.facts.lastPage = kinds;
  if (kinds.length === 0) return;
  const words = { absent: 'no cursor field', null: 'cursor: null', empty: 'cursor: ""' } as const;
  const quirk: ProbeQuirk | undefined = kinds.includes('null')
    ? 'cursor-null'
    : kinds.includes('empty')
      ? 'cursor-empty'
      : undefined;
  run.add({
    area: 'paging',
    id: 'last-page',
    quirk,
    observed: `the last page ends with ${kinds.map((kind) => words[kind]).join(' or ')}${quirk ? ' (the spec leaves the field out); sync ends a read on each' : ''}`,
  });
}

function said(answer: ListAnswer): string {
  const body = describeBody(answer.text, answer.headers['content-type']);
  return `${answer.status}, ${body.shape}${body.summary ? ` (${JSON.stringify(body.summary)})` : ''}`;
}

/**
 * Cursors: one the service issued, sent (its next page) and sent again; one it never issued. A
 * refusal of either is what a continued read meets once its cursor expired: its status has to be
 * among expiredCursorStatuses, so that sync reads from page 1 instead of failing.
 */
export async function probeCursors(
  run: ProbeRun,
  path: string,
  issued: { cursor: string; limit?: number | undefined },
) {
  const first = await run.get(path, issued);
  if (first.status !== 200) {
    run.add({
      area: 'paging',
      id: 'cursor',
      observed: `a cursor the service had just issued was refused: ${said(first)}`,
      problem: 'the service does not take back its own cursors as a header: ask the API team how cursor is to be sent',
    });
    return;
  }
  const again = await run.get(path, issued);
  if (again.status === 200)
    run.add({
      area: 'paging',
      id: 'cursor.reused',
      observed: 'a cursor sent a second time is accepted (a continued read can go on from it)',
    });
  else
    cursorRefusal(
      run,
      'cursor.reused',
      'cursor-single-use',
      `a cursor sent a second time answered ${said(again)}`,
      again.status,
    );
  const unknown = await run.get(path, { ...issued, cursor: UNKNOWN_CURSOR });
  if (unknown.status === 200)
    run.add({
      area: 'paging',
      id: 'cursor.unknown',
      quirk: 'unknown-cursor-accepted',
      observed: `a cursor the service never issued answered 200 (${unknown.page?.items ?? 0} items): an expired cursor cannot be told from a good one`,
    });
  else
    cursorRefusal(
      run,
      'cursor.unknown',
      undefined,
      `a cursor the service never issued answered ${said(unknown)}`,
      unknown.status,
    );
}

function cursorRefusal(
  run: ProbeRun,
  id: string,
  quirk: ProbeQuirk | undefined,
  observed: string,
  status: number,
): void {
  // 401 and 429 already mean a token and a rate: such an answer cannot also mean an expired cursor.
  const countable = status >= 400 && status < 500 && status !== 401 && status !== 429;
  run.add({
    area: 'paging',
    id,
    quirk,
    observed,
    ...(countable ? { setting: run.imply('expiredCursorStatuses', String(status), true) } : {}),
  });
}
