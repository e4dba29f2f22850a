/** One captured delivery: one line of a JSON Lines capture file. */
export interface CaptureRecord {
  id: string;
  /** ISO 8601 UTC, when the last byte of the body arrived. */
  receivedAt: string;
  method: string;
  path: string;
  /** Header names in lower case; a repeated header keeps every value. */
  headers: Record<string, string | string[]>;
  /** Which header carried the verification token (the configured name, lower case). */
  headerName: string;
  /** The raw body, byte-exact, in standard Base64. */
  body: string;
  bodyBytes: number;
  verdict: CaptureVerdict;
  /** From the body, when it parses as a webhook (for filtering and display). */
  type?: string;
  event?: string;
  userId?: string;
  entities?: string[];
  forward?: { url: string; status?: number; latencyMs?: number; error?: string };
}

export interface CaptureVerdict {
  /** null when no secret was configured and nothing was verified. */
  valid: boolean | null;
  code?: string;
  message?: string;
  /** What the listener answered. */
  status: number;
}

export function captureBody(record: CaptureRecord): Buffer {
  return Buffer.from(record.body, 'base64');
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Enough structure to replay and verify; anything else in a line is kept but not required. */
export function isCaptureRecord(value: unknown): value is CaptureRecord {
  return isObject(value) && typeof value.id === 'string' && typeof value.receivedAt === 'string' && typeof value.body === 'string'
    && isObject(value.headers) && typeof value.headerName === 'string' && isObject(value.verdict);
}
