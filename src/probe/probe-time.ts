import { DEFAULT_TOLERANCE_SECONDS } from '../defaults.js';
import { MAX_TOLERANCE_SECONDS } from '../settings/setting-values.js';
import type { ProbeRun } from './probe-run.js';

/** How lastUpdatedDate is written: to the minute, the second or finer; with `Z`, an offset or no zone. */
export interface StampForm {
  precision: 'minute' | 'second' | 'sub-second';
  /** One unit of that precision, in ms: what a read must look back to catch its own instant again. */
  unitMs: number;
  zone: 'Z' | 'offset' | 'none' | 'mixed';
  example: string;
  seen: number;
  /** Whole seconds written with a zero fraction (".000"). */
  zeroFraction: boolean;
}

const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::(\d\d)(?:\.(\d{1,9}))?)?(Z|[+-]\d\d:?\d\d)?$/;

/**
 * The form of the stamps a service sent. Whole seconds written as ".000" count as whole seconds
 * once every stamp seen ends so (one stamp of a millisecond service has a 1 in 1000 chance to).
 */
export function stampForm(stamps: readonly string[]): StampForm | undefined {
  const parsed = [...new Set(stamps)].map((stamp) => ({ stamp, match: STAMP.exec(stamp) }));
  const usable = parsed.filter((entry) => entry.match !== null);
  const first = usable[0];
  if (!first) return undefined;
  const zones = new Set(
    usable.map(({ match }) => (match?.[3] === undefined ? 'none' : match[3] === 'Z' ? 'Z' : 'offset')),
  );
  const zone = zones.size === 1 ? ([...zones][0] as StampForm['zone']) : 'mixed';
  const base = { zone, example: first.stamp, seen: usable.length };
  if (usable.some(({ match }) => match?.[1] === undefined))
    return { ...base, precision: 'minute', unitMs: 60_000, zeroFraction: false };
  const fractions = usable.map(({ match }) => match?.[2] ?? '');
  const digits = Math.max(...fractions.map((fraction) => (/[1-9]/.test(fraction) ? fraction.length : 0)));
  if (digits === 0)
    return { ...base, precision: 'second', unitMs: 1000, zeroFraction: fractions.some((fraction) => fraction !== '') };
  return { ...base, precision: 'sub-second', unitMs: Math.max(1, 10 ** (3 - digits)), zeroFraction: false };
}

const unitWords = (form: StampForm) =>
  form.precision === 'minute'
    ? 'whole minutes'
    : form.precision === 'second'
      ? 'whole seconds'
      : 'fractions of a second';

/** The lag setting's value for one unit of the precision. */
export const lagFor = (form: StampForm): string =>
  form.unitMs >= 60_000 ? `${form.unitMs / 60_000}m` : `${form.unitMs / 1000}s`;

/**
 * The precision of lastUpdatedDate and the lag it calls for: at whole seconds (or minutes), a service
 * that compares with `>` never sends again a change made in the same unit as a read. Whether it uses
 * `>` or `>=` cannot be seen without changing data, so the lag is said as needed at that precision.
 */
