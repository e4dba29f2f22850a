/**
 * A plain command line is parsed without commander (src/cli/plain-command.ts, commander-lite.ts). What a
 * user sees must not depend on which parser ran: each command line here runs twice as a real process,
 * once as usual and once with LEDGERHOOK_PLAIN_START=0 (always commander), and stdout, stderr and the
 * exit code must be the same to the byte. The lines cover both: plain ones (verify: authentic, forged,
 * expired, --json, stdin, a header line, repeated secrets, a secret file, an unreadable file; sign,
 * events, a required flag given, subcommands: state, config, captures) and ones handed to commander
 * (help, a typo, a bad number, a missing required flag, a flag before a subcommand's name).
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { signWebhook } from '../../src/index.js';
import { runCli, tempDir } from '../helpers/cli.js';

const NOW = 1_700_000_000;

test('the same bytes and exit code from either parser', async () => {
  const dir = tempDir();
  const body = '{"userId":"u-1","type":"ENTITY_UPDATE","entities":["expense"]}';
  const file = join(dir, 'body.json');
  writeFileSync(file, body);
  writeFileSync(join(dir, 'secret'), 'whsec-test\n');
  const token = await signWebhook(body, 'whsec-test', { iat: NOW - 10 });
  const old = await signWebhook(body, 'whsec-test', { iat: NOW - 4000 });
  const at = ['--now', String(NOW)];
  const lines: Array<{ args: string[]; input?: string }> = [
    { args: ['verify', file, '--token', token, '--secret', 'whsec-test', ...at] },
    { args: ['verify', file, '--token', token, '--secret', 'wrong', '--secret', 'whsec-test', ...at, '--json'] },
    { args: ['verify', file, '--token', token, '--secret', 'wrong', ...at] },
    { args: ['verify', file, '--token', token, '--secret', 'wrong', ...at, '--json'] },
    { args: ['verify', file, `--token=${old}`, `--secret-file=${join(dir, 'secret')}`, ...at] },
    { args: ['verify', file, '--token', old, '--secret-file', join(dir, 'secret'), '--tolerance', '5000', ...at] },
    { args: ['verify', '-', '--token', token, '--secret', 'whsec-test', ...at], input: body },
    { args: ['verify', '--data', body, '--header', `Service-Verification: ${token}`, '--secret', 'whsec-test', ...at] },
    { args: ['verify', join(dir, 'missing.json'), '--token', token, '--secret', 'whsec-test', ...at] },
    { args: ['verify', file, '--secret', 'whsec-test', ...at] },
    { args: ['verify', file, '--token', token, '--secret', 'whsec-test', '--now', '0', '--ignore-expiry'] },
    // Handed on to commander by the plain start: its own words either way.
    { args: ['verify', '--help'] },
    { args: ['verify', file, '--tokn', token] },
    { args: ['verify', file, '--token', token, '--tolerance', 'soon'] },
    { args: ['verify', file, '--token', token, '--secret', 'whsec-test', ...at, '--debug'] },
    { args: ['sign', file, '--secret', 'whsec-test', '--iat', String(NOW)] },
    { args: ['sign', file, '--secret', 'whsec-test', '--iat', String(NOW), '--format', 'curl', '--json'] },
    { args: ['sign', file, '--secret', 'whsec-test', '--format', 'yaml'] },
    { args: ['events', '--json'] },
    { args: ['entities'] },
    { args: ['replay', join(dir, 'missing.jsonl'), '--to', '127.0.0.1:9'] },
    { args: ['check-receiver', '--secret', 'whsec-test'] },
    { args: ['state', 'list', '--json'] },
    { args: ['state', 'show', 'expense'] },
    { args: ['config', 'get', 'baseUrl', '--env', 'sandbox'] },
    { args: ['config', 'path'] },
    { args: ['captures', 'list', join(dir, 'missing.jsonl')] },
    { args: ['state', '--json', 'list'] },
    { args: ['demo', 'extra'] },
  ];
  for (const { args, input } of lines) {
    // One settings directory for both: it is named in some outputs (state list). Each run starts with
    // no note said yet (notices.json: a --secret warning is said once per configuration), so they run in turn.
    const config = tempDir('ledgerhook-config-');
    const options = input === undefined ? {} : { input };
    const fresh = (extra: Record<string, string> = {}) => {
      rmSync(join(config, 'notices.json'), { force: true });
      return runCli(args, { ...options, env: { LEDGERHOOK_CONFIG_DIR: config, ...extra } });
    };
    const plain = await fresh();
    const usual = await fresh({ LEDGERHOOK_PLAIN_START: '0' });
    const label = args.map((arg) => (arg.length > 40 ? `${arg.slice(0, 12)}…` : arg)).join(' ');
    assert.deepEqual(plain, usual, label);
    assert.ok(plain.stdout !== '' || plain.stderr !== '', `${label}: printed something`);
  }
});

test('--json is what the parse says: `--data --json` gives --data that value, and prints no JSON document', async () => {
  const result = await runCli(['verify', '--data', '--json', '--token', 'abc', '--secret', 'whsec-test']);
  assert.equal(result.code, 1);
  assert.match(result.stdout, /not authentic/);
  assert.doesNotMatch(result.stdout, /"ok"/);
});
