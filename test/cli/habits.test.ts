import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { writeMixedCapture } from '../helpers/capture-file.js';

const EXAMPLES = /Examples:\n( {2}#.*\n)* {2}\$ ledgerhook /;

describe('everyday habits', () => {
  it('help SUBCOMMAND shows that subcommand; every command of this area has examples', async () => {
    const reset = await runCli(['help', 'state', 'reset']);
    assert.equal(reset.code, 0);
    assert.match(reset.stdout, /^Usage: ledgerhook state reset /);
    assert.match(reset.stdout, EXAMPLES);
    for (const words of [
      ['state', 'list'],
      ['state', 'show'],
      ['captures'],
      ['captures', 'list'],
      ['captures', 'show'],
      ['inspect'],
      ['completion'],
      ['demo'],
      ['events'],
      ['entities'],
    ]) {
      // Rendered in-process from the same definitions; the spawned pages are the one above and those of
      // help-and-validation.test.ts.
      const help = await runInProcess([...words, '--help']);
      assert.equal(help.code, 0, words.join(' '));
      assert.match(help.stdout, EXAMPLES, `${words.join(' ')} --help has an example`);
    }
  });

  it('the top-level help lists every exit code, 70 and 130 included', async () => {
    const help = await runCli(['--help']);
    for (const code of ['0 ok', '1 a check failed', '2 usage', '3 network', '70 internal', '130 interrupted'])
      assert.ok(help.stdout.includes(code), code);
  });

  it('--json failures print one JSON error document on stdout and one line on stderr', async () => {
    const { file } = await writeMixedCapture();
    const cases: Array<{ args: string[]; exit: number; code: string; reason: string }> = [
      { args: ['send-sample', 'NOPE', '--to', '3000'], exit: 2, code: 'ERR_USAGE', reason: 'usage' },
      {
        args: ['check-receiver', '--to', '127.0.0.1:1', '--secret', 's'],
        exit: 3,
        code: 'ERR_NETWORK',
        reason: 'network',
      },
      { args: ['sync', 'expenses', '--limit', 'x'], exit: 2, code: 'ERR_USAGE', reason: 'invalid_argument' },
      { args: ['captures', 'list', `${file}.missing`], exit: 2, code: 'ERR_USAGE', reason: 'usage' },
    ];
    for (const { args, exit, code, reason } of cases) {
      const result = await runCli([...args, '--json']);
      assert.equal(result.code, exit, args.join(' '));
      const document = JSON.parse(result.stdout);
      assert.equal(document.ok, false);
      assert.equal(document.error.code, code, args.join(' '));
      assert.equal(document.error.reason, reason, args.join(' '));
      assert.equal(typeof document.error.message, 'string');
      assert.equal(
        result.stderr
          .trimEnd()
          .split('\n')
          .filter((line) => line.startsWith('error:')).length,
        1,
      );
    }
    // A command that printed its own document adds none: stdout stays exactly one document.
    const verify = await runCli(['verify', '--data', '{}', '--token', 'abc', '--secret', 's', '--json']);
    assert.equal(verify.code, 1);
    assert.equal(JSON.parse(verify.stdout).authentic, false);
  });

  it('counts read right: "1 delivery"', async () => {
    const { file } = await writeMixedCapture();
    const one = await runCli(['captures', 'list', file, '--last', '1']);
    assert.match(one.stdout, /\n1 delivery of 2 in /);
  });

  it('--help and verify do not load the inspector or completion code', () => {
    const bundle = new URL('../../dist/cli-bundle/', import.meta.url);
    const main = readFileSync(new URL('main.js', bundle), 'utf8');
    assert.equal(main.includes('content-security-policy'), false);
    assert.equal(main.includes('_ledgerhook_subcommands'), false);
    const chunks = readdirSync(bundle).filter((name) => name.endsWith('.js'));
    assert.ok(chunks.some((name) => readFileSync(new URL(name, bundle), 'utf8').includes('content-security-policy')));
  });
});
