import type { Command, OptionValues } from '@commander-js/extra-typings';
import { ENVIRONMENTS, SETTING_KEYS } from '../../../settings/environments.js';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { COMMAND_GROUPS, helpTable } from '../../help-layout.js';

const SECRET_KEYS = Object.entries(SETTING_KEYS)
  .filter(([, { secret }]) => secret)
  .map(([key]) => key);

const KEYS = [
  ...Object.entries(SETTING_KEYS).map(([key, { describe }]) => [key, describe] as const),
  [
    'paths.ENTITY',
    "where the service serves one entity's list, when it differs from the usual path, e.g. paths.expense /expenses/expenses",
  ] as const,
];

function addEnvOption<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return command.option(
    '--env <name>',
    `environment: ${ENVIRONMENTS.join(' or ')} (default: LEDGERHOOK_ENV or sandbox)`,
  );
}

function getCommand(config: Command) {
  return addEnvOption(
    config
      .command('get')
      .description('print one setting (secrets masked)')
      .argument('<key>')
      .addHelpText(
        'after',
        examples('ledgerhook config get baseUrl', 'ledgerhook config get webhookSecret --env production'),
      ),
  );
}

function setCommand(config: Command) {
  return addEnvOption(
    config
      .command('set')
      .summary('store a setting (a secret: asked with hidden input, or - for stdin)')
      .description(
        `store a setting. For a secret (${SECRET_KEYS.join(', ')}) give no value on a terminal to be asked with hidden input, or - to read it from stdin; a secret typed as an argument lands in the shell history (a warning says so). headerName must be a valid HTTP header name; tokensFile must exist and is stored as an absolute path`,
      )
      .argument('<key>', 'the setting (`ledgerhook config --help` lists them)')
      .argument('[value]', 'the value; - reads stdin; omit it for a hidden prompt (secrets, on a terminal)')
      .addHelpText(
        'after',
        examples(
          'ledgerhook config set webhookSecret   # asks, input hidden',
          'ledgerhook config set webhookSecret - --env production < production.secret',
          'ledgerhook config set headerName Acme-Verification',
          'ledgerhook config set tokensFile ./tokens.json',
        ),
      ),
  );
}

function unsetCommand(config: Command) {
  return addEnvOption(
    config
      .command('unset')
      .description('remove a setting')
      .argument('<key>')
      .addHelpText('after', examples('ledgerhook config unset token --env production')),
  );
}

function listCommand(config: Command) {
  return addJsonOption(
    config
      .command('list')
      .description('print every stored setting of every environment (secrets masked)')
      .addHelpText('after', examples('ledgerhook config list', 'ledgerhook config list --json')),
  );
}

export type ConfigCommandOptions =
  | (OptionsOf<typeof getCommand> & { action: 'get'; key: string })
  | (OptionsOf<typeof setCommand> & { action: 'set'; key: string; value: string | undefined })
  | (OptionsOf<typeof unsetCommand> & { action: 'unset'; key: string })
  | (OptionsOf<typeof listCommand> & { action: 'list' })
  | { action: 'path' };

export function defineConfig(program: Command, run: RunCommand): void {
  const config = program
    .command('config')
    .helpGroup(COMMAND_GROUPS.setup)
    .summary('read and change stored settings')
    .description(
      `Stored settings per environment (${ENVIRONMENTS.join(', ')}), in the OS config directory or LEDGERHOOK_CONFIG_DIR (mode 0600). Secrets and tokens are masked in every output; flags and environment variables beat these settings.`,
    )
    .addHelpText('after', helpTable('Keys:', KEYS))
    .addHelpText(
      'after',
      examples(
        `ledgerhook config set baseUrl https://sandbox.example.com/rest/v5`,
        `ledgerhook config set webhookSecret   # asks on the terminal, input hidden`,
        `ledgerhook config set webhookSecret - --env production < production.secret`,
        `ledgerhook config set paths.expense /expenses/expenses   # the service serves expenses there`,
        `ledgerhook config list --json`,
      ),
    );
  const load = () => import('./config.js');
  getCommand(config).action((key, options) => run(load, { action: 'get', key, ...options }));
  setCommand(config).action((key, value, options) => run(load, { action: 'set', key, value, ...options }));
  unsetCommand(config).action((key, options) => run(load, { action: 'unset', key, ...options }));
  listCommand(config).action((options) => run(load, { action: 'list', ...options }));
  config
    .command('path')
    .description('print where the settings file lives')
    .addHelpText('after', examples('ledgerhook config path'))
    .action(() => run(load, { action: 'path' }));
}
