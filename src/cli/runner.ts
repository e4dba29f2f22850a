import type { CliContext } from './context.js';

/** A command module: receives typed options and the context, calls the library, renders. */
export interface CommandModule<Options> {
  run(options: Options, ctx: CliContext): Promise<void>;
}

/** Loads a command module only when its command runs (lazy commands keep start-up fast). */
export type RunCommand = <Options>(load: () => Promise<CommandModule<Options>>, options: Options) => Promise<void>;
