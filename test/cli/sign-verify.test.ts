import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { independentVerify, makeToken, bodyHash } from '../helpers/independent-jwt.js';

const SECRET = 'whsec_cli_test_secret_0123456789';
const dir = tempDir();
const bodyFile = join(dir, 'body.json');
const BODY = '{"userId":"u-1","type":"ENTITY_UPDATE","entities":["expense"]}\n';
writeFileSync(bodyFile, BODY);
const secretFile = join(dir, 'secret');
writeFileSync(secretFile, `${SECRET}\n`);

describe('ledgerhook sign', () => {
  it('prints a token an independent verifier accepts, for a file and for stdin', async () => {
    const fromFile = await runCli(['sign', bodyFile, '--secret-file', secretFile, '--iat', '1700000000']);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const token = fromFile.stdout.trim();
    assert.deepEqual(independentVerify(token, SECRET), { iat: 1700000000, request_body_sha256: bodyHash(BODY) });
    const fromStdin = await runCli(['sign', '-', '--iat', '1700000000'], { input: BODY, env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET } });
    assert.equal(fromStdin.stdout.trim(), token);
  });

  it('prints a header line, JSON and a curl command', async () => {
    const header = await runCli(['sign', '--data', '{"a":1}', '--secret', SECRET, '--format', 'header', '--header-name', 'Acme-Verification']);
    assert.match(header.stdout, /^Acme-Verification: ey[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const json = await runCli(['sign', '--data', '{"a":1}', '--secret', SECRET, '--format', 'json']);
    const parsed = JSON.parse(json.stdout);
    assert.equal(parsed.headerName, 'Service-Verification');
    assert.equal(parsed.claims.request_body_sha256, bodyHash('{"a":1}'));
    const curl = await runCli(['sign', bodyFile, '--secret', SECRET, '--format', 'curl', '--url', 'http://localhost:3000/hook']);
    assert.match(curl.stdout, /^curl -sS -X POST http:\/\/localhost:3000\/hook .*'Service-Verification: ey.*--data-binary @/);
  });

  it('never prints the secret', async () => {
    const result = await runCli(['sign', bodyFile, '--secret', SECRET, '--format', 'json']);
    assert.ok(!result.stdout.includes(SECRET) && !result.stderr.includes(SECRET));
  });

  for (const [name, args, input] of [
    ['no body', ['sign', '--secret', SECRET], ''],
    ['a missing file', ['sign', join(dir, 'nope.json'), '--secret', SECRET], ''],
    ['--data that is not JSON', ['sign', '--data', '{oops', '--secret', SECRET], ''],
    ['no secret anywhere', ['sign', bodyFile], ''],
    ['an unknown format', ['sign', bodyFile, '--secret', SECRET, '--format', 'xml'], ''],
    ['an iat that is not a number', ['sign', bodyFile, '--secret', SECRET, '--iat', 'yesterday'], ''],
    ['an unknown option', ['sign', bodyFile, '--sekret', SECRET], ''],
  ] as const) {
    it(`exits 2 with one line for ${name}`, async () => {
      const result = await runCli([...args], { input });
      assert.equal(result.code, 2, result.stderr);
      assertOneLineError(result);
      assert.equal(result.stdout, '');
    });
  }
});

describe('ledgerhook verify', () => {
  const sign = async (body: string, extra: string[] = []) => (await runCli(['sign', '--data', body, '--secret', SECRET, ...extra])).stdout.trim();

  it('exits 0 and explains every check for an authentic delivery', async () => {
    const token = (await runCli(['sign', bodyFile, '--secret', SECRET])).stdout.trim();
    const result = await runCli(['verify', bodyFile, '--token', token, '--secret-file', secretFile]);
    assert.equal(result.code, 0, result.stderr);
    for (const check of ['token', 'algorithm', 'signature', 'claims', 'freshness', 'integrity']) assert.match(result.stdout, new RegExp(`✔ ${check}`));
    assert.match(result.stdout, /authentic/);
  });

  it('accepts --header and the settings of an environment', async () => {
    const configDir = tempDir();
    const set = await runCli(['config', 'set', 'webhookSecret', '-', '--env', 'production'], { input: `${SECRET}\n`, env: { LEDGERHOOK_CONFIG_DIR: configDir } });
    assert.equal(set.code, 0, set.stderr);
    const token = await sign('{"a":1}');
    const result = await runCli(['verify', '--data', '{"a":1}', '--header', `Service-Verification: ${token}`, '--env', 'production', '--json'], { env: { LEDGERHOOK_CONFIG_DIR: configDir } });
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
    await runCli(['config', 'set', 'webhookSecret', 'the-sandbox-secret'], { env: { LEDGERHOOK_CONFIG_DIR: configDir } });
    await runCli(['config', 'set', 'webhookSecret', SECRET, '--env', 'production'], { env: { LEDGERHOOK_CONFIG_DIR: configDir } });
    const token = await sign('{"a":1}');
    const result = await runCli(['verify', '--data', '{"a":1}', '--token', token], { env: { LEDGERHOOK_CONFIG_DIR: configDir } });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /bad_signature/);
    assert.match(result.stdout, /production secret/);
  });

  it('reports expiry with the age, honours --now, --tolerance and --ignore-expiry', async () => {
    const token = await sign('{"a":1}', ['--iat', '1700000000']);
    const expired = await runCli(['verify', '--data', '{"a":1}', '--token', token, '--secret', SECRET, '--now', '1700000300', '--json']);
    assert.equal(expired.code, 1);
    assert.equal(JSON.parse(expired.stdout).code, 'expired');
    assert.equal(JSON.parse(expired.stdout).ageSeconds, 300);
    const inside = await runCli(['verify', '--data', '{"a":1}', '--token', token, '--secret', SECRET, '--now', '1700000599', '--tolerance', '600']);
    assert.equal(inside.code, 0, inside.stdout);
    const ignored = await runCli(['verify', '--data', '{"a":1}', '--token', token, '--secret', SECRET, '--ignore-expiry']);
    assert.equal(ignored.code, 0);
  });

  it('fails a far-future iat only with --strict', async () => {
    const token = await sign('{"a":1}', ['--iat', '1700000000']);
    const lenient = await runCli(['verify', '--data', '{"a":1}', '--token', token, '--secret', SECRET, '--now', '1699999000']);
    assert.equal(lenient.code, 0);
    assert.match(lenient.stdout, /warning:.*future/);
    const strict = await runCli(['verify', '--data', '{"a":1}', '--token', token, '--secret', SECRET, '--now', '1699999000', '--strict']);
    assert.equal(strict.code, 1);
  });

  for (const [name, token] of [
    ['a token with 2 segments', 'aaa.bbb'],
    ['a token with 4 segments', 'aaa.bbb.ccc.ddd'],
    ['non-JSON claims', `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('hello').toString('base64url')}.sig`],
    ['alg none', makeToken({ alg: 'none', claims: { iat: 1, request_body_sha256: 'x' } })],
    ['a 1 MB token', 'a'.repeat(1024 * 1024)],
  ] as const) {
    it(`exits 1 with one error line for ${name}`, async () => {
      const tokenFile = join(dir, 'huge-token');
      writeFileSync(tokenFile, token);
      // A 1 MB argument is within Linux's per-argument limit only barely; pass big tokens via --header from a file-sized string anyway.
      const result = await runCli(['verify', bodyFile, '--token', token.length > 100_000 ? token.slice(0, 100_000) : token, '--secret', SECRET]);
      assert.equal(result.code, 1, result.stderr);
      assertOneLineError(result);
    });
  }

  it('verifies an empty and a binary body without crashing', async () => {
    const empty = join(dir, 'empty');
    writeFileSync(empty, '');
    const emptyToken = (await runCli(['sign', empty, '--secret', SECRET])).stdout.trim();
    assert.equal((await runCli(['verify', empty, '--token', emptyToken, '--secret', SECRET])).code, 0);
    const binary = join(dir, 'binary');
    writeFileSync(binary, Buffer.from([0, 1, 2, 255, 254, 0x80]));
    const result = await runCli(['verify', binary, '--token', emptyToken, '--secret', SECRET]);
    assert.equal(result.code, 1);
    assertOneLineError(result);
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
      const result = await runCli([...args], { cwd: dir });
      assert.equal(result.code, 2, result.stderr);
      assertOneLineError(result);
    });
  }
});

