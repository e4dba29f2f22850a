import { LedgerhookError } from '../errors.js';

const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);

function assignmentError(message: string, assignment: string): LedgerhookError {
  return new LedgerhookError('ERR_USAGE', message, { details: { reason: 'invalid_assignment', assignment } });
}

/**
 * Applies `--set path=value` to an object: dotted paths create objects on the way, and the value
 * is JSON when it parses as JSON (numbers, booleans, arrays, objects), else a string.
 */
export function setPath(target: Record<string, unknown>, assignment: string): void {
  const equals = assignment.indexOf('=');
  if (equals <= 0) throw assignmentError(`an assignment takes path=value, got "${assignment}"`, assignment);
  const path = assignment.slice(0, equals).split('.');
  const last = path.at(-1);
  if (last === undefined || path.some((key) => key === '' || FORBIDDEN.has(key)))
    throw assignmentError(`the path "${assignment.slice(0, equals)}" is not usable`, assignment);
  const raw = assignment.slice(equals + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // a plain string
  }
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[last] = value;
}
