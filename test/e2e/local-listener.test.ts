/**
 * `send-sample ENTITY_UPDATE` (no --to) and `--to localhost` reach the `ledgerhook listen` running on
 * this machine: listen records its loopback address in the configuration directory, per environment,
 * and removes it on exit. A record that is stale, hostile or not on loopback is ignored; with none,
 * listen's default port is tried and, when nothing answers there, the error says which port and how
 * to start listen. The sends that could reach listen's default port (4000, shared by everyone on this
 * machine) run in a network namespace of their own (`unshare -n`, loopback only).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_LISTEN_PORT } from '../../src/defaults.js';
import { assertOneLineError, BIN, type CliResult, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess, startInProcess } from '../helpers/in-process-cli.js';

/** `unshare -n` with loopback up, or the reason it cannot run here (said once, loudly). */
const isolation = (() => {
  const probe = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
  if (probe.status === 0) return false;
  const line = `SKIPPING isolated sends: unshare -n is not available (${(probe.stderr || String(probe.error)).trim()})`;
  if (process.env.LEDGERHOOK_REQUIRE_SERVICES === '1') throw new Error(line);
  console.error(`\n*** ${line} ***\n`);
  return line;
})();

/** The built CLI in a network namespace of its own: only its own loopback exists there. */
function runIsolated(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'unshare',
      ['-n', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, BIN, ...args],
      {
        // A secret of its own: the sends say only what they are about, not the local secret's first-use notes.
        env: { ...process.env, NO_COLOR: '1', LEDGERHOOK_WEBHOOK_SECRET: 'whsec_isolated_send', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const record = (config: string, env = 'local') => join(config, `listen-${env}.json`);

describe('send-sample finds the listen running here', () => {
  it('no --to, and --to localhost, reach the recorded listener; the record is gone once listen stops', async () => {
    const config = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: config };
    const listen = startCli(['listen', '--port', '0', '--json'], { env });
    try {
      const ready = await listen.waitFor((line) => line?.kind === 'listening');
      const saved = JSON.parse(readFileSync(record(config), 'utf8'));
      assert.equal(saved.url, ready.url);
      assert.equal(statSync(record(config)).mode & 0o777, 0o600);
      for (const args of [
        ['send-sample', 'ENTITY_UPDATE'],
        ['send-sample', 'INVOICE_VIEWED', '--to', 'localhost'],
      ]) {
        const sent = await runInProcess(args, { env });
        assert.equal(sent.code, 0, sent.stderr);
        assert.ok(sent.stdout.startsWith(`POST ${ready.url} `), sent.stdout);
      }
      const deliveries = () => listen.lines.map((line) => JSON.parse(line)).filter((line) => line.kind === 'delivery');
      await listen.waitFor(() => deliveries().length === 2);
      // Signed with the same local development secret listen verifies with.
      assert.deepEqual(
        deliveries().map((delivery) => delivery.verdict.valid),
        [true, true],
      );
    } finally {
      await listen.stop();
    }
    assert.equal(existsSync(record(config)), false, 'removed on exit');
  });

  it('nothing recorded and nothing on the default port: says which port was tried and how to start listen', {
    skip: isolation,
  }, async () => {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
    for (const args of [
      ['send-sample', 'ENTITY_UPDATE'],
      ['send-sample', 'ENTITY_UPDATE', '--count', '2'],
    ]) {
      const result = await runIsolated(args, env);
      assert.equal(result.code, 3, result.stderr);
      assertOneLineError(result);
      assert.match(
        result.stderr,
        new RegExp(
          `nothing is listening on 127\\.0\\.0\\.1:${DEFAULT_LISTEN_PORT}, the port \`ledgerhook listen\` uses by default`,
        ),
      );
      assert.match(result.stderr, /start one with `ledgerhook listen` in another terminal/);
    }
  });

  it('a record of a dead process, one pointing off this machine, or a symlink is ignored', {
    skip: isolation,
  }, async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const cases: Array<[string, (file: string) => void]> = [
      [
        'dead process',
        (file) => writeFileSync(file, JSON.stringify({ pid: Number(dead.stdout), url: 'http://127.0.0.1:4999/' })),
      ],
      // This test's own process is alive: only the address decides.
      [
        'remote host',
        (file) => writeFileSync(file, JSON.stringify({ pid: process.pid, url: 'http://198.51.100.7:4000/' })),
      ],
      [
        'credentials',
        (file) => writeFileSync(file, JSON.stringify({ pid: process.pid, url: 'http://u:p@127.0.0.1:4999/' })),
      ],
      ['not JSON', (file) => writeFileSync(file, 'http://127.0.0.1:4999/')],
      [
        'symlink',
        (file) => {
          const real = join(tempDir(), 'elsewhere.json');
          writeFileSync(real, JSON.stringify({ pid: process.pid, url: 'http://127.0.0.1:4999/' }));
          symlinkSync(real, file);
        },
      ],
    ];
    for (const [name, write] of cases) {
      const config = tempDir();
      write(record(config));
      const result = await runIsolated(['send-sample', 'ENTITY_UPDATE'], { LEDGERHOOK_CONFIG_DIR: config });
      assert.equal(result.code, 3, `${name}: ${result.stderr}`);
      // The resolved target is listen's default port, never the record's address.
      assert.ok(
        result.stdout.startsWith(`POST http://127.0.0.1:${DEFAULT_LISTEN_PORT}/ `),
        `${name}: ${result.stdout}`,
      );
    }
  });
});

describe('listen prints the local development secret, and only that one', () => {
  it('local: on start, once, as stripe listen prints its whsec_ (JSON: localWebhookSecret)', async () => {
    const config = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: config };
    const human = startCli(['listen', '--port', '0'], { env });
    try {
      await human.waitForStderr(/Ctrl-C to stop/);
      const secret = readFileSync(join(config, 'local-webhook.secret'), 'utf8').trim();
      const lines = human
        .stderr()
        .split('\n')
        .filter((line) => line.includes(secret));
      assert.equal(lines.length, 1, human.stderr());
      assert.match(
        lines[0] ?? '',
        /^your local development webhook secret is whsec_[0-9a-f]{64} \(give it to your app/,
      );
    } finally {
      await human.stop();
    }
    const json = startCli(['listen', '--port', '0', '--json'], { env });
    try {
      const ready = await json.waitFor((line) => line?.kind === 'listening');
      assert.equal(ready.localWebhookSecret, readFileSync(join(config, 'local-webhook.secret'), 'utf8').trim());
    } finally {
      await json.stop();
    }
  });

  it('sandbox, production, a --secret-file or the variable: never printed', async () => {
    const secret = 'whsec_sandbox_never_printed_0123456789';
    const config = tempDir();
    const file = join(tempDir(), 'secret');
    writeFileSync(file, `${secret}\n`);
    for (const env of ['sandbox', 'production'])
      assert.equal(
        (
          await runInProcess(['config', 'set', 'webhookSecret', '-', '--env', env], {
            env: { LEDGERHOOK_CONFIG_DIR: config },
            input: secret,
          })
        ).code,
        0,
      );
    const runs: Array<[string[], Record<string, string>]> = [
      [['listen', '--port', '0', '--env', 'sandbox'], {}],
      [['listen', '--port', '0', '--env', 'production', '--json'], {}],
      [['listen', '--port', '0', '--secret-file', file], {}],
      [['listen', '--port', '0', '--json'], { LEDGERHOOK_WEBHOOK_SECRET: secret }],
    ];
    // In-process: the same command module, started and stopped as the bin would run it (the test above
    // starts the bin).
    for (const [args, extra] of runs) {
      const listen = startInProcess([...args], { env: { LEDGERHOOK_CONFIG_DIR: config, ...extra } });
      try {
        if (args.includes('--json')) {
          const ready = await listen.waitFor((line) => line?.kind === 'listening');
          assert.equal(ready.localWebhookSecret, undefined);
        } else await listen.waitForStderr(/Ctrl-C to stop/);
      } finally {
        await listen.stop();
      }
      for (const output of [listen.stderr(), listen.lines.join('\n')])
        assert.ok(!output.includes(secret) && !/whsec_/.test(output), `${args.join(' ')}: ${output}`);
    }
  });
});
