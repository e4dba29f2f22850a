import type { Command } from '@commander-js/extra-typings';
import { addJsonOption } from '../../common-options.js';
import { COMMAND_GROUPS } from '../../help-layout.js';
import { examples, integer } from '../../parsers.js';
import type { OptionsOf, RunCommand } from '../../runner.js';

function showCommand(recordings: Command) {
  return addJsonOption(
    recordings
      .command('show')
      .description(
        'the timeline of a recording: each exchange (method, path, paging headers, status, what came back) and each webhook delivery (what it was, its verdict at receipt), in the order they happened',
      )
      .argument('<dir>', 'a recording directory written by `ledgerhook record`')
      .option('--last <n>', 'only the last N events', integer('--last', { min: 1 })),
    'print { dir, header, exchanges, deliveries, events, warnings } as one JSON document',
  );
}

export type RecordingsShowOptions = OptionsOf<typeof showCommand> & { dir: string };

export function defineRecordings(program: Command, run: RunCommand): void {
  const recordings = program
    .command('recordings')
    .helpGroup(COMMAND_GROUPS.local)
    .summary('look at a recording made by record')
    .description(
      'Read a recording directory: `recording.jsonl` (the timeline) and `deliveries.jsonl` (the webhook deliveries, a capture file that `ledgerhook captures` and `inspect` read too). A torn last line is skipped with a warning.',
    )
    .addHelpText(
      'after',
      examples(
        'ledgerhook recordings show ./bug-123',
        'ledgerhook captures list ./bug-123   # its webhook deliveries',
        'ledgerhook mock --from ./bug-123',
      ),
    );
  showCommand(recordings)
    .addHelpText(
      'after',
      examples('ledgerhook recordings show ./bug-123', 'ledgerhook recordings show ./bug-123 --last 20 --json'),
    )
    .action((dir, options) => run(() => import('./recordings.js'), { ...options, dir }));
}
