import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

/** Loads the script in a real bash and asks for completions the way readline does. */
function complete(script: string, words: string[]): { replies: string[]; stderr: string; status: number | null } {
  const file = join(tempDir(), 'ledgerhook.bash');
  writeFileSync(file, script);
  const program = `
set -u
source ${JSON.stringify(file)}
complete -p ledgerhook >/dev/null || exit 9
COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')})
COMP_CWORD=${words.length - 1}
_ledgerhook
printf '%s\\n' "\${COMPREPLY[@]}"
`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8', cwd: tempDir() });
  return { replies: result.stdout.split('\n').filter(Boolean), stderr: result.stderr, status: result.status };
}

describe('completion', () => {
  it('the bash script loads without error and completes commands, catalogue names and flag values', async () => {
    const generated = await runCli(['completion', 'bash']);
    assert.equal(generated.code, 0, generated.stderr);
    const cases: Array<{ words: string[]; expected: string[] }> = [
      { words: ['ledgerhook', 'sync', 'exp'], expected: ['expense', 'expenseCategory', 'expenseRule'] },
      { words: ['ledgerhook', 'sync', '--out', 'data', 'inv'], expected: ['invoice', 'invoiceSetup'] },
      { words: ['ledgerhook', 'cap'], expected: ['captures'] },
      { words: ['ledgerhook', 'captures', ''], expected: ['list', 'show'] },
      { words: ['ledgerhook', 'state', 'reset', 'bankT'], expected: ['bankTransfer'] },
      {
        words: ['ledgerhook', 'send-sample', 'INVOICE_P'],
        expected: ['INVOICE_PAID', 'INVOICE_PAYMENT_METHOD_STORED'],
      },
      { words: ['ledgerhook', 'replay', 'x.jsonl', '--type', 'ENT'], expected: ['ENTITY_UPDATE'] },
      { words: ['ledgerhook', 'verify', '--env', ''], expected: ['sandbox', 'production', 'local'] },
      { words: ['ledgerhook', 'listen', '--ui-'], expected: ['--ui-port', '--ui-host'] },
      { words: ['ledgerhook', 'listen', '--port', ''], expected: [] },
      { words: ['ledgerhook', 'config', 'set', 'hea'], expected: ['headerName'] },
      { words: ['ledgerhook', 'sync', 'expenses', '--wa'], expected: ['--watch'] },
      // Catalogue names match whatever the case typed; --type, --env and --store have values.
      { words: ['ledgerhook', 'send-sample', 'invoice_v'], expected: ['INVOICE_VIEWED'] },
      { words: ['ledgerhook', 'replay', 'x.jsonl', '--event', 'expense_ad'], expected: ['EXPENSE_ADDED'] },
      { words: ['ledgerhook', 'sync', 'expenses', '--type', ''], expected: ['PENDING'] },
      { words: ['ledgerhook', 'sync', 'expenses', '--env', 'l'], expected: ['local'] },
      { words: ['ledgerhook', 'sync', 'expenses', '--store', ''], expected: ['postgres://'] },
    ];
    for (const { words, expected } of cases) {
      const result = complete(generated.stdout, words);
      assert.equal(result.stderr, '', words.join(' '));
      assert.equal(result.status, 0, words.join(' '));
      assert.deepEqual(result.replies, expected, words.join(' '));
    }
  });

  it('prints zsh and fish scripts from the same definitions, and refuses other shells', async () => {
    // In-process from the same definitions; the bash script above comes from the built bin.
    const zsh = await runInProcess(['completion', 'zsh']);
    assert.equal(zsh.code, 0);
    assert.match(zsh.stdout, /^#compdef ledgerhook\n/);
    assert.match(zsh.stdout, /bashcompinit/);
    assert.match(zsh.stdout, /'sync'\) echo '.*expenseCategory/);
    const fish = await runInProcess(['completion', 'fish']);
    assert.equal(fish.code, 0);
    assert.match(fish.stdout, /complete -c ledgerhook -n '__fish_seen_subcommand_from sync' -a '[^']*expenseRule/);
    assert.match(fish.stdout, /-n '__fish_seen_subcommand_from state; and __fish_seen_subcommand_from reset'/);
    const other = await runInProcess(['completion', 'powershell']);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /bash, zsh, fish/);
  });
});
