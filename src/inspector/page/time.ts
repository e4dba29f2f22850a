/// <reference lib="dom" />
/**
 * Times on the page carry their zone: the browser's local time with its UTC offset, so that a
 * delivery's time can be matched with the app's logs on this machine and with UTC logs elsewhere.
 */
const pad = (n: number, width = 2) => String(Math.floor(Math.abs(n))).padStart(width, '0');

export function zoneOffset(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  return `${minutes >= 0 ? '+' : '-'}${pad(minutes / 60)}:${pad(minutes % 60)}`;
}

/** `19:53:59.123 +01:00`, for the list. */
export function clockWithZone(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso.slice(0, 24);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)} ${zoneOffset(date)}`;
}

/** `2026-11-24 19:53:59.123 +01:00 (18:53:59.123 UTC)`, for the detail. */
export function dateWithZone(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso.slice(0, 40);
  const local = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${clockWithZone(iso)}`;
  return date.getTimezoneOffset() === 0 ? `${local} (UTC)` : `${local} (${iso.slice(11, 23)} UTC)`;
}
