import type { Command } from '@commander-js/extra-typings';
import { defineCaptures } from './commands/captures/definition.js';
import { defineCatalogue } from './commands/catalogue/definition.js';
import { defineCheckConsumer } from './commands/check-consumer/definition.js';
import { defineCheckReceiver } from './commands/check-receiver/definition.js';
import { defineCompletion } from './commands/completion/definition.js';
import { defineConfig } from './commands/config/definition.js';
import { defineDemo } from './commands/demo/definition.js';
import { defineInspect } from './commands/inspect/definition.js';
import { defineListen } from './commands/listen/definition.js';
import { defineMock } from './commands/mock/definition.js';
import { defineQueue } from './commands/queue/definition.js';
import { defineFreshness } from './commands/freshness/definition.js';
import { defineHistory } from './commands/history/definition.js';
import { defineReconcile } from './commands/reconcile/definition.js';
import { defineReplay } from './commands/replay/definition.js';
import { defineSendSample } from './commands/send-sample/definition.js';
import { defineSign } from './commands/sign/definition.js';
import { defineState } from './commands/state/definition.js';
import { defineStore } from './commands/store/definition.js';
import { defineSync } from './commands/sync/definition.js';
import { defineVerify } from './commands/verify/definition.js';
import { defineWorker } from './commands/worker/definition.js';
import type { RunCommand } from './runner.js';

/**
 * Every command, in the order `--help` lists them: the one list main.ts builds the program from and
 * the in-process test runner builds the same program from (a command added here is in both).
 */
export const COMMANDS: ReadonlyArray<(program: Command, run: RunCommand) => void> = [
  defineDemo,
  defineSign,
  defineVerify,
  defineSendSample,
  defineCheckReceiver,
  defineCheckConsumer,
  defineListen,
  defineReplay,
  defineCaptures,
  defineInspect,
  defineMock,
  defineSync,
  defineReconcile,
  defineFreshness,
  defineHistory,
  defineState,
  defineWorker,
  defineQueue,
  defineStore,
  defineCatalogue,
  defineConfig,
  defineCompletion,
];

export function defineCommands(program: Command, run: RunCommand): void {
  for (const define of COMMANDS) define(program, run);
}
