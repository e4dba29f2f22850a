import type * as Undici from 'undici';

let loading: Promise<typeof Undici> | undefined;
let prepare: (() => Promise<void>) | undefined;

/**
 * undici, imported on the first request rather than when a module loads: its index costs ~100 ms
 * of CPU, which a command that never sends (bad input, --dry-run, an empty capture) need not pay.
 */
export function loadUndici(): Promise<typeof Undici> {
  loading ??= (prepare?.() ?? Promise.resolve()).then(() => import('undici'));
  return loading;
}

/**
 * A step run once before undici is first imported by loadUndici: the CLI raises V8's wasm tiering
 * budget for undici's parser there (src/cli/wasm-tiering.ts). The library itself changes no
 * process-wide setting.
 */
export function beforeUndiciLoads(step: () => Promise<void>): void {
  prepare = step;
}
