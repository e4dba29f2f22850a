import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { independentVerify, makeToken, bodyHash } from '../../packages/webhooks/test/independent-jwt.js';

const SECRET = 'whsec_cli_test_secret_0123456789';
const dir = tempDir();
const bodyFile = join(dir, 'body.json');
const BODY = '{"userId":"u-1","type":"ENTITY_UPDATE","entities":["expense"]}\n';
writeFileSync(bodyFile, BODY);
const secretFile = join(dir, 'secret');
writeFileSync(secretFile, `${SECRET}\n`);

/**
 * Most runs are in-process (real definitions and command modules, exit code and stderr mapped as main.ts
 * does): flag variants, output formats and input checks of the same commands. A spawned CLI costs ~0.25 s
 * of CPU and proves nothing more for them. What stays spawned, end to end: `sign` reading stdin with the
 * secret from the environment, `verify` of an authentic delivery from a file with --secret-file, `verify
 * --json` exiting 1 with one document and one error line, top-level help, and a 1 MB argument (exit 1).
 * `config` runs in-process here; config.test.ts spawns it.
 */
const SPAWNED = new Set(['a 1 MB token']);
const runCase = (name: string) => (SPAWNED.has(name) ? runCli : runInProcess);

/** A token as the service makes it, from the independent encoder (no spawn). */
function signed(body: string, iat = Math.floor(Date.now() / 1000), secret = SECRET): string {
  return makeToken({ claims: { iat, request_body_sha256: bodyHash(body) }, secret });
}

