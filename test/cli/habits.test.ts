import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli, tempDir } from '../helpers/cli.js';
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
      // Every usage error names its reason, not a generic "usage".
      { args: ['send-sample', 'NOPE', '--to', '3000'], exit: 2, code: 'ERR_USAGE', reason: 'unknown_webhook_type' },
      {
        args: ['check-receiver', '--to', '127.0.0.1:1', '--secret', 's'],
        exit: 3,
        code: 'ERR_NETWORK',
        reason: 'connection_refused',
      },
      { args: ['sync', 'expenses', '--limit', 'x'], exit: 2, code: 'ERR_USAGE', reason: 'invalid_argument' },
      { args: ['captures', 'list', `${file}.missing`], exit: 2, code: 'ERR_USAGE', reason: 'input_unreadable' },
    ];
    for (const { args, exit, code, reason } of cases) {
      const result = await runInProcess([...args, '--json']);
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
    const verify = await runInProcess(['verify', '--data', '{}', '--token', 'abc', '--secret', 's', '--json']);
    assert.equal(verify.code, 1);
    assert.equal(JSON.parse(verify.stdout).authentic, false);
  });

  it('counts read right: "1 delivery"', async () => {
    const { file } = await writeMixedCapture();
    const one = await runInProcess(['captures', 'list', file, '--last', '1']);
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

  it('-v, --version, -V and `version` all print the version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const spelling of ['-v', '--version', '-V', 'version']) {
      const result = await runCli([spelling]);
      assert.equal(result.code, 0, spelling);
      assert.equal(result.stdout, `${version}\n`, spelling);
    }
  });

  it('verify and sign read a piped body when no FILE is given', async () => {
    const env = { LEDGERHOOK_WEBHOOK_SECRET: 'whsec_piped' };
    const body = '{"userId":"u","type":"ENTITY_UPDATE","entities":["expense"]}';
    // The bin reads its real stdin; the verify cases read the same way in-process.
    const signed = await runCli(['sign', '--format', 'token'], { env, input: body });
    assert.equal(signed.code, 0, signed.stderr);
    const verified = await runInProcess(['verify', '--token', signed.stdout.trim(), '--json'], { env, input: body });
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.equal(JSON.parse(verified.stdout).authentic, true);
    const nothing = await runInProcess(['verify', '--token', signed.stdout.trim()], { env, input: '' });
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /no body to verify: .*pipe it in/);
  });

  it('an --out that cannot be a directory fails at once with the path, in words (no spin, no errno)', async () => {
    const dir = tempDir();
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const cases: Array<[string[], RegExp]> = [
      [['demo', '--out', file], /cannot use --out .*a-file: it is a file, not a directory/],
      [['demo', '--out', join(file, 'sub')], /cannot use --out .*sub: .*a-file: it is a file, not a directory/],
      // /proc takes no new directories: Node's recursive mkdir would spin there forever.
      [
        ['sync', 'expenses', '--out', '/proc/ledgerhook-x', '--base-url', 'http://127.0.0.1:1/rest/v5'],
        /cannot use --out \/proc\/ledgerhook-x: no directory can be created there/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runInProcess(args, { env: { LEDGERHOOK_TOKEN: 't' } });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /\bE[A-Z]{3,}\b/, 'no raw errno word');
    }
    const config = await runInProcess(['config', 'set', 'baseUrl', 'http://x/rest/v5'], {
      env: { LEDGERHOOK_CONFIG_DIR: '/proc/ledgerhook-config' },
    });
    assert.equal(config.code, 2, config.stderr);
    assert.match(
      config.stderr,
      /cannot write the settings file \/proc\/ledgerhook-config\/settings\.json: no directory can be created there/,
    );
  });
});
