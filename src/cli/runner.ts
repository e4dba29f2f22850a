import type { OptionValues } from '@commander-js/extra-typings';
import type { CliContext } from './context.js';

/** A command module: receives typed options and the context, calls the library, renders. */
export interface CommandModule<Options> {
  run(options: Options, ctx: CliContext): Promise<void>;
}

/** Loads a command module only when its command runs (lazy commands keep start-up fast). */
export type RunCommand = <Options>(load: () => Promise<CommandModule<Options>>, options: Options) => Promise<void>;

/**
 * The options a command definition parses, inferred from its flags by @commander-js/extra-typings:
 * `OptionsOf<typeof listenCommand>` for a function that builds the command, so that no command
 * restates its own flags as an interface.
 */
export type OptionsOf<Definition extends (...args: never[]) => { opts(): OptionValues }> = ReturnType<
  ReturnType<Definition>['opts']
>;
