import type * as Undici from 'undici';

let loading: Promise<typeof Undici> | undefined;

/**
 * undici, imported on the first request rather than when a module loads: its index costs ~100 ms
 * of CPU, which a command that never sends (bad input, --dry-run, an empty capture) need not pay.
 */
export function loadUndici(): Promise<typeof Undici> {
  loading ??= import('undici');
  return loading;
}
