import type { Command } from 'commander';
import type { RunCommand } from '../../runner.js';
import { examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';

export interface CatalogueCommandOptions {
  list: 'events' | 'entities';
  json?: boolean;
}

export function defineCatalogue(program: Command, run: RunCommand): void {
  const load = () => import('./catalogue.js');
  addJsonOption(
    program
      .command('events')
      .summary('list the LIFECYCLE_EVENT names and what to tell the user')
      .description(
        'List every LIFECYCLE_EVENT name of spec 6.2 with the suggested subscriber messaging and a sample eventData.',
      ),
  )
    .addHelpText('after', examples('ledgerhook events', 'ledgerhook events --json'))
    .action((options: { json?: boolean }) => run(load, { list: 'events', ...options }));
  addJsonOption(
    program
      .command('entities')
      .summary('list the entity names and the list endpoint of each')
      .description(
        'List every entity name of spec 4.2 with its recommended list endpoint, whether it was in the earlier 14-name list, and whether it is paginated.',
      ),
  )
    .addHelpText('after', examples('ledgerhook entities', 'ledgerhook entities --json'))
    .action((options: { json?: boolean }) => run(load, { list: 'entities', ...options }));
}
