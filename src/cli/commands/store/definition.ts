import type { Command, OptionValues } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { COMMAND_GROUPS } from '../../help-layout.js';

export function addStoreOption<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
  purpose: string,
) {
  return command.option(
    '--store <url>',
    `${purpose}: a postgres:// URL (default: LEDGERHOOK_STORE); add ?options=-c%20search_path%3DNAME for a schema of its own`,
  );
}

function migrateCommand(store: Command) {
  return addJsonOption(
    addStoreOption(
      store
        .command('migrate')
        .description('create or upgrade the tables; safe to run again and from several machines at once')
        .addHelpText(
          'after',
          examples(
            'ledgerhook store migrate --store postgres://app@db.internal:5432/app',
            'LEDGERHOOK_STORE=postgres://127.0.0.1:5432/test ledgerhook store migrate --json',
          ),
        ),
      'the database',
    ),
  );
}

export type StoreMigrateOptions = OptionsOf<typeof migrateCommand>;

export function defineStore(program: Command, run: RunCommand): void {
  const store = program
    .command('store')
    .helpGroup(COMMAND_GROUPS.scale)
    .summary('create the Postgres tables')
    .description(
      'The Postgres store of `sync --store` and `ledgerhook worker`. Its tables are also created on first use.',
    )
    .addHelpText('after', examples('ledgerhook store migrate --store postgres://127.0.0.1:5432/app'));
  migrateCommand(store).action((options) => run(() => import('./store.js'), options));
}
