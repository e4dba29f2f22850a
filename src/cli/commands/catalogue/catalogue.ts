import { ENTITIES } from '@ledgerhook/webhooks';
import { EVENTS } from '@ledgerhook/webhooks';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import type { CatalogueCommandOptions } from './definition.js';
import { table } from '../../table.js';

export async function run(options: CatalogueCommandOptions, ctx: CliContext): Promise<void> {
  const c = ctx.color;
  if (options.list === 'events') {
    if (options.json) return writeJson(ctx, { events: EVENTS });
    writeLine(
      ctx.stdout,
      table(
        ['event', 'suggested use', 'sample eventData'],
        EVENTS.map((e) => [
          e.name,
          e.notifiesUser ? e.suggestedUse : c.dim(e.suggestedUse),
          c.dim(Object.keys(e.sampleEventData).join(', ')),
        ]),
        c.bold,
      ),
    );
    writeLine(
      ctx.stdout,
      c.dim(`${EVENTS.length} events (spec 6.2; a partial list, others can be arranged with the API team)`),
    );
    return;
  }
  if (options.json) return writeJson(ctx, { entities: ENTITIES });
  writeLine(
    ctx.stdout,
    table(
      ['entity', 'list endpoint', 'earlier list', 'paginated'],
      ENTITIES.map((e) => [
        e.name,
        `GET ${e.path}`,
        e.inEarlierList ? 'yes' : c.dim('no'),
        e.paginated ? 'yes' : c.yellow('no'),
      ]),
      c.bold,
    ),
  );
  writeLine(
    ctx.stdout,
    c.dim(
      `${ENTITIES.length} entities (spec 4.2); ${ENTITIES.filter((e) => e.inEarlierList).length} were in the earlier list`,
    ),
  );
}