describe('ledgerhook config', () => {
  it('stores per environment, masks secrets, and creates the file 0600', async () => {
    const configDir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: configDir };
    assert.equal((await runCli(['config', 'set', 'baseUrl', 'https://sandbox.example.com/rest/v5'], { env })).code, 0);
    assert.equal((await runCli(['config', 'set', 'webhookSecret', SECRET], { env })).code, 0);
    assert.equal((await runCli(['config', 'set', 'token', 'prod-token-abcdefghijklmnopqrstuvwxyz', '--env', 'production'], { env })).code, 0);
    const list = await runCli(['config', 'list', '--json'], { env });
    const parsed = JSON.parse(list.stdout);
    assert.equal(parsed.environments.sandbox.baseUrl, 'https://sandbox.example.com/rest/v5');
    assert.match(parsed.environments.sandbox.webhookSecret, /^whsec…\(32 chars\)$/);
    assert.ok(!list.stdout.includes(SECRET) && !list.stdout.includes('prod-token-abcdefghijklmnopqrstuvwxyz'));
    const get = await runCli(['config', 'get', 'baseUrl'], { env });
    assert.equal(get.stdout.trim(), 'https://sandbox.example.com/rest/v5');
    const path = (await runCli(['config', 'path'], { env })).stdout.trim();
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal((await runCli(['config', 'unset', 'baseUrl'], { env })).code, 0);
    const missing = await runCli(['config', 'get', 'baseUrl'], { env });
    assert.equal(missing.code, 2);
    assertOneLineError(missing);
  });

  it('refuses unknown keys, bad URLs and a corrupt settings file with one line', async () => {
    const configDir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: configDir };
    for (const args of [['config', 'set', 'colour', 'x'], ['config', 'set', 'baseUrl', 'not a url']]) {
      const result = await runCli(args, { env });
      assert.equal(result.code, 2);
      assertOneLineError(result);
    }
    writeFileSync(join(configDir, 'settings.json'), '{ not json');
    const corrupt = await runCli(['config', 'list'], { env });
    assert.equal(corrupt.code, 2);
    assertOneLineError(corrupt);
  });

  it('flags beat the environment variable, which beats settings', async () => {
    const configDir = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: configDir };
    await runCli(['config', 'set', 'webhookSecret', 'from-settings'], { env });
    const token = (await runCli(['sign', '--data', '{}', '--secret', 'from-flag'], { env })).stdout.trim();
    assert.equal((await runCli(['verify', '--data', '{}', '--token', token, '--secret', 'from-flag'], { env })).code, 0);
    const viaEnv = await runCli(['verify', '--data', '{}', '--token', token], { env: { ...env, LEDGERHOOK_WEBHOOK_SECRET: 'from-flag' } });
    assert.equal(viaEnv.code, 0);
    const viaSettings = await runCli(['verify', '--data', '{}', '--token', token], { env });
    assert.equal(viaSettings.code, 1);
  });
});

describe('ledgerhook (top level)', () => {
  it('prints help with exit codes and an example for every command', async () => {
    const help = await runCli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Exit codes/);
    const commands = [...help.stdout.matchAll(/^  (\w[\w-]*) /gm)].map((match) => match[1]!).filter((name) => name !== 'help');
    assert.ok(commands.length >= 3);
    for (const command of commands) {
      const sub = await runCli([command, '--help']);
      assert.equal(sub.code, 0);
      assert.match(sub.stdout, /Examples:\n(  #.*\n)*  \$ ledgerhook /, `${command} --help has an example`);
    }
  });

  it('exits 2 with one line for an unknown command', async () => {
    const result = await runCli(['frobnicate']);
    assert.equal(result.code, 2);
    assertOneLineError(result);
  });
});
