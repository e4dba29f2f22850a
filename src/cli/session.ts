import { loadColor, type CliContext } from './context.js';
import { jsonOutcome } from './json-output.js';
import { outcomeOf } from './outcome.js';
import { EXIT } from './exit-codes.js';
import { flushHeldLines } from './batched-lines.js';
import { errnoSentence } from '../util/fs-errors.js';
import { isTerminal, stdStream, streamFailure, whenStreamBuilt, whenWriteFails, writeStd } from './std-output.js';
import type { RunCommand } from './runner.js';

/**
 * The frame of one command run: the context a command gets, the error line and the `--json` outcome,
 * the exit code. Nothing else calls process.exit.
 */
export interface Session {
  /** The RunCommand a definition's action calls: loads the command module and runs it with a context. */
  run: RunCommand;
  /** Runs the parse-and-act step; the exit code (an error becomes its line, its --json document and code). */
  execute(act: () => Promise<unknown>): Promise<number>;
  /** The parsed command line's own answer to whether --json was given (main.ts's preAction hook). */
  parsed(json: boolean): void;
  /** Red on a terminal's stderr (the error line; commander's usage errors in main.ts), else the text. */
  red(text: string): string;
}

const debug = process.argv.includes('--debug') || process.env.LEDGERHOOK_DEBUG === '1';

/**
 * `--json` promises one JSON document on stdout (or, for a long-running command, JSON Lines): the
 * command's result with `ok`, or `{"ok":false,"error":{code,reason,message,exitCode}}` with what it
 * had (json-output.ts). The usual error line still goes to stderr. Until the command line is parsed
 * (and when it cannot be) any `--json` before `--` counts; once parsed, the parse says (`--data --json`
 * gives --data the value "--json").
 */
let jsonRequested = (() => {
  const argv = process.argv.slice(2);
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
})();

/** The command's abort signal, made when a command first asks for it (Ctrl-C; stdout failing for good). */
let controller: AbortController | undefined;
/**
 * Ctrl-C (SIGINT) came: a command that then ends cleanly (listen, mock, inspect, worker, sync --watch
 * after their summary) still exits 130, as the exit-code table says. SIGTERM, what a service manager
 * sends, is a requested stop: exit 0.
 */
let interrupted = false;

function createContext(): Promise<CliContext> {
  return loadColor(
    {
      get isTTY() {
        return isTerminal(1);
      },
      getColorDepth: () => stdStream(1).getColorDepth(),
    },
    process.env,
  ).then((color) => ({
    env: process.env,
    // Built when a command first writes (std-output.ts).
    get stdout() {
      return stdStream(1);
    },
    get stderr() {
      return stdStream(2);
    },
    // process.stdin builds a stream on first access; only commands that read it pay for that.
    get stdin() {
      return process.stdin;
    },
    isTTY: isTerminal(1),
    color,
    debug,
    // Signal handlers are installed only when a command asks for the signal, so that short
    // commands keep Node's default Ctrl-C behaviour.
    get signal(): AbortSignal {
      if (!controller) {
        const ctl = new AbortController();
        controller = ctl;
        let firstAt = 0;
        const stop = (signal: NodeJS.Signals) => {
          if (!ctl.signal.aborted) {
            firstAt = Date.now();
            interrupted = signal === 'SIGINT';
            ctl.abort(new Error(`received ${signal}`));
            return;
          }
          // A second Ctrl-C forces the exit. One that comes at once is not a person's: conf's
          // atomically (through when-exit) re-raises the signal it intercepts, so it is ignored.
          if (Date.now() - firstAt > 500) {
            flushHeldLines();
            process.exit(EXIT.interrupted);
          }
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      }
      return controller.signal;
    },
  }));
}

/** Opens the session of this process: stdout's EPIPE handler and the colour of the error line. */
export async function openSession(): Promise<Session> {
  // Error lines are coloured only on a terminal; elsewhere chalk is not even loaded (nor the stream built).
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
  const stderrColor: { red: (text: string) => string } =
    !noColor && isTerminal(2) ? await loadColor(stdStream(2), process.env) : { red: (text) => text };
  // Output that cannot be written (`> /dev/full`, an I/O error) is said once, as a usage error: the
  // command's result is lost, and no JSON document can follow it.
  let outputFailed = false;
  const outputFailure = (fd: number, error: Error) => {
    if (fd !== 1 || outputFailed) return; // a failing stderr leaves nowhere to say anything
    outputFailed = true;
    writeStd(2, `${stderrColor.red('error:')} cannot write to stdout: ${errnoSentence(error)}\n`);
    process.exitCode = EXIT.usage;
    // A long-running command (listen, worker, mock, sync --watch) whose lines go nowhere stops, as at
    // Ctrl-C, rather than serving on unheard (review); a short one has no signal to stop.
    controller?.abort(new Error('stdout cannot be written'));
  };
  whenWriteFails(outputFailure);
  // `ledgerhook events | head` closes the pipe early: that is not an error worth a stack trace.
  whenStreamBuilt((fd, stream) => {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (fd === 1 && error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
      outputFailure(fd, error);
    });
  });
  /** The running command's context: its recorded JSON result is printed with the outcome. */
  let current: CliContext | undefined;

  function reportError(thrown: unknown): number {
    flushHeldLines(); // the delivery lines a listener printed come before its error, not after
    // A file stdout throws its write error to the writing command as well as emitting it.
    const failed = streamFailure(1);
    if (failed || outputFailed) {
      outputFailure(1, failed ?? (thrown as Error));
      return EXIT.usage;
    }
    const outcome = outcomeOf(thrown, debug);
    // The human line first (stderr), then the --json document with what the command had (stdout).
    if (outcome.line) writeStd(2, `${stderrColor.red(outcome.line.label)} ${outcome.line.text}\n`);
    if (debug && outcome.stack && outcome.line) writeStd(2, `${outcome.stack}\n`);
    if (jsonRequested && outcome.json) {
      const text = jsonOutcome(current, outcome.json);
      if (text) writeStd(1, text);
    }
    return outcome.exitCode;
  }

  return {
    red: stderrColor.red,
    parsed(json) {
      jsonRequested = json;
    },
    async run(load, options) {
      const module = await load();
      const ctx = await createContext();
      current = ctx;
      await module.run(options, ctx);
      const text = jsonRequested ? jsonOutcome(ctx) : undefined;
      if (text) writeStd(1, text);
    },
    async execute(act) {
      // Node ends a process whose event loop is empty even while a command still awaits (seen: a request
      // timing out through an unref'd AbortSignal.timeout as undici let go of its socket, exit 0 and no
      // output). A command in progress therefore always holds the process; the hold ends with it.
      const hold = setInterval(() => {}, 1 << 30);
      try {
        await act();
        const code = typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
        return code === EXIT.ok && interrupted ? EXIT.interrupted : code;
      } catch (error) {
        return reportError(error);
      } finally {
        clearInterval(hold);
      }
    },
  };
}

/** Ends the process with `code` once the command has finished. */
export function finish(code: number): void {
  process.exitCode = code;
  // A command that has finished must not be kept alive by a forgotten keep-alive socket or timer.
  setTimeout(() => process.exit(code), 2000).unref();
}
