import { usageError } from '../errors.js';
import { readInputFile } from './read-input.js';

/**
 * userId → access token, from a JSON file (`listen --sync --tokens`, `worker --tokens`, the stored
 * tokensFile): tokens stay on this machine, out of shell history, process lists and Redis.
 */
export async function readTokenMap(path: string): Promise<Map<string, string>> {
  const text = (await readInputFile(path, 'token map')).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(
      `${path} is not JSON; it must map userId to access token: { "user_1": "token..." }`,
      'invalid_token_file',
    );
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Object.values(value).every((token) => typeof token === 'string' && token !== '')
  )
    throw usageError(
      `${path} must be a JSON object mapping userId to access token: { "user_1": "token..." }`,
      'invalid_token_file',
    );
  return new Map(Object.entries(value as Record<string, string>));
}
