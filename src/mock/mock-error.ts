import type { ErrorReason } from '../error-reasons.js';
import { LedgerhookError, type LedgerhookErrorDetails } from '../errors.js';
import { isObject } from '../util/is-object.js';
import { json, type MockResponse } from './mock-types.js';

/** What a refused mock request carries: the HTTP status and headers to answer with. */
export interface MockErrorDetails extends LedgerhookErrorDetails {
  reason: ErrorReason;
  status: number;
  headers?: Record<string, string>;
}

/**
 * A request the mock refuses. A LedgerhookError like every other deliberate failure, so that a
 * library caller of `mutate` gets the usual code and reason; `details.status` is what the HTTP
 * route answers, and `details.reason` becomes the body's `error` field.
 */
export function mockError(
  status: number,
  reason: ErrorReason,
  message: string,
  headers?: Record<string, string>,
): LedgerhookError {
  const details: MockErrorDetails = { reason, status };
  if (headers) details.headers = headers;
  return new LedgerhookError('ERR_USAGE', message, { details });
}

/** The JSON answer for a refused request, or undefined when the error is not one of the mock's own. */
export function mockErrorResponse(error: unknown): MockResponse | undefined {
  if (!(error instanceof LedgerhookError)) return undefined;
  const { reason, status, headers } = error.details;
  if (typeof reason !== 'string' || typeof status !== 'number') return undefined;
  return json(
    status,
    { error: reason, message: error.message },
    isObject(headers) ? (headers as Record<string, string>) : {},
  );
}
