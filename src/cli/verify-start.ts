import type { Command as CommanderCommand } from '@commander-js/extra-typings';
import { Command } from './commander-lite.js';
import { defineVerify } from './commands/verify/definition.js';
import { secretFlagWarnings } from './secret-flag-warnings.js';
import { finish, openSession, type Session } from './session.js';
import { writeStd } from './std-output.js';

/**
 * The start of `ledgerhook verify` with a plain command line (issue 23: a cold `verify` within reach of
 * `node -e 0`): bin/ledgerhook.js imports this file, bundled alone (scripts/bundle-cli.mjs), instead of
 * main.ts. verify's own definition is run against commander-lite.ts, which parses what it can parse
 * exactly as commander would; the command then runs in the same session as main.ts's (session.ts).
 * Anything else (help, a mistake, a global flag) answers false before any side effect, and the bin loads
 * main.ts, whose commander says it in its own words.
 */
export async function startVerify(args: readonly string[]): Promise<boolean> {
  let session: Session | undefined;
  const program = new Command('ledgerhook');
  // The definition is typed against commander's Command; it uses only what commander-lite.ts copies
  // (and anything else throws here, before a side effect: the usual start then runs).
  const run: Session['run'] = (load, options) => (session as Session).run(load, options);
  try {
    defineVerify(program as unknown as CommanderCommand, run);
  } catch {
    return false;
  }
  const plain = program.parsePlain(args);
  if (!plain) return false;
  session = await openSession();
  const code = await session.execute(async () => {
    // As main.ts's preAction hook: a credential typed as a flag is said before the command runs.
    for (const line of secretFlagWarnings(plain.command as unknown as CommanderCommand)) writeStd(2, `${line}\n`);
    await plain.act();
  });
  finish(code);
  return true;
}
