import { DEFAULT_MAX_STAMP_AHEAD_MS } from '../defaults.js';
import { LedgerhookError } from '../errors.js';
import { formatDuration } from '../util/duration.js';

/*
 * What the server's lastUpdatedDate may do, judged in one place for every store and every way a
 * sync runs (sync, listen --sync, the worker, reconcile --repair: they all read through paginate and
 * commit through read-run). The stamp is the server's own watermark ("send this back next time"),
 * so it is judged against the server's own clock and against what is stored, never rewritten.
 */

/**
 * A stamp or a Date header as it may be printed: quoted, cut to 40 characters, anything but
 * printable ASCII shown as "?" (Date.parse accepts a "(comment)" holding anything, a terminal
 * escape included, and an ISO date never needs more).
 */
const shown = (text: string) => JSON.stringify(text.slice(0, 40).replace(/[^\x20-\x7e]/g, '?'));

/** The server's stamp fell behind the stored one by more than the run looked back; it was stored. */
export interface StampBehind {
  /** What the server answered (and what is now stored). */
  received: string;
  /** What was stored before this run. */
  stored: string;
}

/** The lastUpdatedDate a run commits, and `behind` when it had to go back to the server's. */
export interface SettledStamp {
  lastUpdatedDate: string;
  behind?: StampBehind | undefined;
}

/**
 * Refuses a page whose lastUpdatedDate is more than `maxAheadMs` ahead of the server's own clock:
 * its Date header (a whole second, so read as the end of that second), or this machine's clock
 * when the answer has none or one that does not parse. Stored, such a stamp would be sent back
 * on every later run and the server would answer "nothing changed since" until that date: every
 * change lost. Refused, the run commits nothing and says why.
 */
export function checkStampAhead(
  stamp: string,
  answerDate: string | undefined,
  now: number,
  url: URL,
  maxAheadMs: number = DEFAULT_MAX_STAMP_AHEAD_MS,
): void {
  const at = Date.parse(stamp);
  const serverClock = answerDate === undefined ? Number.NaN : Date.parse(answerDate);
  const byServer = Number.isFinite(serverClock);
  const clock = byServer ? serverClock + 999 : now;
  if (!Number.isFinite(at) || at - clock <= maxAheadMs) return;
  const gap = at - clock;
  const ahead =
    gap >= 2 * 86_400_000 ? `${Math.floor(gap / 86_400_000)} days` : formatDuration(Math.floor(gap / 60_000) * 60_000);
  const against = byServer
    ? `its own Date header (${shown(answerDate ?? '')})`
    : `this machine's clock (${new Date(now).toISOString()}; the answer had no Date header)`;
  throw new LedgerhookError(
    'ERR_BAD_RESPONSE',
    `GET ${url.href} answered lastUpdatedDate ${shown(stamp)}, ${ahead} ahead of ${against}: more than the ${formatDuration(maxAheadMs)} allowed (the maxStampAhead setting); nothing was committed`,
    {
      details: {
        reason: 'stamp_ahead',
        url: url.href,
        lastUpdatedDate: stamp.slice(0, 40),
        ...(byServer ? { serverDate: answerDate?.slice(0, 40) } : { clock: new Date(now).toISOString() }),
        maxStampAheadMs: maxAheadMs,
      },
    },
  );
}

/**
 * The lastUpdatedDate an incremental run commits, from the stored one, the one it sent (the stored
 * one looked back by the lag, or a window's start) and the server's (its first page's):
 * - at or after the stored one: the server's, as always;
 * - behind the stored one but not behind what was sent: the stored one stays. The server answered
 *   from the sent date on, so it covered the stored one; a server that echoes the date it was sent,
 *   or stamps with its newest change, does this on every quiet run with a lag, and moving back each
 *   time would drift the watermark back by the lag per run;
 * - behind even what was sent: the server's clock or data went back. Keeping the stored one would
 *   skip whatever the server now stamps between the two (lost until its clock passes the stored
 *   date: forever for a stored 9999-12-31); refusing would stop every run until someone acts. So
 *   the server's is stored, and `behind` names both: the next run reads the changes since then
 *   again, which upserts by id make harmless.
 * A stored stamp that does not parse (a state file edited by hand) gives way to the server's.
 */
export function stampToCommit(stored: string, sent: string, received: string): SettledStamp {
  const [s, t, r] = [Date.parse(stored), Date.parse(sent), Date.parse(received)];
  if (!Number.isFinite(s) || !Number.isFinite(r) || r >= s) return { lastUpdatedDate: received };
  if (Number.isFinite(t) && r >= Math.min(t, s)) return { lastUpdatedDate: stored };
  return { lastUpdatedDate: received, behind: { received, stored } };
}

/** A StampBehind in words, for each command that reports a run. */
export function describeStampBehind(behind: StampBehind): string {
  return `the server's lastUpdatedDate ${shown(behind.received)} is behind the stored ${shown(behind.stored)}: its clock or its data went back; stored the server's, so the next run reads the changes since then again (nothing between them is skipped)`;
}