describe('ledgerhook sign', () => {
  it('prints a token an independent verifier accepts, for a file and for stdin', async () => {
    const fromFile = await runInProcess(['sign', bodyFile, '--secret-file', secretFile, '--iat', '1700000000']);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const token = fromFile.stdout.trim();
    assert.deepEqual(independentVerify(token, SECRET), { iat: 1700000000, request_body_sha256: bodyHash(BODY) });
    const fromStdin = await runCli(['sign', '-', '--iat', '1700000000'], {
      input: BODY,
      env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET },
    });
    assert.equal(fromStdin.stdout.trim(), token);
  });

  it('prints a header line, JSON and a curl command, and never the secret', async () => {
    const header = await runInProcess([
      'sign',
      '--data',
      '{"a":1}',
      '--secret',
      SECRET,
      '--format',
      'header',
      '--header-name',
      'Acme-Verification',
    ]);
    assert.match(header.stdout, /^Acme-Verification: ey[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const json = await runInProcess(['sign', '--data', '{"a":1}', '--secret', SECRET, '--format', 'json']);
    const parsed = JSON.parse(json.stdout);
    assert.equal(parsed.headerName, 'Service-Verification');
    assert.equal(parsed.claims.request_body_sha256, bodyHash('{"a":1}'));
    const curl = await runInProcess([
      'sign',
      bodyFile,
      '--secret',
      SECRET,
      '--format',
      'curl',
      '--url',
      'http://localhost:3000/hook',
    ]);
    assert.match(
      curl.stdout,
      /^curl -sS -X POST http:\/\/localhost:3000\/hook .*'Service-Verification: ey.*--data-binary @/,
    );
    for (const result of [header, json, curl])
      assert.ok(!result.stdout.includes(SECRET) && !result.stderr.includes(SECRET));
  });

  for (const [name, args, input] of [
    ['no body', ['sign', '--secret', SECRET], ''],
    ['a missing file', ['sign', join(dir, 'nope.json'), '--secret', SECRET], ''],
    ['--data that is not JSON', ['sign', '--data', '{oops', '--secret', SECRET], ''],
    ['no secret anywhere', ['sign', bodyFile, '--env', 'sandbox'], ''],
    ['an unknown format', ['sign', bodyFile, '--secret', SECRET, '--format', 'xml'], ''],
    ['an iat that is not a number', ['sign', bodyFile, '--secret', SECRET, '--iat', 'yesterday'], ''],
    ['an unknown option', ['sign', bodyFile, '--sekret', SECRET], ''],
  ] as const) {
    it(`exits 2 with one line for ${name}`, async () => {
      const result = await runCase(name)([...args], { input });
      assert.equal(result.code, 2, result.stderr);
      assertOneLineError(result);
      assert.equal(result.stdout, '');
    });
  }
});

/** A verdict that is not authentic says why on stdout; no `error:` line repeats it (nor a stack trace). */
function assertVerdictOnly(result: { stdout: string; stderr: string }): void {
  assert.match(result.stdout, /^✖ not authentic \(\w+\)/m);
  // The --secret flag's own warning (once per configuration) is not about the verdict.
  const lines = result.stderr.split('\n').filter((line) => line !== '' && !/^warning: --secret /.test(line));
  assert.deepEqual(lines, [], result.stderr);
}

describe('ledgerhook verify', () => {
  // Tokens are made in-process by the independent encoder; "ledgerhook sign" itself is proven above.
  const sign = async (body: string, iat = Math.floor(Date.now() / 1000)) => signed(body, iat);

  it('exits 0 and explains every check for an authentic delivery', async () => {
    const token = signed(BODY);
    const result = await runCli(['verify', bodyFile, '--token', token, '--secret-file', secretFile]);
    assert.equal(result.code, 0, result.stderr);
    for (const check of ['token', 'algorithm', 'signature', 'claims', 'freshness', 'integrity'])
      assert.match(result.stdout, new RegExp(`✔ ${check}`));
    assert.match(result.stdout, /authentic/);
  });

  it('accepts --header and the settings of an environment', async () => {
    const configDir = tempDir();
    // Settings are written in-process; config set itself is proven end to end in config.test.ts.
    const set = await runInProcess(['config', 'set', 'webhookSecret', '-', '--env', 'production'], {
      input: `${SECRET}\n`,
      env: { LEDGERHOOK_CONFIG_DIR: configDir },
    });
    assert.equal(set.code, 0, set.stderr);
    const token = await sign('{"a":1}');
    const result = await runInProcess(
      ['verify', '--data', '{"a":1}', '--header', `Service-Verification: ${token}`, '--env', 'production', '--json'],
      { env: { LEDGERHOOK_CONFIG_DIR: configDir } },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).secret, 'production');
  });

  it('prints one JSON document with --json and exits 1 when not authentic', async () => {
    const token = await sign('{"a":1}');
    const result = await runCli(['verify', '--data', '{"a": 1}', '--token', token, '--secret', SECRET, '--json']);
    assert.equal(result.code, 1);
    const report = JSON.parse(result.stdout);
    assert.equal(report.authentic, false);
    assert.equal(report.code, 'body_mismatch');
    assertOneLineError(result);
  });

  it('says when a token belongs to the other environment', async () => {
    const configDir = tempDir();
    await runInProcess(['config', 'set', 'webhookSecret', 'the-sandbox-secret'], {
      env: { LEDGERHOOK_CONFIG_DIR: configDir },
    });
    await runInProcess(['config', 'set', 'webhookSecret', SECRET, '--env', 'production'], {
      env: { LEDGERHOOK_CONFIG_DIR: configDir },
    });
    const token = await sign('{"a":1}');
    const result = await runInProcess(['verify', '--data', '{"a":1}', '--token', token], {
      env: { LEDGERHOOK_CONFIG_DIR: configDir },
    });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /bad_signature/);
    assert.match(result.stdout, /production secret/);
  });

  it('reports expiry with the age, honours --now, --tolerance and --ignore-expiry', async () => {
    const token = await sign('{"a":1}', 1700000000);
    const expired = await runInProcess([
      'verify',
      '--data',
      '{"a":1}',
      '--token',
      token,
      '--secret',
      SECRET,
      '--now',
      '1700000300',
      '--json',
    ]);
    assert.equal(expired.code, 1);
    assert.equal(JSON.parse(expired.stdout).code, 'expired');
    assert.equal(JSON.parse(expired.stdout).ageSeconds, 300);
    const inside = await runInProcess([
      'verify',
      '--data',
      '{"a":1}',
      '--token',
      token,
      '--secret',
      SECRET,
      '--now',
      '1700000599',
      '--tolerance',
      '600',
    ]);
    assert.equal(inside.code, 0, inside.stdout);
    const ignored = await runInProcess([
      'verify',
      '--data',
      '{"a":1}',
      '--token',
      token,
      '--secret',
      SECRET,
      '--ignore-expiry',
    ]);
    assert.equal(ignored.code, 0);
  });

  it('refuses a far-future iat (issued_in_future) unless --allow-future-iat', async () => {
    const token = await sign('{"a":1}', 1700000000);
    const args = ['verify', '--data', '{"a":1}', '--token', token, '--secret', SECRET, '--now', '1699999000'];
    const refused = await runInProcess([...args, '--json']);
    assert.equal(refused.code, 1);
    assert.equal(JSON.parse(refused.stdout).code, 'issued_in_future');
    const allowed = await runInProcess([...args, '--allow-future-iat']);
    assert.equal(allowed.code, 0, allowed.stdout);
    assert.match(allowed.stdout, /warning:.*future/);
  });

  for (const [name, token] of [
    ['a token with 2 segments', 'aaa.bbb'],
    ['a token with 4 segments', 'aaa.bbb.ccc.ddd'],
    [
      'non-JSON claims',
      `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('hello').toString('base64url')}.sig`,
    ],
    ['alg none', makeToken({ alg: 'none', claims: { iat: 1, request_body_sha256: 'x' } })],
    ['a 1 MB token', 'a'.repeat(1024 * 1024)],
  ] as const) {
    it(`exits 1 with the verdict saying why, and no error line under it, for ${name}`, async () => {
      const tokenFile = join(dir, 'huge-token');
      writeFileSync(tokenFile, token);
      // A 1 MB argument is within Linux's per-argument limit only barely; pass big tokens via --header from a file-sized string anyway.
      const result = await runCase(name)([
        'verify',
        bodyFile,
        '--token',
        token.length > 100_000 ? token.slice(0, 100_000) : token,
        '--secret',
        SECRET,
      ]);
      assert.equal(result.code, 1, result.stderr);
      assertVerdictOnly(result);
    });
  }

  it('verifies an empty and a binary body without crashing', async () => {
    const empty = join(dir, 'empty');
    writeFileSync(empty, '');
    const emptyToken = signed('');
    assert.equal((await runInProcess(['verify', empty, '--token', emptyToken, '--secret', SECRET])).code, 0);
    const binary = join(dir, 'binary');
    writeFileSync(binary, Buffer.from([0, 1, 2, 255, 254, 0x80]));
    // In-process: a crash would surface here as a thrown error rather than a one-line refusal.
    const result = await runInProcess(['verify', binary, '--token', emptyToken, '--secret', SECRET]);
    assert.equal(result.code, 1);
    assertVerdictOnly(result);
  });

  for (const [name, args] of [
    ['no token', ['verify', 'x.json', '--secret', SECRET]],
    ['both --token and --header', ['verify', '--data', '{}', '--token', 'a', '--header', 'B: c', '--secret', SECRET]],
    ['a --header without a colon', ['verify', '--data', '{}', '--header', 'nocolon', '--secret', SECRET]],
    ['a missing body file', ['verify', 'missing.json', '--token', 'a.b.c', '--secret', SECRET]],
    ['a negative tolerance', ['verify', '--data', '{}', '--token', 'a.b.c', '--secret', SECRET, '--tolerance', '-5']],
    ['an unknown environment', ['verify', '--data', '{}', '--token', 'a.b.c', '--env', 'staging']],
  ] as const) {
    it(`exits 2 with one line for ${name}`, async () => {
      const result = await (SPAWNED.has(name) ? runCli([...args], { cwd: dir }) : runInProcess([...args]));
      assert.equal(result.code, 2, result.stderr);
      assertOneLineError(result);
    });
  }
});

