import { readFileSync } from 'node:fs';
import type { Command, CommandUnknownOpts } from '@commander-js/extra-typings';
import { plainCommand } from './plain-command.js';
import { EXIT } from './exit-codes.js';
import { secretFlagWarningsOnce } from './secret-flag-warnings.js';
import { writeStd } from './std-output.js';
import { defineCommands } from './command-list.js';
import { finish, openSession, type Session } from './session.js';

/**
 * The CLI entry: runs the chosen command in the session (session.ts: context, error line, exit code).
 * A plain command line is parsed by the named command's own definition run against commander-lite.ts;
 * anything else (help, a mistake, a global flag) builds the commander
 * program from the command definitions, loading commander only then (its own chunk). Both print the
 * same (test/unit/commander-lite.test.ts, test/e2e/plain-start.test.ts).
 */

const session = await openSession();

/**
 * Before the chosen command's action, whichever parser chose it: whether --json was given (as parsed),
 * and a line for each credential typed as a flag, once per configuration (stderr: stdout stays the result).
 */
function beforeAction(command: CommandUnknownOpts): void {
  session.parsed(command.getOptionValue('json') === true);
  for (const line of secretFlagWarningsOnce(command)) writeStd(2, `${line}\n`);
}

async function buildProgram(named: string | undefined, { run, red }: Session): Promise<Command> {
  const { Command } = await import('@commander-js/extra-typings');
  // Read only here: a plain command line never asks for the version.
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  const program = new Command('ledgerhook')
    .description(
      'Webhooks and incremental sync for the bookkeeping API: sign, verify, send samples, listen, replay, emulate the service locally, and sync datasets into local JSON.',
    )
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
    .hook('preAction', (_program, command) => beforeAction(command))
    .addHelpText(
      'after',
      `
Exit codes: 0 ok, 1 a check failed, 2 usage or input error, 3 network or remote-service error,
            4 the service refused the token (401/403), 70 internal error (a bug: please report it),
            130 interrupted (Ctrl-C); see docs/exit-codes.md.
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
  if (argv.length === 0) {
    (await buildProgram(undefined, session)).outputHelp();
    return EXIT.ok;
  }
  const plain = plainCommand(argv, session.run, process.env);
  if (plain)
    return session.execute(async () => {
      beforeAction(plain.command as unknown as CommandUnknownOpts);
      await plain.act();
    });
  // The command named first is the only one built (command-list.ts); anything else builds them all.
  const program = await buildProgram(argv[0], session);
  return session.execute(() => program.parseAsync(argv, { from: 'user' }));
}

finish(await main(process.argv.slice(2)));
