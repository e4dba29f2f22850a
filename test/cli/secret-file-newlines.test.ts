import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { withoutTrailingLineBreaks } from '../../src/cli/read-input.js';
import { tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const SECRET = 'whsec_newline_test_0123456789abcdef';
const IAT = '1700000000';

describe('a secret file: the line breaks at its end are not part of the secret', () => {
  it('drops every newline and carriage return at the end, nothing else', () => {
    assert.equal(withoutTrailingLineBreaks('abc\n\n'), 'abc');
    assert.equal(withoutTrailingLineBreaks('abc\r\n\r\n'), 'abc');
    assert.equal(withoutTrailingLineBreaks('abc\r'), 'abc');
    assert.equal(withoutTrailingLineBreaks('a\nb\n'), 'a\nb');
    assert.equal(withoutTrailingLineBreaks(' abc \n'), ' abc ');
  });

  it('sign --secret-file with "abc\\n\\n" or CRLFs signs as the secret itself; config set webhookSecret - likewise', async () => {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const expected = await runInProcess(['sign', '--data', '{}', '--iat', IAT], {
      env: { ...env, LEDGERHOOK_WEBHOOK_SECRET: SECRET },
    });
    assert.equal(expected.code, 0, expected.stderr);
    const dir = tempDir();
    for (const ending of ['\n\n', '\r\n\r\n', '\n\r\n\n']) {
      const file = join(dir, `secret-${ending.length}`);
      writeFileSync(file, `${SECRET}${ending}`);
      const signed = await runInProcess(['sign', '--data', '{}', '--iat', IAT, '--secret-file', file], { env });
      assert.equal(signed.code, 0, signed.stderr);
      assert.equal(signed.stdout, expected.stdout, JSON.stringify(ending));
    }
    const stored = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const set = await runInProcess(['config', 'set', 'webhookSecret', '-', '--env', 'sandbox'], {
      env: stored,
      input: `${SECRET}\r\n\n`,
    });
    assert.equal(set.code, 0, set.stderr);
    const fromStored = await runInProcess(['sign', '--data', '{}', '--iat', IAT, '--env', 'sandbox'], { env: stored });
    assert.equal(fromStored.code, 0, fromStored.stderr);
    assert.equal(fromStored.stdout, expected.stdout);
  });

  it('the flag help says so', async () => {
    const help = await runInProcess(['sign', '--help']);
    assert.match(help.stdout.replace(/\s+/g, ' '), /--secret-file <file> .*newlines and carriage returns at its end/);
  });
});
