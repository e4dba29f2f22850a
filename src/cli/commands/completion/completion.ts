import { completionTree } from '../../command-tree.js';
import { bashScript, fishScript, zshScript } from '../../completion-scripts.js';
import type { CliContext } from '../../context.js';
import type { CompletionCommandOptions } from './definition.js';

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export async function run(options: CompletionCommandOptions, ctx: CliContext): Promise<void> {
  ctx.stdout.write(SCRIPTS[options.shell](completionTree(options.program)));
}
