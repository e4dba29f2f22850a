import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { isLedgerhookError } from '../errors.js';
import { loadColor, writeLine, type CliContext } from './context.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import type { RunCommand } from './runner.js';
import { defineCatalogue } from './definitions/catalogue.js';
import { defineCheckReceiver } from './definitions/check-receiver.js';
import { defineConfig } from './definitions/config.js';
import { defineDemo } from './definitions/demo.js';
import { defineListen } from './definitions/listen.js';
import { defineMock } from './definitions/mock.js';
import { defineReplay } from './definitions/replay.js';
import { defineSendSample } from './definitions/send-sample.js';
import { defineState, defineSync } from './definitions/sync.js';
import { defineSign } from './definitions/sign.js';
import { defineVerify } from './definitions/verify.js';

/**
 * The CLI entry: builds the commander program from the command definitions (cheap, no heavy
 * imports), runs the chosen command, and decides the exit code. Nothing else calls process.exit.
 */

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const debug = process.argv.includes('--debug') || process.env.LEDGERHOOK_DEBUG === '1';
// Error lines are coloured only on a terminal; elsewhere chalk is not even loaded.
const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
const stderrColor: { red: (text: string) => string } = process.stderr.isTTY && !noColor ? await loadColor(process.stderr, process.env) : { red: (text) => text };

async function createContext(): Promise<CliContext> {
  let controller: AbortController | undefined;
  return {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    // process.stdin builds a stream on first access; only commands that read it pay for that.
    get stdin() {
      return process.stdin;
    },
    isTTY: Boolean(process.stdout.isTTY),
    color: await loadColor(process.stdout, process.env),
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
          if (Date.now() - firstAt > 500) process.exit(EXIT.interrupted);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      }
      return controller.signal;
    },
  };
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
    return EXIT.usage; // commander has already printed its one-line message
  }
  if (isLedgerhookError(error)) {
    writeLine(process.stderr, `${stderrColor.red('error:')} ${error.message}`);
    if (debug && error.stack) writeLine(process.stderr, error.stack);
    return exitCodeFor(error.code);
  }
  const message = error instanceof Error ? error.message : String(error);
  writeLine(process.stderr, `${stderrColor.red('internal error:')} ${message}. This is a bug in ledgerhook; please report it${debug ? '' : ' (run again with --debug for the stack)'}.`);
  if (debug && error instanceof Error && error.stack) writeLine(process.stderr, error.stack);
  return EXIT.internal;
}

const run: RunCommand = async (load, options) => {
  const module = await load();
  await module.run(options, await createContext());
};

function buildProgram(): Command {
  const program = new Command('ledgerhook')
    .description('Webhooks and incremental sync for the bookkeeping API: sign, verify, send samples, listen, replay, emulate the service locally, and sync datasets into local JSON.')
    .version(packageJson.version, '-V, --version')
    .option('--debug', 'print stack traces for unexpected errors')
    .showSuggestionAfterError(true)
    .exitOverride() // subcommands created after this inherit it, and the output settings
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
      // One line per error: commander puts its "(Did you mean …?)" suggestion on a second line.
      outputError: (text, write) => write(stderrColor.red(`${text.trimEnd().replace(/\n(?=\(Did you mean)/, ' ')}\n`)),
    })
    .addHelpText('after', `
Exit codes: 0 ok, 1 a check failed, 2 usage or input error, 3 network or remote-service error.
Run "ledgerhook <command> --help" for a command's options and examples.`);
  defineDemo(program, run);
  defineSign(program, run);
  defineVerify(program, run);
  defineSendSample(program, run);
  defineCheckReceiver(program, run);
  defineListen(program, run);
  defineReplay(program, run);
  defineMock(program, run);
  defineSync(program, run);
  defineState(program, run);
  defineCatalogue(program, run);
  defineConfig(program, run);
  return program;
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    return reportError(error);
  }
}

// `ledgerhook events | head` closes the pipe early: that is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.ok);
  throw error;
});

const code = await main(process.argv.slice(2));
process.exitCode = code;
// A command that has finished must not be kept alive by a forgotten keep-alive socket or timer.
setTimeout(() => process.exit(code), 2000).unref();
