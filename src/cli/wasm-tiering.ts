/**
 * V8's wasm tiering budget for the CLI's processes. undici parses responses with llhttp compiled to
 * WebAssembly; V8 compiles a wasm function with its baseline compiler first and hands it to its
 * optimizing one once it has run for a budget (roughly bytes executed): 1.8M on Node 20, 13M on 22
 * and 24. llhttp spends that within one to five responses, and its optimizing compile costs ~140 ms
 * of CPU, which the process also waits for at exit. The parser is no measurable share of a long read
 * (hundreds of pages parse as fast with the baseline code), so the budget is raised to 1G: a command
 * of a few dozen pages never pays for the compile, and a read of hundreds of pages still gets it.
 * The library sets no process-wide flag: only the CLI (main.ts) and `npm test`'s processes get this one.
 */
const FLAG = '--wasm-tiering-budget=1000000000';

/**
 * The flag, or undefined where it should not be set: a V8 not known to have it (V8 11 to 13 are Node
 * 20 to 24; to `node` an unknown flag is a fatal "bad option", to setFlagsFromString a line on
 * stderr), or a process given a budget of its own (`execArgv`), which stays the user's.
 */
export function wasmTieringBudgetFlag(execArgv: readonly string[] = process.execArgv): string | undefined {
  const major = Number(process.versions.v8.split('.')[0]);
  if (!(major >= 11 && major <= 13)) return undefined;
  if (execArgv.some((arg) => arg.startsWith('--wasm-tiering-budget'))) return undefined;
  return FLAG;
}

/**
 * Sets the flag through node:v8's public setFlagsFromString, before undici first loads (main.ts gives
 * this to load-undici.ts): the parser is compiled at undici's first connection, after it. node:v8 is
 * imported here, not at start: it loads Node's streams, which a command that sends nothing need not.
 */
export async function raiseWasmTieringBudget(): Promise<void> {
  const budget = wasmTieringBudgetFlag();
  if (budget === undefined) return;
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString(budget);
}
