import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertOneLineError, BIN, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const SECRET = 'whsec_config_test_secret_0123456789';

const configEnv = () => {
  const dir = tempDir();
  return { dir, env: { LEDGERHOOK_CONFIG_DIR: dir } };
};

describe('config set: secrets', () => {
  for (const key of ['webhookSecret', 'token']) {
    it(`${key} without a value and without a terminal is a usage error that says how`, async () => {
      const { env } = configEnv();
      // token runs in-process (stdin is not a terminal there either); webhookSecret end to end.
      const result = await (key === 'webhookSecret' ? runCli : runInProcess)(['config', 'set', key], { env });
      assert.equal(result.code, 2);
      assertOneLineError(result);
      assert.match(result.stderr, new RegExp(`config set ${key} - `));
      assert.match(result.stderr, /terminal/);
    });
  }

  it('a secret in argv is stored with a one-line shell-history warning; from stdin without one', async () => {
    const { env } = configEnv();
    const argv = await runCli(['config', 'set', 'webhookSecret', SECRET], { env });
    assert.equal(argv.code, 0, argv.stderr);
    const warnings = argv.stderr.split('\n').filter((line) => /shell history/.test(line));
    assert.equal(warnings.length, 1);
    assert.ok(!argv.stderr.includes(SECRET) && !argv.stdout.includes(SECRET), 'the secret is never printed');
    const stdin = await runInProcess(['config', 'set', 'token', '-'], { env, input: 'tok_123\n' });
    assert.equal(stdin.code, 0, stdin.stderr);
    assert.doesNotMatch(stdin.stderr, /shell history/);
    const notSecret = await runInProcess(['config', 'set', 'baseUrl', 'https://sandbox.example.com/rest/v5'], { env });
    assert.doesNotMatch(notSecret.stderr, /shell history/);
  });
});

/** Runs `config set KEY` on a real pseudo-terminal (util-linux `script`), typing `typed` once asked. */
function onTerminal(key: string, typed: string, dir: string): Promise<{ code: number | null; screen: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', `${process.execPath} ${BIN} config set ${key}`, '/dev/null'], {
      env: { ...process.env, LEDGERHOOK_CONFIG_DIR: dir, NO_COLOR: '1' },
    });
    let screen = '';
    let typedYet = false;
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no prompt within 15 s; screen so far: ${screen}`));
    }, 15_000);
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString();
      // Type only once the question is on screen: the prompt is in raw mode (no echo) by then.
      if (!typedYet && /input hidden/.test(screen)) {
        typedYet = true;
        child.stdin.write(typed);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(deadline);
      resolve({ code, screen });
    });
  });
}

describe('config set: hidden prompt on a terminal', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it('asks for webhookSecret without echoing it, and stores it', {
    skip: !hasScript && 'no `script` here',
  }, async () => {
    const { dir, env } = configEnv();
    const typed = 'pty_secret_0123456789';
    const { code, screen } = await onTerminal('webhookSecret', `${typed}\r`, dir);
    assert.equal(code, 0, screen);
    assert.match(screen, /webhookSecret for sandbox \(input hidden\)/);
    assert.ok(!screen.includes(typed), `the secret was echoed: ${screen}`);
    assert.equal(
      JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).environments.sandbox.webhookSecret,
      typed,
    );
    const get = await runInProcess(['config', 'get', 'webhookSecret'], { env });
    assert.ok(!get.stdout.includes(typed));
  });
});

describe('config set: validation', () => {
  it('headerName must be a valid HTTP token', async () => {
    const { env } = configEnv();
    for (const bad of ['Service Verification', 'Service-Verification:', 'Ünïcode']) {
      const result = await runInProcess(['config', 'set', 'headerName', bad], { env });
      assert.equal(result.code, 2, bad);
      assertOneLineError(result);
      assert.match(result.stderr, /not a valid HTTP header name/);
    }
    assert.equal((await runInProcess(['config', 'set', 'headerName', 'Acme-Verification'], { env })).code, 0);
    assert.equal((await runInProcess(['config', 'get', 'headerName'], { env })).stdout.trim(), 'Acme-Verification');
  });

  it('tokensFile must exist and is stored as an absolute path', async () => {
    const { env } = configEnv();
    const cwd = tempDir();
    writeFileSync(join(cwd, 'tokens.json'), '{"user_1":"tok"}');
    // A process of its own: the relative path is resolved against that process's working directory.
    const stored = await runCli(['config', 'set', 'tokensFile', 'tokens.json'], { env, cwd });
    assert.equal(stored.code, 0, stored.stderr);
    assert.equal(
      (await runInProcess(['config', 'get', 'tokensFile'], { env })).stdout.trim(),
      join(cwd, 'tokens.json'),
    );
    const missing = await runInProcess(['config', 'set', 'tokensFile', join(cwd, 'nope.json')], { env });
    assert.equal(missing.code, 2);
    assertOneLineError(missing);
    assert.match(missing.stderr, /does not exist/);
  });
});

describe('config: a settings file that cannot be used', () => {
  for (const content of ['[]', '{"environments":5}', '{"environments":{"sandbox":{"baseUrl":5}}}', '"text"']) {
    it(`exits 2 naming the file for valid JSON of the wrong shape: ${content}`, async () => {
      const { dir, env } = configEnv();
      const file = join(dir, 'settings.json');
      writeFileSync(file, content);
      for (const args of [
        ['config', 'list'],
        ['config', 'set', 'baseUrl', 'https://x.example.com'],
        ['verify', '--data', '{}', '--token', 'a.b.c'],
      ]) {
        const result = await runInProcess(args, { env });
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assertOneLineError(result);
        assert.ok(result.stderr.includes(file), result.stderr);
      }
      assert.equal(readFileSync(file, 'utf8'), content, 'the file is never rewritten');
    });
  }

  it('exits 2 naming the file when the config directory cannot be written', async () => {
    const parent = tempDir();
    writeFileSync(join(parent, 'a-file'), '');
    // A directory below a regular file can never be created, whoever runs the test (even root).
    const dir = join(parent, 'a-file', 'ledgerhook');
    const result = await runInProcess(['config', 'set', 'baseUrl', 'https://x.example.com'], {
      env: { LEDGERHOOK_CONFIG_DIR: dir },
    });
    assert.equal(result.code, 2, result.stderr);
    assertOneLineError(result);
    assert.ok(result.stderr.includes(join(dir, 'settings.json')), result.stderr);
    assert.match(result.stderr, /LEDGERHOOK_CONFIG_DIR/);
  });
});

describe('config --help', () => {
  it('every subcommand has an example', async () => {
    for (const sub of ['get', 'set', 'unset', 'list', 'path']) {
      // Rendered in-process from the same definitions (help-and-validation.test.ts spawns pages of the bin).
      const help = await runInProcess(['config', sub, '--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, new RegExp(`Examples:\\n(.*\\n)*  \\$ ledgerhook config ${sub}`), sub);
    }
  });
});
