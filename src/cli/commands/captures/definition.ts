import type { Command, OptionValues } from '@commander-js/extra-typings';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { examples, integer } from '../../parsers.js';
import { addJsonOption, addSecretOptions, storedToleranceOption } from '../../common-options.js';
import { COMMAND_GROUPS, layOutOptions } from '../../help-layout.js';

/** The selectors replay takes, so that what `captures list` shows is what `replay` sends. */
function addSelectorOptions<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return command
    .option('--id <id>', 'only the delivery with this id')
    .option('--index <n>', 'only the delivery at this 0-based position', integer('--index', { min: 0 }))
    .option('--last <n>', 'only the last N (after the other filters)', integer('--last', { min: 1 }))
    .option('--type <type>', 'only ENTITY_UPDATE or LIFECYCLE_EVENT')
    .option('--event <name>', 'only this LIFECYCLE_EVENT')
    .option('--user <id>', 'only deliveries for this userId');
}

function listCommand(captures: Command) {
  return addJsonOption(
    addSelectorOptions(
      captures
        .command('list')
        .description('one row per delivery: index, id, time, verdict, type/event, user, size')
        .argument('<file>', 'capture file written by listen --capture')
        .option(
          '--owed',
          'instead, one row per forward listen --retry still owed a route when it stopped (what the next listen resumes, or `replay --owed --to URL` sends)',
        ),
    ),
    'print { file, count, deliveries, warnings } (with --owed: { file, count, owed }) as one JSON document',
  );
}

function showCommand(captures: Command) {
  const command = captures
    .command('show')
    .description(
      'one delivery in full: request headers, decoded token, verdict with reasons, pretty body (default: the last delivery). With a secret, the verify checklist is re-run as of the moment it arrived.',
    )
    .argument('<file[#id|:index]>', 'capture file, optionally with #id or :index (0-based) of one delivery')
    .option('--raw', 'write only the exact body bytes to stdout')
    .option(...storedToleranceOption('maximum webhook age for the checklist'));
  return addJsonOption(
    addSecretOptions(command, { repeatable: true }),
    'print the delivery (headers, token, checks, body) as one JSON document',
  );
}

export type CapturesListOptions = OptionsOf<typeof listCommand> & { action: 'list'; file: string };

export type CapturesShowOptions = OptionsOf<typeof showCommand> & {
  action: 'show';
  /** FILE, FILE#id or FILE:index. */
  spec: string;
};

export type CapturesCommandOptions = CapturesListOptions | CapturesShowOptions;

export function defineCaptures(program: Command, run: RunCommand): void {
  const captures = program
    .command('captures')
    .helpGroup(COMMAND_GROUPS.local)
    .summary('list and show the deliveries of a capture')
    .description(
      'Read a capture file written by `ledgerhook listen --capture` without decoding Base64 by hand. A torn last line (the listener was killed mid-write) is skipped with a warning.',
    )
    .addHelpText(
      'after',
      examples(
        'ledgerhook captures list deliveries.jsonl',
        'ledgerhook captures show deliveries.jsonl:0',
        'ledgerhook captures show deliveries.jsonl --raw > body.json',
      ),
    );
  const load = () => import('./captures.js');
  listCommand(captures)
    .addHelpText(
      'after',
      examples(
        'ledgerhook captures list deliveries.jsonl',
        'ledgerhook captures list deliveries.jsonl --type LIFECYCLE_EVENT --last 5',
        'ledgerhook captures list deliveries.jsonl --user user_1 --json',
        'ledgerhook captures list deliveries.jsonl --owed   # forwards listen --retry still owed',
      ),
    )
    .action((file, options) => run(load, { action: 'list', file, ...options }));
  layOutOptions(showCommand(captures), ['--raw', '--secret-file', '--env', '--json'])
    .addHelpText(
      'after',
      examples(
        'ledgerhook captures show deliveries.jsonl',
        'ledgerhook captures show deliveries.jsonl#dlv_lx2k9a1b2c3d --secret-file sandbox.secret',
        'ledgerhook captures show deliveries.jsonl:3 --raw | sha256sum',
      ),
    )
    .action((spec, options) => run(load, { action: 'show', spec, ...options }));
}
