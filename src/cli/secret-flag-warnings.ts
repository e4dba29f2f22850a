import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { DEFAULT_MOCK_TOKEN } from '../defaults.js';
import { firstTimeFor } from '../settings/notices.js';
import { configDirOf } from './local-environment.js';

/**
 * Flags whose value is a credential. A value typed on the command line stays in the shell history
 * and, for as long as the process runs (a listener or worker runs for days), in every `ps` listing
 * of the machine. Each use gets one warning line naming the safer forms.
 *
 * `verify --token` is not here: it is the signed header value, not a credential. `mock --token` is
 * the made-up token the emulator accepts, and so is the mock's published default wherever it is given.
 */
const SECRET_FLAGS: readonly { option: string; flag: string; instead: string; except?: readonly string[] }[] = [
  {
    option: 'secret',
    flag: '--secret',
    instead: '--secret-file FILE, LEDGERHOOK_WEBHOOK_SECRET, or `ledgerhook config set webhookSecret -`',
  },
  {
    option: 'token',
    flag: '--token',
    instead: '--token-file FILE, LEDGERHOOK_TOKEN, or `ledgerhook config set token -`',
    except: ['verify', 'mock'],
  },
];

/** The credential flags given on the command line of `command`, each with its warning line. */
function flagWarnings(command: CommandUnknownOpts): Array<{ flag: string; line: string }> {
  const found: Array<{ flag: string; line: string }> = [];
  for (const { option, flag, instead, except } of SECRET_FLAGS) {
    if (except?.includes(command.name())) continue;
    if (command.getOptionValueSource(option) !== 'cli') continue;
    if (option === 'token' && command.getOptionValue(option) === DEFAULT_MOCK_TOKEN) continue;
    found.push({
      flag,
      line: `warning: ${flag} puts the value in your shell history and, while ledgerhook ${command.name()} runs, in the process list (ps); use ${instead}`,
    });
  }
  return found;
}

/** The warning lines for the credential flags given on the command line of `command`. */
export function secretFlagWarnings(command: CommandUnknownOpts): string[] {
  return flagWarnings(command).map(({ line }) => line);
}

/**
 * The lines to print now: each flag's warning once per configuration directory (notices.ts), so that
 * a script run every minute is told once, not on every run.
 */
export function secretFlagWarningsOnce(command: CommandUnknownOpts, env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = configDirOf(env);
  return flagWarnings(command)
    .filter(({ flag }) => firstTimeFor(dir, `flag-warning:${flag}`))
    .map(({ line }) => line);
}
