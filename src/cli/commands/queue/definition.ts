import type { Command, OptionValues } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples } from '../../parsers.js';
import { addJsonOption } from '../../common-options.js';
import { COMMAND_GROUPS } from '../../help-layout.js';

/** Where the jobs are: what resolveQueue reads of listen --queue, worker and queue status. */
export interface QueueFlags {
  queue?: string;
  queueName?: string;
}

export function addQueueOptions<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
  what = 'Redis of the job queue',
) {
  return command
    .option('--queue <url>', `${what}, e.g. redis://127.0.0.1:6379 (default: LEDGERHOOK_QUEUE)`)
    .option(
      '--queue-name <name>',
      'BullMQ queue name; every receiver and worker of one deployment uses the same (default: LEDGERHOOK_QUEUE_NAME, else ledgerhook-sync)',
    );
}

function statusCommand(queue: Command) {
  return addJsonOption(
    addQueueOptions(
      queue
        .command('status')
        .description('jobs waiting, active, delayed, failed and completed, and the backlog per user')
        .addHelpText(
          'after',
          examples(
            'ledgerhook queue status --queue redis://127.0.0.1:6379',
            'LEDGERHOOK_QUEUE=redis://10.0.0.5:6379 ledgerhook queue status --json',
          ),
        ),
    ),
  );
}

function retryCommand(queue: Command) {
  return addJsonOption(
    addQueueOptions(
      queue
        .command('retry')
        .description(
          'put failed jobs back in the queue (after fixing what failed them: a token, a path); jobs retrying after a transient failure need nothing',
        )
        .option('--failed', 'every failed job (the default, and for now the only choice)')
        .addHelpText(
          'after',
          examples('ledgerhook queue retry --failed --queue redis://127.0.0.1:6379', 'ledgerhook queue retry --json'),
        ),
    ),
  );
}

export type QueueCommandOptions =
  | (OptionsOf<typeof statusCommand> & { action: 'status' })
  | (OptionsOf<typeof retryCommand> & { action: 'retry' });

export function defineQueue(program: Command, run: RunCommand): void {
  const queue = program
    .command('queue')
    .helpGroup(COMMAND_GROUPS.scale)
    .summary('look at the sync job queue; retry failed jobs')
    .description('Inspect the queue that `listen --sync --queue` fills and `ledgerhook worker` drains.')
    .addHelpText('after', examples('ledgerhook queue status --queue redis://127.0.0.1:6379'));
  const load = () => import('./queue.js');
  statusCommand(queue).action((options) => run(load, { ...options, action: 'status' }));
  retryCommand(queue).action((options) => run(load, { ...options, action: 'retry' }));
}
