/**
 * Notes are said once per configuration, not on every run (remembered in the configuration directory,
 * settings/notices.ts), and `verify` adds no `error:` line under a verdict that already says why.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const SECRET = 'whsec_say_once_0123456789';
const BODY = '{"userId":"user_1","type":"ENTITY_UPDATE","entities":["expense"]}';
const count = (text: string, pattern: RegExp) => text.split('\n').filter((line) => pattern.test(line)).length;

describe('say it once', () => {
  it('the local-environment note: the first run of a configuration, not the next ones', async () => {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    // The first run is the built bin's; the notes are remembered in the configuration directory, so
    // the runs after it prove the same in-process.
    const runs = [await runCli(['sign', '--data', BODY], { env })];
    for (let run = 1; run < 3; run += 1) runs.push(await runInProcess(['sign', '--data', BODY], { env }));
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      runs.map((run) => count(run.stderr, /^using the local environment/)),
      [1, 0, 0],
    );
    // Another configuration directory is another configuration: told again there.
    const other = await runInProcess(['sign', '--data', BODY], { env: { LEDGERHOOK_CONFIG_DIR: tempDir() } });
    assert.equal(count(other.stderr, /^using the local environment/), 1);
  });

  it('the --secret and --token warnings: once per configuration and flag', async () => {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const first = await runInProcess(['sign', '--data', BODY, '--secret', SECRET], { env });
    const second = await runInProcess(['sign', '--data', BODY, '--secret', SECRET], { env });
    // Against a closed port, no waiting: the warning comes before the first request.
    const syncWithToken = () =>
      runInProcess(
        [
          'sync',
          'expenses',
          '--token',
          'tok_x',
          '--base-url',
          'http://127.0.0.1:1/rest/v5',
          '--out',
          tempDir(),
          '--max-wait',
          '0',
        ],
        { env },
      );
    const token = await syncWithToken();
    const tokenAgain = await syncWithToken();
    assert.equal(count(first.stderr, /^warning: --secret puts the value/), 1, first.stderr);
    assert.equal(count(second.stderr, /^warning: --secret/), 0, second.stderr);
    assert.equal(count(token.stderr, /^warning: --token puts the value/), 1, token.stderr);
    assert.equal(count(tokenAgain.stderr, /^warning: --token/), 0, tokenAgain.stderr);
    for (const run of [first, second, token, tokenAgain]) assert.ok(!run.stderr.includes(SECRET));
  });

  it('a hostile or unwritable notices file only means the note is said again', async () => {
    const dir = tempDir();
    writeFileSync(`${dir}/notices.json`, '{"said": "not a list"}');
    const env = { LEDGERHOOK_CONFIG_DIR: dir };
    const run = await runInProcess(['sign', '--data', BODY], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(count(run.stderr, /^using the local environment/), 1);
    assert.equal(
      count((await runInProcess(['sign', '--data', BODY], { env })).stderr, /^using the local environment/),
      0,
    );
    // A notices file that cannot be written (a directory stands in its place): said each time, never a failure.
    const blocked = tempDir();
    mkdirSync(`${blocked}/notices.json`);
    for (let run = 0; run < 2; run += 1) {
      const result = await runInProcess(['sign', '--data', BODY, '--secret', SECRET], {
        env: { LEDGERHOOK_CONFIG_DIR: blocked },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(count(result.stderr, /^warning: --secret/), 1, result.stderr);
    }
  });

  it('verify: the verdict says why; no error: line under it (with --json, stderr keeps the one line)', async () => {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    const signed = await runInProcess(['sign', '--data', BODY, '--secret', 'the-other-secret'], { env });
    const token = signed.stdout.trim();
    const result = await runInProcess(['verify', '--data', BODY, '--token', token, '--secret', SECRET], { env });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /not authentic \(bad_signature\)/);
    assert.doesNotMatch(result.stderr, /^error:/m);
    const json = await runInProcess(['verify', '--data', BODY, '--token', token, '--secret', SECRET, '--json'], {
      env,
    });
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stdout).error.reason, 'webhook_not_authentic');
    assert.match(json.stderr, /^error: webhook is not authentic: bad_signature$/m);
  });
});
