import type { ChalkInstance } from 'chalk';

/**
 * Everything a command may use from the outside world. Commands receive this instead of
 * touching `process` so that the same code can be driven by tests and by the entry point.
 */
export interface CliContext {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  /** Human output is plain lines (no spinners, no colour) when stdout is not a terminal. */
  isTTY: boolean;
  color: ChalkInstance;
  /** Aborted on SIGINT/SIGTERM; long-running commands stop cleanly on it. */
  signal: AbortSignal;
  debug: boolean;
}

/**
 * What chalk does at level 0, without loading chalk: every style, chained or not, gives back its text
 * (several arguments joined by a space, as chalk does). chalk probes the terminal when it loads, which
 * loads node:tty and node:net: a few milliseconds of every start that prints no colour.
 */
const PLAIN: ChalkInstance = new Proxy(
  Object.assign((...text: unknown[]) => text.join(' '), { level: 0 }),
  // Not a thenable: it is handed back through `await`.
  { get: (target, key) => (key in target || key === 'then' ? Reflect.get(target, key) : PLAIN) },
) as unknown as ChalkInstance;

/**
 * chalk for one stream: colour only on a terminal, never with NO_COLOR (no-color.org), always
 * with FORCE_COLOR. Loaded on demand, so that `--help` does not pay for it.
 */
export async function loadColor(
  stream: Pick<NodeJS.WriteStream, 'isTTY' | 'getColorDepth'>,
  env: NodeJS.ProcessEnv,
): Promise<ChalkInstance> {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return PLAIN;
  if (env.FORCE_COLOR === undefined && !stream.isTTY) return PLAIN;
  const { Chalk } = await import('chalk');
  if (env.FORCE_COLOR !== undefined) return new Chalk();
  const depth = stream.getColorDepth?.() ?? 4;
  return new Chalk({ level: depth >= 24 ? 3 : depth >= 8 ? 2 : 1 });
}

export function writeLine(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}

/** `--json`: the result document, printed once with `ok` when the command ends (json-output.ts). */
export { writeJson } from './json-output.js';