export function timeFindings(run: ProbeRun, lagAccepted?: { stamp: string; status: number } | undefined): void {
  const form = stampForm(run.stamps.map((entry) => entry.stamp));
  if (!form) {
    if (run.stamps.length > 0)
      run.add({
        area: 'time',
        id: 'timestamps',
        observed: `lastUpdatedDate is not an ISO 8601 date-time ledgerhook can move back (e.g. ${JSON.stringify(run.stamps[0]?.stamp.slice(0, 40))}): it is sent back as given, and no lag can apply`,
      });
    return;
  }
  run.facts.timestamps = { precision: form.precision, zone: form.zone, example: form.example, seen: form.seen };
  const written = form.zeroFraction ? ' (written with a zero fraction)' : '';
  const example = `${form.seen} seen, e.g. ${JSON.stringify(form.example)}`;
  if (form.precision === 'sub-second') {
    run.add({
      area: 'time',
      id: 'lag',
      observed: `lastUpdatedDate has ${unitWords(form)} (${example}): a change lost at the boundary would have to fall in the same ${form.unitMs} ms as the read; no lag needed`,
    });
  } else {
    const checked =
      lagAccepted === undefined
        ? ''
        : lagAccepted.status === 200
          ? `; the service accepted it moved back (${JSON.stringify(lagAccepted.stamp)}: 200)`
          : `; moved back (${JSON.stringify(lagAccepted.stamp)}) it answered ${lagAccepted.status}`;
    run.add({
      area: 'time',
      id: 'lag',
      quirk: form.precision === 'minute' ? 'whole-minute-timestamps' : 'whole-second-timestamps',
      observed: `lastUpdatedDate has ${unitWords(form)}${written} (${example}): if the service compares with > at that precision, a change made in the same ${form.precision} as a read is never sent again; whether it uses > or >= cannot be seen without changing data, so a lag of one ${form.precision} is needed${checked}`,
      setting: run.imply('lag', lagFor(form), true),
      ...(lagAccepted !== undefined && lagAccepted.status !== 200
        ? {
            problem:
              'the service refuses lastUpdatedDate moved back by the lag: ask the API team how it compares lastUpdatedDate',
          }
        : {}),
    });
  }
  if (form.zone !== 'Z')
    run.add({
      area: 'time',
      id: 'timestamps.zone',
      quirk: form.zone === 'none' ? 'timestamps-without-zone' : 'timestamps-with-offset',
      observed:
        form.zone === 'none'
          ? `lastUpdatedDate has no zone (the spec says UTC): it is sent back as given, moved back by the lag in the same form`
          : `lastUpdatedDate carries ${form.zone === 'mixed' ? 'different zones' : 'an offset'} instead of Z: it is sent back as given, moved back by the lag in the same form`,
    });
}

/** The server's clock against ours, from its Date headers (each to the second; their median). */
export function clockFinding(run: ProbeRun): void {
  const skews = run.client.answers
    .map((answer) => {
      const date = Date.parse(answer.headers.date ?? '');
      // Date is cut to the second: its middle is the best guess.
      return Number.isNaN(date) ? undefined : date + 500 - (answer.sentAt + answer.receivedAt) / 2;
    })
    .filter((skew): skew is number => skew !== undefined)
    .sort((a, b) => a - b);
  if (skews.length === 0) {
    run.add({ area: 'time', id: 'clock', observed: 'no answer carried a Date header: the server clock is not known' });
    return;
  }
  const skew = skews[Math.floor(skews.length / 2)] ?? 0;
  run.facts.clockSkewMs = Math.round(skew);
  const seconds = Math.round(Math.abs(skew) / 1000);
  if (Math.abs(skew) < 2000) {
    run.add({
      area: 'time',
      id: 'clock',
      observed: `the server's clock is within ${Math.max(1, seconds)} s of ours (Date header)`,
    });
    return;
  }
  // A webhook's iat is the service's clock; its age is measured with ours: the tolerance has to cover the gap.
  const needed = Math.max(DEFAULT_TOLERANCE_SECONDS, Math.ceil((seconds + 60) / 60) * 60);
  run.add({
    area: 'time',
    id: 'clock',
    quirk: 'clock-skew',
    observed: `the server's clock is ${seconds} s ${skew > 0 ? 'ahead of' : 'behind'} ours (Date header): a webhook's iat will look ${seconds} s ${skew > 0 ? 'in the future' : 'older'} here (check this machine's clock too)`,
    ...(needed <= MAX_TOLERANCE_SECONDS
      ? { setting: run.imply('tolerance', String(needed), true) }
      : { problem: "the clocks are more than a day apart: set this machine's clock (NTP) before verifying webhooks" }),
  });
}
