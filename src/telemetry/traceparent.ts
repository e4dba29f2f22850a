/**
 * W3C Trace Context `traceparent` (version 00), the one piece of trace context a queued job carries
 * from the listener to a worker. Job data is read back from Redis, which the network-facing side
 * fills: a value is used only when it is exactly `00-<32 hex>-<16 hex>-<2 hex>` in lower case with
 * ids that are not all zeros; anything else starts a new trace.
 */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

export interface ParsedTraceparent {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

export function parseTraceparent(value: unknown): ParsedTraceparent | undefined {
  if (typeof value !== 'string' || value.length !== 55) return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, traceId = '', spanId = '', flags = ''] = match;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

/** A checked traceparent, or undefined (what a job keeps of the value it was given). */
export function checkedTraceparent(value: unknown): string | undefined {
  return parseTraceparent(value) === undefined ? undefined : (value as string);
}

export function formatTraceparent(context: ParsedTraceparent): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}
