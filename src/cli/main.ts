import { readFileSync } from 'node:fs';
import { Command } from '@commander-js/extra-typings';
import { loadColor, type CliContext } from './context.js';
import { jsonOutcome } from './json-output.js';
import { outcomeOf } from './outcome.js';
import { EXIT } from './exit-codes.js';
import { flushHeldLines } from './batched-lines.js';
import { secretFlagWarnings } from './secret-flag-warnings.js';
import { isTerminal, stdStream, whenStreamBuilt, writeStd } from './std-output.js';
import type { RunCommand } from './runner.js';
import { defineCommands } from './command-list.js';

/**
 * The CLI entry: builds the commander program from the command definitions (cheap, no heavy
 * imports), runs the chosen command, and decides the exit code. Nothing else calls process.exit.
 */

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
// `ledgerhook events | head` closes the pipe early: that is not an error worth a stack trace.
whenStreamBuilt((fd, stream) => {
  if (fd === 1)
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
      throw error;
    });
});

const debug = process.argv.includes('--debug') || process.env.LEDGERHOOK_DEBUG === '1';
// Error lines are coloured only on a terminal; elsewhere chalk is not even loaded (nor the stream built).
const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
const stderrColor: { red: (text: string) => string } =
  !noColor && isTerminal(2) ? await loadColor(stdStream(2), process.env) : { red: (text) => text };

async function createContext(): Promise<CliContext> {
  let controller: AbortController | undefined;
  return {
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
    color: await loadColor(
      {
        get isTTY() {
          return isTerminal(1);
        },
        getColorDepth: () => stdStream(1).getColorDepth(),
      },
      process.env,
    ),
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
  };
}

/**
 * `--json` promises one JSON document on stdout (or, for a long-running command, JSON Lines): the
 * command's result with `ok`, or `{"ok":false,"error":{code,reason,message,exitCode}}` with what it
 * had (json-output.ts). The usual error line still goes to stderr.
 */
const jsonRequested = (() => {
  const argv = process.argv.slice(2);
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
})();
/** The running command's context: its recorded JSON result is printed with the outcome. */
let current: CliContext | undefined;

function reportError(thrown: unknown): number {
  flushHeldLines(); // the delivery lines a listener printed come before its error, not after
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

const run: RunCommand = async (load, options) => {
  const module = await load();
  const ctx = await createContext();
  current = ctx;
  await module.run(options, ctx);
  const text = jsonRequested ? jsonOutcome(ctx) : undefined;
  if (text) writeStd(1, text);
};

function buildProgram(named: string | undefined): Command {
  const program = new Command('ledgerhook')
    .description(
      'Webhooks and incremental sync for the bookkeeping API: sign, verify, send samples, listen, replay, emulate the service locally, and sync datasets into local JSON.',
    )
    .version(packageJson.version, '-v, --version')
    .option('--debug', 'print stack traces for unexpected errors')
    .showSuggestionAfterError(true)
    .exitOverride() // subcommands created after this inherit it, and the output settings
    .configureOutput({
      writeOut: (text) => writeStd(1, text),
      writeErr: (text) => writeStd(2, text),
      // One line per error: commander puts its "(Did you mean …?)" suggestion on a second line.
      outputError: (text, write) => write(stderrColor.red(`${text.trimEnd().replace(/\n(?=\(Did you mean)/, ' ')}\n`)),
    })
    // A credential typed as a flag is said before the command runs (stderr: stdout stays the result).
    .hook('preAction', (_program, command) => {
      for (const line of secretFlagWarnings(command)) writeStd(2, `${line}\n`);
    })
    .addHelpText(
      'after',
      `
Exit codes: 0 ok, 1 a check failed, 2 usage or input error, 3 network or remote-service error,
            70 internal error (a bug: please report it), 130 interrupted (Ctrl-C).
With --json, stdout holds one document: {"ok":true,...} or {"ok":false,"error":{"code","reason","message","exitCode"},...}
(listen, worker, mock, inspect and sync --watch: JSON Lines, each with "kind" and "time"; see docs/json.md).
Run "ledgerhook <command> --help" (or "ledgerhook help <command> [<subcommand>]") for options and examples.`,
    );
  defineCommands(program, run, named);
  return program;
}

async function main(args: string[]): Promise<number> {
  // commander's help command knows one level; `help state reset` shows that subcommand's help.
  // `version` and `-V` say the version too, as in most CLIs.
  const argv =
    args[0] === 'help' && args.length > 2
      ? [...args.slice(1), '--help']
      : args.length === 1 && (args[0] === 'version' || args[0] === '-V')
        ? ['--version']
        : args;
  // The command named first is the only one built (command-list.ts); anything else builds them all.
  const program = buildProgram(argv[0]);
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  // Node ends a process whose event loop is empty even while a command still awaits (seen: a request
  // timing out through an unref'd AbortSignal.timeout as undici let go of its socket, exit 0 and no
  // output). A command in progress therefore always holds the process; the hold ends with it.
  const hold = setInterval(() => {}, 1 << 30);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    return reportError(error);
  } finally {
    clearInterval(hold);
  }
}

const code = await main(process.argv.slice(2));
process.exitCode = code;
// A command that has finished must not be kept alive by a forgotten keep-alive socket or timer.
setTimeout(() => process.exit(code), 2000).unref();
