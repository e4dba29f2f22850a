/** A plain JSON object (not null, not an array): the shape every webhook body and envelope must have. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
