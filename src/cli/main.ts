/**
 * cli/: the command line, and the only folder that imports commander, chalk or ora or touches
 * process.* (env, argv, stdio, exit, signals). This file is the entry: commander parses the command
 * line and the chosen command runs in the session. A start builds only the command it names.
 *   session.ts, context.ts   one command run (the CliContext, the error line, the exit code)
 *   command-list.ts          every command's definition by name, in --help order (also the
 *                            in-process test runner's)
 *   commands/<name>/         definition.ts (flags, help, the options type; cheap, eager) and
 *                            <name>.ts (the run, loaded lazily) with its own helpers
 *   common-options.ts        flags several commands share; help-layout.ts: help that fits a screen
 *   json-output.ts           the one --json contract (docs/json.md); outcome.ts: what an error means
 *   error-advice.ts          details.reason → advice; exit-codes.ts: code → exit code
 *   std-output.ts            stdout/stderr built only when written to; progress.ts: ora or lines
 *   wasm-tiering.ts          V8's wasm tiering budget, raised before undici first loads
 *   telemetry-flag.ts        --otel: the only CLI path that loads @opentelemetry/api
 *   resolve-*.ts             settings, datasets and scale options from flags, env and config
 */
import { readFileSync } from 'node:fs';
import { Command } from '@commander-js/extra-typings';
import { defineCommands } from './command-list.js';
import { programHelp } from './help-layout.js';
import { examples } from './parsers.js';
import { secretFlagWarningsOnce } from './secret-flag-warnings.js';
import { finish, openSession, type Session } from './session.js';
import { writeStd } from './std-output.js';
import { raiseWasmTieringBudget } from './wasm-tiering.js';
import { beforeUndiciLoads } from '../http/load-undici.js';

const session = await openSession();
beforeUndiciLoads(raiseWasmTieringBudget);

function buildProgram(named: string | undefined, { run, red, parsed }: Session): Command {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  const program = new Command('ledgerhook')
    .description('Webhooks and incremental sync for the bookkeeping API. New here? Try `ledgerhook demo`.')
    .version(version, '-v, --version')
    .option('--debug', 'print stack traces for unexpected errors')
    .showSuggestionAfterError(true)
    .exitOverride() // subcommands created after this inherit it, and the output settings
    .configureOutput({
      writeOut: (text) => writeStd(1, text),
      writeErr: (text) => writeStd(2, text),
      // One line per error: commander puts its "(Did you mean …?)" suggestion on a second line.
      outputError: (text, write) => write(red(`${text.trimEnd().replace(/\n(?=\(Did you mean)/, ' ')}\n`)),
    })
    // Before the chosen command's action: whether --json was given (as parsed), and a line for each
    // credential typed as a flag, once per configuration (stderr: stdout stays the result).
    .hook('preAction', (_program, command) => {
      parsed(command.getOptionValue('json') === true);
      for (const line of secretFlagWarningsOnce(command)) writeStd(2, `${line}\n`);
    })
    .addHelpText(
      'after',
      `${examples(
        '# why a delivery fails verification, check by check',
        'ledgerhook verify body.json --token "$TOKEN" --secret-file sandbox.secret',
        '# send a signed sample to your app (then: ledgerhook check-receiver --to 3000)',
        'ledgerhook send-sample ENTITY_UPDATE --to 3000',
        '# sync a dataset into ./ledgerhook-data; later runs fetch only what changed',
        'ledgerhook sync expenses',
      )}
Exit codes: 0 ok, 1 a check failed, 2 usage or input error, 3 network or remote-service error,
4 the service refused the token, 70 internal error (a bug), 130 interrupted: docs/exit-codes.md.
--json prints one {"ok":...} document, or JSON Lines for what runs until stopped: docs/json.md.`,
    );
  programHelp.configure(program);
  // The command named first is the only one built (command-list.ts); anything else builds them all.
  defineCommands(program, run, named);
  programHelp.finish(program);
  return program;
}

function main(args: string[]): Promise<number> {
  // commander's help command knows one level; `help state reset` shows that subcommand's help.
  // `version` and `-V` say the version too, as in most CLIs.
  const argv =
    args[0] === 'help' && args.length > 2
      ? [...args.slice(1), '--help']
      : args.length === 1 && (args[0] === 'version' || args[0] === '-V')
        ? ['--version']
        : args;
  const program = buildProgram(argv[0], session);
  // No command: the help, as `--help` prints it (exit 0).
  return session.execute(async () =>
    argv.length === 0 ? program.outputHelp() : program.parseAsync(argv, { from: 'user' }),
  );
}

finish(await main(process.argv.slice(2)));
