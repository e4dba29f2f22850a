import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';

/** `events` and `entities`: a catalogue list, as a table or with --json. */
function listCommand(program: Command, name: 'events' | 'entities', summary: string, description: string) {
  return addJsonOption(program.command(name).summary(summary).description(description));
}

export type CatalogueCommandOptions = OptionsOf<typeof listCommand> & { list: 'events' | 'entities' };

export function defineCatalogue(program: Command, run: RunCommand): void {
  const load = () => import('./catalogue.js');
  listCommand(
    program,
    'events',
    'list the LIFECYCLE_EVENT names and what to tell the user',
    'List every LIFECYCLE_EVENT name of spec 6.2 with the suggested subscriber messaging and a sample eventData.',
  )
    .addHelpText('after', examples('ledgerhook events', 'ledgerhook events --json'))
    .action((options) => run(load, { list: 'events', ...options }));
  listCommand(
    program,
    'entities',
    'list the entity names and the list endpoint of each',
    'List every entity name of spec 4.2 with its recommended list endpoint, whether it was in the earlier 14-name list, and whether it is paginated.',
  )
    .addHelpText('after', examples('ledgerhook entities', 'ledgerhook entities --json'))
    .action((options) => run(load, { list: 'entities', ...options }));
}
