/**
 * `new Date(ms).toISOString()`, remembered for the last millisecond asked: a listener under load
 * stamps many deliveries and lines within one millisecond, and each Date and its formatting cost
 * about a microsecond.
 */
let lastMs = Number.NaN;
let lastText = '';

export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}
