import type { Command } from 'commander';
import { defineCaptures } from './definitions/captures.js';
import { defineCatalogue } from './definitions/catalogue.js';
import { defineCheckReceiver } from './definitions/check-receiver.js';
import { defineCompletion } from './definitions/completion.js';
import { defineConfig } from './definitions/config.js';
import { defineDemo } from './definitions/demo.js';
import { defineInspect } from './definitions/inspect.js';
import { defineListen } from './definitions/listen.js';
import { defineMock } from './definitions/mock.js';
import { defineQueue } from './definitions/queue.js';
import { defineReplay } from './definitions/replay.js';
import { defineSendSample } from './definitions/send-sample.js';
import { defineSign } from './definitions/sign.js';
import { defineState } from './definitions/state.js';
import { defineStore } from './definitions/store.js';
import { defineSync } from './definitions/sync.js';
import { defineVerify } from './definitions/verify.js';
import { defineWorker } from './definitions/worker.js';
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
  defineListen,
  defineReplay,
  defineCaptures,
  defineInspect,
  defineMock,
  defineSync,
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
