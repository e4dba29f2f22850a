import type { CliContext } from './context.js';
import { writeLine } from './context.js';

/**
 * How a long task shows it is alive, on stderr (stdout holds only results, so `| jq` and `> file` never
 * mix them): an ora spinner when stderr is a terminal, plain lines otherwise, nothing with --json.
 */
export interface ProgressView {
  update(text: string): void;
  /**
   * A line that stays (printed above the spinner on a terminal): on stderr, or on `stream` for a result
   * line that arrives while the spinner runs (check-consumer prints each case as it ends).
   */
  log(text: string, stream?: NodeJS.WritableStream): void;
  stop(): void;
}

export async function createProgressView(
  ctx: CliContext,
  options: { json?: boolean; plainEveryMs?: number } = {},
): Promise<ProgressView> {
  if (options.json) return { update() {}, log() {}, stop() {} };
  if (!ctx.stderr.isTTY) {
    // Plain lines, but not one per event: at most one every plainEveryMs, and none in the first one, so
    // that a quick task prints only its result.
    let last = Date.now();
    const every = options.plainEveryMs ?? 1000;
    return {
      update(text) {
        const now = Date.now();
        if (now - last >= every) {
          last = now;
          writeLine(ctx.stderr, text);
        }
      },
      log: (text, stream = ctx.stderr) => writeLine(stream, text),
      stop() {},
    };
  }
  const { default: ora } = await import('ora');
  const spinner = ora({ stream: ctx.stderr, discardStdin: false }).start();
  return {
    update(text) {
      spinner.text = text;
    },
    log(text, stream = ctx.stderr) {
      spinner.clear();
      writeLine(stream, text);
      spinner.render();
    },
    stop: () => spinner.stop(),
  };
}
