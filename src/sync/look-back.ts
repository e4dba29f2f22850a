/** The stored lastUpdatedDate moved back by `lagMs`, in the server's own ISO form (with or without ms). */
export function lookBack(lastUpdatedDate: string, lagMs: number): string {
  if (lagMs <= 0) return lastUpdatedDate;
  const match = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.exec(lastUpdatedDate);
  const at = Date.parse(lastUpdatedDate);
  if (!match || Number.isNaN(at)) return lastUpdatedDate;
  const iso = new Date(at - lagMs).toISOString();
  return match[1] === undefined ? iso.replace(/\.\d{3}Z$/, 'Z') : iso;
}
