import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from '@commander-js/extra-typings';
import { COMMANDS, defineCommands } from '../../src/cli/command-list.js';

const run = async () => {};
const built = (named?: string) => {
  const program = new Command('ledgerhook');
  defineCommands(program, run, named);
  return program.commands.map((command) => command.name());
};

describe('the command list builds only the command a start names', () => {
  it('each entry lists exactly the commands its definition adds', () => {
    for (const [names, define] of COMMANDS) {
      const program = new Command('ledgerhook');
      define(program, run);
      assert.deepEqual(
        program.commands.map((command) => command.name()),
        [...names],
      );
    }
  });

  it('builds every command for no name, an option, an unknown word and completion', () => {
    const all = COMMANDS.flatMap(([names]) => names);
    for (const named of [undefined, '--help', 'verifyy', 'help', 'completion']) assert.deepEqual(built(named), all);
  });

  it('builds one definition for a named command', () => {
    assert.deepEqual(built('verify'), ['verify']);
    assert.deepEqual(built('entities'), ['events', 'entities']);
  });
});