describe('ledgerhook config', () => {
  it('stores per environment, masks secrets, and creates the file 0600', async () => {
    const configDir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: configDir };
    assert.equal(
      (await runInProcess(['config', 'set', 'baseUrl', 'https://sandbox.example.com/rest/v5'], { env })).code,
      0,
    );
    assert.equal((await runInProcess(['config', 'set', 'webhookSecret', SECRET], { env })).code, 0);
    assert.equal(
      (
        await runInProcess(['config', 'set', 'token', 'prod-token-abcdefghijklmnopqrstuvwxyz', '--env', 'production'], {
          env,
        })
      ).code,
      0,
    );
    const list = await runInProcess(['config', 'list', '--json'], { env });
    const parsed = JSON.parse(list.stdout);
    assert.equal(parsed.environments.sandbox.baseUrl, 'https://sandbox.example.com/rest/v5');
    assert.match(parsed.environments.sandbox.webhookSecret, /^set \(fingerprint [0-9a-f]{8}\)$/);
    assert.ok(!list.stdout.includes(SECRET) && !list.stdout.includes('prod-token-abcdefghijklmnopqrstuvwxyz'));
    const get = await runInProcess(['config', 'get', 'baseUrl'], { env });
    assert.equal(get.stdout.trim(), 'https://sandbox.example.com/rest/v5');
    const path = (await runInProcess(['config', 'path'], { env })).stdout.trim();
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal((await runInProcess(['config', 'unset', 'baseUrl'], { env })).code, 0);
    const missing = await runInProcess(['config', 'get', 'baseUrl'], { env });
    assert.equal(missing.code, 2);
    assertOneLineError(missing);
  });

  it('refuses unknown keys, bad URLs and a corrupt settings file with one line', async () => {
    const configDir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: configDir };
    for (const args of [
      ['config', 'set', 'colour', 'x'],
      ['config', 'set', 'baseUrl', 'not a url'],
    ]) {
      const result = await runInProcess(args, { env });
      assert.equal(result.code, 2);
      assertOneLineError(result);
    }
    writeFileSync(join(configDir, 'settings.json'), '{ not json');
    const corrupt = await runInProcess(['config', 'list'], { env });
    assert.equal(corrupt.code, 2);
    assertOneLineError(corrupt);
  });

  it('flags beat the environment variable, which beats settings', async () => {
    const configDir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: configDir };
    await runInProcess(['config', 'set', 'webhookSecret', 'from-settings'], { env });
    const token = signed('{}', Math.floor(Date.now() / 1000), 'from-flag');
    assert.equal(
      (await runInProcess(['verify', '--data', '{}', '--token', token, '--secret', 'from-flag'], { env })).code,
      0,
    );
    const viaEnv = await runInProcess(['verify', '--data', '{}', '--token', token], {
      env: { ...env, LEDGERHOOK_WEBHOOK_SECRET: 'from-flag' },
    });
    assert.equal(viaEnv.code, 0);
    const viaSettings = await runInProcess(['verify', '--data', '{}', '--token', token], { env });
    assert.equal(viaSettings.code, 1);
  });
});

describe('ledgerhook (top level)', () => {
  it('prints help with exit codes, and a command --help has an example', async () => {
    // Every command's and subcommand's help page is checked in-process in help-and-validation.test.ts.
    // The top-level help (its exit-code text is added by main.ts alone) spawns; `sign --help` is in-process.
    const [help, sub] = await Promise.all([runCli(['--help']), runInProcess(['sign', '--help'])]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Exit codes/);
    const commands = [...help.stdout.matchAll(/^ {2}(\w[\w-]*) /gm)].map((match) => match[1] ?? '');
    assert.ok(commands.includes('sign') && commands.includes('verify') && commands.includes('config'));
    assert.equal(sub.code, 0);
    assert.match(sub.stdout, /Examples:\n( {2}#.*\n)* {2}\$ ledgerhook /, 'sign --help has an example');
  });

  it('exits 2 with one line for an unknown command', async () => {
    const result = await runInProcess(['frobnicate']);
    assert.equal(result.code, 2);
    assertOneLineError(result);
  });
});
