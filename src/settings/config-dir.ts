import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The OS config directory for ledgerhook, as conf would choose it (env-paths' rules). Computed
 * here so that the settings file's path is known even when the file cannot be read: every error
 * about it names the file.
 */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', 'ledgerhook');
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'ledgerhook', 'Config');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'ledgerhook');
}
