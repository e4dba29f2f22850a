import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { COMMAND_GROUPS } from '../../help-layout.js';

/** `events` and `entities`: a catalogue list, as a table or with --json. */
function listCommand(program: Command, name: 'events' | 'entities', summary: string, description: string) {
  const group = name === 'events' ? COMMAND_GROUPS.webhooks : COMMAND_GROUPS.sync;
  return addJsonOption(program.command(name).helpGroup(group).summary(summary).description(description));
}

export type CatalogueCommandOptions = OptionsOf<typeof listCommand> & { list: 'events' | 'entities' };

export function defineCatalogue(program: Command, run: RunCommand): void {
  const load = () => import('./catalogue.js');
  listCommand(
    program,
    'events',
    'list the LIFECYCLE_EVENT names',
    'List every LIFECYCLE_EVENT name with what the service suggests telling the user, and a sample eventData.',
  )
    .addHelpText('after', examples('ledgerhook events', 'ledgerhook events --json'))
    .action((options) => run(load, { list: 'events', ...options }));
  listCommand(
    program,
    'entities',
    'list the entity names and list endpoints',
    "List every entity name with its recommended list endpoint, whether it was among the 14 names of the API's earlier list, and whether it is paginated.",
  )
    .addHelpText('after', examples('ledgerhook entities', 'ledgerhook entities --json'))
    .action((options) => run(load, { list: 'entities', ...options }));
}
