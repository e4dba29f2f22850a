/**
 * V8's wasm tiering budget for ledgerhook's processes (scripts/undici-lite.mjs says why: undici's HTTP
 * parser, llhttp, is WebAssembly, and its optimizing compile cost every network command ~140 ms).
 * The CLI bundle sets it at run time; `npm test` gives it to the test files' processes.
 */
const FLAG = '--wasm-tiering-budget=1000000000';

/**
 * The flag, or undefined where it should not be set: a V8 not known to have it (V8 11 to 13 are Node
 * 20 to 24; to `node` an unknown flag is a fatal "bad option", to setFlagsFromString a line on
 * stderr), or a process given a budget of its own (`execArgv`), which stays the user's.
 */
export function wasmTieringBudgetFlag(execArgv = process.execArgv) {
  const major = Number(process.versions.v8.split('.')[0]);
  if (!(major >= 11 && major <= 13)) return undefined;
  if (execArgv.some((arg) => arg.startsWith('--wasm-tiering-budget'))) return undefined;
  return FLAG;
}
