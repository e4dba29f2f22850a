import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertOneLineError, runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const SECRET = 'whsec_flag_test_secret_0123456789abcdef';
const TOKEN = 'tok_flag_test_0123456789abcdef';
const warnings = (stderr: string) => stderr.split('\n').filter((line) => /^warning: --(secret|token) /.test(line));

describe('a credential given as a flag is warned about', () => {
  it('sign --secret: one line naming the file and environment forms; the secret itself never printed', async () => {
    const result = await runCli(['sign', '--data', '{}', '--secret', SECRET]);
    assert.equal(result.code, 0, result.stderr);
    const [line, ...more] = warnings(result.stderr);
    assert.equal(more.length, 0);
    assert.match(line ?? '', /process list \(ps\).*--secret-file FILE, LEDGERHOOK_WEBHOOK_SECRET/);
    assert.ok(!result.stderr.includes(SECRET));
  });

  it('sync --token and worker --token warn before they run (even when they then fail)', async () => {
    const out = tempDir();
    const sync = await runInProcess([
      'sync',
      'invoice',
      '--token',
      TOKEN,
      '--base-url',
      'http://127.0.0.1:1',
      '--out',
      out,
      '--max-wait',
      '0',
    ]);
    assert.match(warnings(sync.stderr).join('\n'), /--token .*--token-file FILE, LEDGERHOOK_TOKEN/);
    const worker = await runInProcess(['worker', '--token', TOKEN]);
    assert.equal(worker.code, 2, worker.stderr);
    assert.equal(warnings(worker.stderr).length, 1, worker.stderr);
    for (const result of [sync, worker]) assert.ok(!result.stderr.includes(TOKEN) && !result.stdout.includes(TOKEN));
  });

  it('listen --secret warns at start-up, while it keeps running', async () => {
    const listener = startCli(['listen', '--port', '0', '--json', '--secret', SECRET]);
    try {
      await listener.waitFor((line) => typeof line === 'object' && line !== null);
      assert.equal(warnings(listener.stderr()).length, 1, listener.stderr());
    } finally {
      await listener.stop();
    }
  });

  it('the file and environment forms, and verify --token (a signed header, not a credential), do not warn', async () => {
    const dir = tempDir();
    const file = join(dir, 'secret');
    writeFileSync(file, `${SECRET}\n`);
    const fromFile = await runInProcess(['sign', '--data', '{}', '--secret-file', file]);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const fromEnv = await runInProcess(['sign', '--data', '{}'], { env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET } });
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    const token = fromEnv.stdout.trim();
    const verify = await runInProcess(['verify', '--data', '{}', '--token', token, '--secret-file', file]);
    assert.equal(verify.code, 0, verify.stderr);
    for (const result of [fromFile, fromEnv, verify]) assert.deepEqual(warnings(result.stderr), []);
  });

  it('--help shows the file form only; --help-all lists it before the value form', async () => {
    for (const command of ['listen', 'sync', 'worker', 'sign']) {
      const [help, all] = await Promise.all([runInProcess([command, '--help']), runInProcess([command, '--help-all'])]);
      const flag = command === 'sync' || command === 'worker' ? 'token' : 'secret';
      assert.ok(
        help.stdout.includes(`--${flag}-file`) && !help.stdout.includes(`--${flag} <`),
        `${command}: ${help.stdout}`,
      );
      assert.ok(all.stdout.indexOf(`--${flag}-file`) < all.stdout.indexOf(`--${flag} <`), `${command}: ${all.stdout}`);
    }
  });
});

describe('an empty secret is refused where it is given', () => {
  for (const [name, content] of [
    ['empty', ''],
    ['a lone newline', '\n'],
    ['whitespace only', '  \t \n'],
  ] as const) {
    it(`listen --secret-file holding ${name} exits 2 naming the file, before it listens`, async () => {
      const dir = tempDir();
      const file = join(dir, 'webhook.secret');
      writeFileSync(file, content);
      const result = await runInProcess([
        'listen',
        '--port',
        '0',
        '--secret-file',
        file,
        '--sync',
        '--token-file',
        file,
      ]);
      assert.equal(result.code, 2, result.stderr);
      assertOneLineError(result);
      assert.ok(result.stderr.includes(file), result.stderr);
      assert.match(result.stderr, /empty|whitespace/);
    });
  }

  it('an empty --secret or a blank LEDGERHOOK_WEBHOOK_SECRET is refused too', async () => {
    const flag = await runInProcess(['sign', '--data', '{}', '--secret', '']);
    assert.equal(flag.code, 2, flag.stderr);
    assert.match(flag.stderr, /--secret is empty/);
    const env = await runInProcess(['sign', '--data', '{}'], { env: { LEDGERHOOK_WEBHOOK_SECRET: '   ' } });
    assert.equal(env.code, 2, env.stderr);
    assertOneLineError(env);
    assert.match(env.stderr, /LEDGERHOOK_WEBHOOK_SECRET is only whitespace/);
  });
});

describe('config list shows that a secret is set, never a character of it', () => {
  it('a fingerprint tells two secrets apart; no prefix, no length', async () => {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const other = `${SECRET.slice(0, 20)}_other_ending`;
    assert.equal((await runInProcess(['config', 'set', 'webhookSecret', '-'], { env, input: SECRET })).code, 0);
    assert.equal(
      (await runInProcess(['config', 'set', 'webhookSecret', '-', '--env', 'production'], { env, input: other })).code,
      0,
    );
    const human = await runInProcess(['config', 'list'], { env });
    const json = await runInProcess(['config', 'list', '--json'], { env });
    const get = await runInProcess(['config', 'get', 'webhookSecret'], { env });
    for (const output of [human.stdout, json.stdout, get.stdout]) {
      assert.ok(!output.includes(SECRET.slice(0, 5)), output);
      assert.doesNotMatch(output, new RegExp(`${SECRET.length}|${other.length}`));
    }
    const environments = JSON.parse(json.stdout).environments;
    assert.match(environments.sandbox.webhookSecret, /^set \(fingerprint [0-9a-f]{8}\)$/);
    assert.notEqual(environments.sandbox.webhookSecret, environments.production.webhookSecret);
    assert.equal(get.stdout.trim(), environments.sandbox.webhookSecret);
  });
});

describe('the mock token is not a credential', () => {
  it('sync --token ledgerhook-mock-token (the README quick start) prints no warning', async () => {
    const result = await runInProcess([
      'sync',
      'invoice',
      '--token',
      'ledgerhook-mock-token',
      '--base-url',
      'http://127.0.0.1:1',
      '--out',
      tempDir(),
      // Refused at once: the warning is decided before the first request.
      '--max-wait',
      '0',
    ]);
    assert.deepEqual(warnings(result.stderr), []);
  });
});
