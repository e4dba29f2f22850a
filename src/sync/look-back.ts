// An ISO 8601 date-time as a server may write it: minutes or seconds, any fraction, `Z`, an offset or no zone.
const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?(Z|[+-]\d\d:?\d\d)?$/;

/**
 * The stored lastUpdatedDate moved back by `lagMs`, in the server's own form: its zone (`Z`, an offset
 * or none) kept, its seconds and fraction kept to as many digits (cut, never rounded up: a lag only
 * ever looks further back). The written wall-clock time moves, so the same zone applies to it.
 * Anything else is sent as stored.
 */
export function lookBack(lastUpdatedDate: string, lagMs: number): string {
  if (lagMs <= 0) return lastUpdatedDate;
  const match = STAMP.exec(lastUpdatedDate);
  const wall = Date.parse(`${match?.[1]}:${match?.[2] ?? '00'}Z`);
  if (!match || Number.isNaN(wall)) return lastUpdatedDate;
  const [, , seconds, fraction = '', zone = ''] = match;
  const iso = new Date(wall + Number(fraction.padEnd(3, '0').slice(0, 3)) - lagMs).toISOString();
  if (seconds === undefined) return `${iso.slice(0, 16)}${zone}`;
  const moved = fraction.length <= 3 ? iso.slice(20, 20 + fraction.length) : `${iso.slice(20, 23)}${fraction.slice(3)}`;
  return `${iso.slice(0, 19)}${moved ? `.${moved}` : ''}${zone}`;
}
