import type { Command } from 'commander';
import { ENVIRONMENTS, SETTING_KEYS } from '../../settings/environments.js';
import type { RunCommand } from '../runner.js';
import { examples } from '../parsers.js';
import { addJsonOption } from './common-options.js';

export interface ConfigCommandOptions {
  action: 'get' | 'set' | 'unset' | 'list' | 'path';
  key?: string;
  value?: string;
  env?: string;
  json?: boolean;
}

const KEYS_HELP = Object.entries(SETTING_KEYS).map(([key, { describe }]) => `  ${key.padEnd(14)}${describe}`).join('\n');

export function defineConfig(program: Command, run: RunCommand): void {
  const config = program
    .command('config')
    .summary('read and change stored settings per environment')
    .description(`Stored settings, per environment (${ENVIRONMENTS.join(', ')}). Keys:\n${KEYS_HELP}\nSecrets and tokens are masked in every output. Flags beat environment variables, which beat these settings.\nThe file lives in the OS config directory, or in LEDGERHOOK_CONFIG_DIR; it is created mode 0600.`)
    .addHelpText('after', examples(
      `ledgerhook config set baseUrl https://sandbox.example.com/rest/v5`,
      `ledgerhook config set webhookSecret - --env production < production.secret`,
      `ledgerhook config list --json`,
    ));
  const load = () => import('../commands/config.js');
  const envOption = (command: Command) => command.option('--env <name>', `environment: ${ENVIRONMENTS.join(' or ')} (default: LEDGERHOOK_ENV or sandbox)`);
  envOption(config.command('get').description('print one setting (secrets masked)').argument('<key>'))
    .action((key: string, options: { env?: string }) => run(load, { action: 'get', key, ...options }));
  envOption(config.command('set').description('store a setting; give - as the value to read it from stdin (keeps secrets out of shell history)').argument('<key>').argument('<value>'))
    .action((key: string, value: string, options: { env?: string }) => run(load, { action: 'set', key, value, ...options }));
  envOption(config.command('unset').description('remove a setting').argument('<key>'))
    .action((key: string, options: { env?: string }) => run(load, { action: 'unset', key, ...options }));
  addJsonOption(config.command('list').description('print every stored setting of every environment (secrets masked)'))
    .action((options: { json?: boolean }) => run(load, { action: 'list', ...options }));
  config.command('path').description('print where the settings file lives').action(() => run(load, { action: 'path' }));
}
