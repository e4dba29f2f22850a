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
import { defineProbe } from './commands/probe/definition.js';
import { defineQueue } from './commands/queue/definition.js';
import { defineRecord } from './commands/record/definition.js';
import { defineRecordings } from './commands/recordings/definition.js';
import { defineFreshness } from './commands/freshness/definition.js';
import { defineHistory } from './commands/history/definition.js';
import { defineReconcile } from './commands/reconcile/definition.js';
import { defineReplay } from './commands/replay/definition.js';
import { defineSendSample } from './commands/send-sample/definition.js';
import { defineSign } from './commands/sign/definition.js';
import { defineState } from './commands/state/definition.js';
import { defineStatus } from './commands/status/definition.js';
import { defineStore } from './commands/store/definition.js';
import { defineSync } from './commands/sync/definition.js';
import { defineVerify } from './commands/verify/definition.js';
import { defineWorker } from './commands/worker/definition.js';
import type { RunCommand } from './runner.js';

type DefineCommand = (program: Command, run: RunCommand) => void;

/**
 * Every command with the names it defines, in the order `--help` lists them: the one list main.ts builds the program from
 * and the in-process test runner builds the same program from (a command added here is in both). Each definition names
 * its help group; a group is listed where its first command is, so the groups follow COMMAND_GROUPS' order.
 */
export const COMMANDS: ReadonlyArray<readonly [names: readonly string[], define: DefineCommand]> = [
  [['sign'], defineSign],
  [['verify'], defineVerify],
  [['send-sample'], defineSendSample],
  [['check-receiver'], defineCheckReceiver],
  [['check-consumer'], defineCheckConsumer],
  [['listen'], defineListen],
  [['replay'], defineReplay],
  [['captures'], defineCaptures],
  [['inspect'], defineInspect],
  [['mock'], defineMock],
  [['record'], defineRecord],
  [['recordings'], defineRecordings],
  [['demo'], defineDemo],
  [['sync'], defineSync],
  [['reconcile'], defineReconcile],
  [['freshness'], defineFreshness],
  [['history'], defineHistory],
  [['state'], defineState],
  [['worker'], defineWorker],
  [['queue'], defineQueue],
  [['store'], defineStore],
  [['events', 'entities'], defineCatalogue],
  [['status'], defineStatus],
  [['config'], defineConfig],
  [['probe'], defineProbe],
  [['completion'], defineCompletion],
];

/**
 * Defines every command, or only `named` when it is one of them: a start that runs one command does not
 * build the other commands' flags and help (`npm run bench cli-startup`). `completion` reads the whole
 * tree, so it always gets every command.
 */
export function defineCommands(program: Command, run: RunCommand, named?: string): void {
  const only =
    named !== undefined && named !== 'completion' ? COMMANDS.find(([names]) => names.includes(named)) : undefined;
  for (const [, define] of only ? [only] : COMMANDS) define(program, run);
}
