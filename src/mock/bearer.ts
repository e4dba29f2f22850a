import { mockError } from './mock-error.js';
import type { MockRequest } from './mock-types.js';

/** Spec 5.1: `Authorization: Bearer <ACCESS_TOKEN>`; anything else is a 401, saying which. */
export function authorise(request: MockRequest, token: string): void {
  const header = request.headers.authorization;
  if (!header)
    throw mockError(401, 'unauthorized', 'missing Authorization header; send "Authorization: Bearer <ACCESS_TOKEN>"');
  const match = /^Bearer (.+)$/.exec(header);
  if (!match || match[1] !== token) throw mockError(401, 'unauthorized', 'the access token is not valid');
}
