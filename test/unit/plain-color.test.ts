import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Chalk } from 'chalk';
import { loadColor } from '../../src/cli/context.js';

describe('no colour without loading chalk', () => {
  it('styles, chained or not, give what chalk at level 0 gives', async () => {
    const plain = await loadColor(process.stdout, { NO_COLOR: '1' });
    const chalk = new Chalk({ level: 0 });
    assert.equal(plain.level, 0);
    assert.equal(plain.red('a'), chalk.red('a'));
    assert.equal(plain.bold.yellow('b', 'c'), chalk.bold.yellow('b', 'c'));
    assert.equal(plain.dim(String(3)), chalk.dim('3'));
    assert.equal(plain.green(), chalk.green());
  });

  it('gives a non-terminal stream no colour', async () => {
    const stream = { isTTY: false } as NodeJS.WriteStream;
    assert.equal((await loadColor(stream, {})).bold.red('x'), 'x');
  });
});
