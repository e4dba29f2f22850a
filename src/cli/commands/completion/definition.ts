import type { Command, CommandUnknownOpts } from '@commander-js/extra-typings';
import type { RunCommand } from '../../runner.js';
import { examples, oneOf } from '../../parsers.js';
import { COMMAND_GROUPS } from '../../help-layout.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export interface CompletionCommandOptions {
  shell: (typeof SHELLS)[number];
  /** The whole program, so that the script is generated from the same definitions as --help. */
  program: CommandUnknownOpts;
}

export function defineCompletion(program: Command, run: RunCommand): void {
  program
    .command('completion')
    .helpGroup(COMMAND_GROUPS.setup)
    .summary('print a shell completion script')
    .description(
      'Print a completion script generated from the command definitions: commands, flags, entity names (sync exp<TAB>), event names and webhook types complete. Load it once per shell, or install it as the examples show.',
    )
    .argument('<shell>', SHELLS.join(', '), oneOf('shell', SHELLS))
    .addHelpText(
      'after',
      examples(
        'ledgerhook completion bash > ~/.local/share/bash-completion/completions/ledgerhook',
        '# or, for this bash session only: source <(ledgerhook completion bash)',
        'ledgerhook completion zsh > ~/.zfunc/_ledgerhook   # with fpath+=(~/.zfunc) before compinit in ~/.zshrc',
        'ledgerhook completion fish > ~/.config/fish/completions/ledgerhook.fish',
      ),
    )
    .action((shell) => run(() => import('./completion.js'), { shell, program }));
}
