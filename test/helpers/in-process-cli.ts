import { Readable, Writable } from 'node:stream';
import { Command } from '@commander-js/extra-typings';
import { loadColor, type CliContext } from '../../src/cli/context.js';
import { defineCommands } from '../../src/cli/command-list.js';
import { programHelp } from '../../src/cli/help-layout.js';
import { jsonOutcome } from '../../src/cli/json-output.js';
import { outcomeOf } from '../../src/cli/outcome.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { secretFlagWarningsOnce } from '../../src/cli/secret-flag-warnings.js';
import type { RunCommand } from '../../src/cli/runner.js';
import { type CliResult, tempDir } from './cli.js';
import { followOutput } from './output-follower.js';

/**
 * The commander program as src/cli/main.ts builds it, from the same definitions and in the same
 * order. help-and-validation.test.ts compares its command list with the spawned `ledgerhook --help`,
 * so a command added to main.ts but not here fails a test.
 */
export function programFromDefinitions(
  run: RunCommand,
  write: { out: (text: string) => void; err: (text: string) => void },
  env?: NodeJS.ProcessEnv,
) {
  const program = new Command('ledgerhook')
    .option('--debug', 'print stack traces for unexpected errors')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: write.out,
      writeErr: write.err,
      outputError: (text, emit) => emit(`${text.trimEnd().replace(/\n(?=\(Did you mean)/, ' ')}\n`),
    })
    // main.ts's hook: a line for each credential typed as a flag, once per configuration directory.
    .hook('preAction', (_program, command) => {
      if (env) for (const line of secretFlagWarningsOnce(command, env)) write.err(`${line}\n`);
    });
  programHelp.configure(program);
  defineCommands(program, run);
  programHelp.finish(program);
  return program;
}

function collector(onWrite?: (text: string) => void): { stream: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      onWrite?.(String(chunk));
      done();
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

/**
 * Runs a short command in this process through the real definitions and command modules, and maps
 * errors to exit codes and the one stderr line as main.ts does. For tables of input checks; each
 * user-facing behaviour keeps at least one spawned end-to-end test (runCli).
 */
export async function runInProcess(
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    input?: string | Buffer;
    /** What Ctrl-C aborts in main.ts (startInProcess). */
    signal?: AbortSignal;
    /** Each chunk written, as it is written (startInProcess). */
    onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  } = {},
): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', HOME: process.env.HOME, PATH: process.env.PATH };
  for (const [key, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[key] = value;
  env.LEDGERHOOK_CONFIG_DIR ??= tempDir('ledgerhook-config-');
  const stdout = collector((text) => options.onOutput?.('stdout', text));
  const stderr = collector((text) => options.onOutput?.('stderr', text));
  const ctx: CliContext = {
    env,
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin: Readable.from([options.input ?? '']) as unknown as NodeJS.ReadStream,
    isTTY: false,
    color: await loadColor(stdout.stream, env),
    signal: options.signal ?? new AbortController().signal,
    debug: false,
  };
  // The --json contract as main.ts prints it (json-output.ts): the result with ok, or the error with what there was.
  const json = args.slice(0, args.includes('--') ? args.indexOf('--') : undefined).includes('--json');
  let ran = false;
  const run: RunCommand = async (load, commandOptions) => {
    const module = await load();
    ran = true;
    await module.run(commandOptions, ctx);
    const text = json ? jsonOutcome(ctx) : undefined;
    if (text) stdout.stream.write(text);
  };
  const program = programFromDefinitions(
    run,
    {
      out: (text) => stdout.stream.write(text),
      err: (text) => stderr.stream.write(text),
    },
    env,
  );
  let code: number;
  try {
    await program.parseAsync(args, { from: 'user' });
    code = EXIT.ok;
  } catch (error) {
    // The entry point's own decision (outcome.ts); a bug is thrown here so that the test shows it.
    const outcome = outcomeOf(error, false);
    if (outcome.exitCode === EXIT.internal) throw error;
    code = outcome.exitCode;
    if (outcome.line) stderr.stream.write(`${outcome.line.label} ${outcome.line.text}\n`);
    if (json && outcome.json) stdout.stream.write(jsonOutcome(ran ? ctx : undefined, outcome.json) ?? '');
  }
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
}

export interface RunningInProcess {
  /** Every stdout line so far. */
  lines: string[];
  stderr(): string;
  /** Resolves with the first stdout line (parsed as JSON when it is) that satisfies the predicate. */
  waitFor<T = any>(predicate: (value: any) => boolean, timeoutMs?: number): Promise<T>;
  /** Resolves once stderr matches; rejects when the command ended first or on timeout. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Aborts the command's signal, as Ctrl-C does in main.ts, and resolves with what it printed and its code. */
  stop(): Promise<CliResult>;
}

/**
 * A long-running command (listen, mock) in this process, followed line by line as startCli follows
 * a spawned one. For what the command does while it runs; what only a process shows (the exit code of
 * a signal, the bin's start-up) stays with startCli.
 */
export function startInProcess(
  args: string[],
  options: { env?: Record<string, string | undefined> } = {},
): RunningInProcess {
  const controller = new AbortController();
  let ended: { error?: unknown } | undefined;
  const follower = followOutput((what, output) =>
    ended ? new Error(`the command ended before ${what}; ${output}`, { cause: ended.error }) : undefined,
  );
  const done = runInProcess(args, {
    ...options,
    signal: controller.signal,
    onOutput: (stream, text) => (stream === 'stderr' ? follower.stderrText(text) : follower.stdout(text)),
  });
  done.then(
    () => {
      ended = {};
      follower.wake();
    },
    (error: unknown) => {
      ended = { error };
      follower.wake();
    },
  );
  return {
    lines: follower.lines,
    stderr: follower.stderr,
    waitFor: follower.waitFor,
    waitForStderr: follower.waitForStderr,
    stop() {
      if (!controller.signal.aborted) controller.abort(new Error('received SIGINT'));
      return done;
    },
  };
}
