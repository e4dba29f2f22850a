import type { Command } from '@commander-js/extra-typings';
import { COMMANDS, defineCommands } from './command-list.js';
import { Command as LiteCommand, type PlainCommand } from './commander-lite.js';
import type { RunCommand } from './runner.js';

/**
 * The named command's plain command line, parsed without loading commander (commander-lite.ts), or
 * undefined: commander parses it (main.ts). Only the named command is defined, as main.ts's program
 * defines only it. LEDGERHOOK_PLAIN_START=0 sends every command line to commander (the tests compare
 * the two to the byte).
 */
export function plainCommand(
  argv: readonly string[],
  run: RunCommand,
  env: NodeJS.ProcessEnv,
): PlainCommand | undefined {
  if (env.LEDGERHOOK_PLAIN_START === '0') return undefined;
  return plainProgram(argv[0], run)?.parsePlain(argv);
}

/** The stand-in program with the named command defined, or undefined when that command is commander's. */
export function plainProgram(named: string | undefined, run: RunCommand): LiteCommand | undefined {
  // completion reads the whole tree (commander's); a name that is no command is commander's to explain.
  if (named === undefined || named === 'completion' || !COMMANDS.some(([names]) => names.includes(named)))
    return undefined;
  const program = new LiteCommand('ledgerhook');
  try {
    // The definitions are typed against commander's Command and use only what commander-lite.ts copies;
    // one that uses more throws here, before any side effect, and goes to commander.
    defineCommands(program as unknown as Command, run, named);
  } catch {
    return undefined;
  }
  return program;
}
