/**
 * `ledgerhook probe` as a user runs it (the built CLI), against a server that is not the mock and
 * against `ledgerhook mock` with its quirk flags: the report names each quirk, --write stores the
 * settings, a second run says what changed, and `sync expenses --type PENDING` with no extra flag
 * then converges, a change made in the same second as a read's stamp included.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertOneLineError, runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess, startInProcess } from '../helpers/in-process-cli.js';
import { type Quirks, startQuirkyServer } from '../helpers/quirky-list-server.js';

const settingsOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'));

describe('ledgerhook probe against a service that is not the mock', () => {
  it('names each quirk, --write stores the settings, a second run says what changed, sync converges', async () => {
    const clock = { now: Date.parse('2026-11-24T10:00:05.200Z') };
    const quirks: Quirks = {
      now: () => clock.now,
      expensePath: '/expenses/expenses',
      maxLimit: 50,
      seconds: true,
      cursorEnd: 'null',
      html: true,
      rateHeaders: 'ietf',
      rate: { requests: 600, windowSeconds: 60 },
      singleUseCursors: 409,
      items: 130,
    };
    const server = await startQuirkyServer(quirks);
    const config = tempDir();
    const cwd = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: config, LEDGERHOOK_TOKEN: server.token };
    try {
      // Without --write: every quirk named, the settings it needs listed, exit 1. The built bin here; the
      // runs after it in-process (the same definitions, command modules and error mapping).
      const first = await runCli(['probe', '--env', 'sandbox', '--base-url', server.baseUrl], { env, cwd });
      assert.equal(first.code, 1, first.stderr);
      for (const quirk of [
        'nested-path',
        'limit-400-above-max',
        'cursor-null',
        'cursor-single-use',
        'whole-second-timestamps',
        'rate-limit-headers',
        'html-errors',
      ])
        assert.match(first.stdout, new RegExp(`\\[${quirk}\\]`), `${quirk} in\n${first.stdout}`);
      assert.match(first.stdout, /→ paths\.expense \/expenses\/expenses \(not set, needed\)/);
      assert.match(first.stdout, /→ lag 1s \(not set, needed\)/);
      assertOneLineError(first);
      assert.match(
        first.stderr,
        /sandbox is not ready to sync: .*paths\.expense.*lag.* needed and not set; run `ledgerhook probe --write`/,
      );

      const written = await runInProcess(
        ['probe', '--env', 'sandbox', '--base-url', server.baseUrl, '--write', '--json'],
        {
          env,
        },
      );
      assert.equal(written.code, 0, written.stderr);
      const report = JSON.parse(written.stdout);
      assert.equal(report.ok, true);
      assert.equal(report.ready, true);
      assert.ok(report.requests <= 60);
      assert.deepEqual(settingsOf(config).environments.sandbox, {
        baseUrl: server.baseUrl,
        'paths.expense': '/expenses/expenses',
        pageLimit: '50',
        expiredCursorStatuses: '400,404,409,410,422',
        lag: '1s',
        rateLimit: '600/60',
      });
      assert.deepEqual(report.wrote, settingsOf(config).environments.sandbox);
      assert.equal(settingsOf(config).probes.sandbox.at.slice(0, 4), new Date().toISOString().slice(0, 4));

      // The service changes: the next run (no flag but the token) says what.
      quirks.maxLimit = 40;
      const second = await runInProcess(['probe'], { env });
      assert.equal(second.code, 1, second.stderr);
      assert.match(second.stdout, /since the probe of .* \(which wrote .*pageLimit.*\): changed/);
      assert.match(second.stdout, /page-size: limit-400-above-max, pageLimit 50 → limit-400-above-max, pageLimit 40/);
      assert.match(second.stdout, /→ pageLimit 40 \(set to 50, needed\)/);
      quirks.maxLimit = 50;

      // sync with no extra flag: the path, the page size, the lag, the paced rate all come from the settings.
      // --out: the directory the bin would make in its working directory.
      const sync = ['sync', 'expenses', '--type', 'PENDING', '--json', '--out', join(cwd, 'ledgerhook-data')];
      const full = await runInProcess(sync, { env });
      assert.equal(full.code, 0, full.stderr);
      assert.equal(JSON.parse(full.stdout).mode, 'full');
      assert.ok(server.log().some((entry) => entry.limit === '50'));
      clock.now = Date.parse('2026-11-24T10:00:05.800Z');
      server.edit(1, { amount: 1001 }); // in the second the read was stamped with
      server.edit(3, { type: 'BUSINESS' }); // leaves the PENDING dataset in that second too
      clock.now = Date.parse('2026-11-24T10:00:12.000Z');
      const next = await runInProcess(sync, { env });
      assert.equal(next.code, 0, next.stderr);
      const summary = JSON.parse(next.stdout);
      assert.equal(summary.mode, 'incremental');
      assert.deepEqual(JSON.parse(readFileSync(summary.file, 'utf8')), server.truth('PENDING'));
    } finally {
      await server.close();
    }
  });

  it('a refused token: one line, exit 3, the report so far in --json', async () => {
    const server = await startQuirkyServer({ authStatus: 403 });
    try {
      const env = { LEDGERHOOK_TOKEN: 'wrong' };
      const human = await runInProcess(['probe', '--env', 'sandbox', '--base-url', server.baseUrl], { env });
      assert.equal(human.code, 3);
      assertOneLineError(human);
      assert.match(human.stderr, /answered 403.*not allowed to read it; check --token/);
      const json = await runInProcess(
        ['probe', '--env', 'sandbox', '--base-url', server.baseUrl, '--json', '--write'],
        {
          env,
        },
      );
      assert.equal(json.code, 3);
      const document = JSON.parse(json.stdout);
      assert.equal(document.ok, false);
      assert.equal(document.error.reason, 'token_rejected');
      assert.equal(document.requests, 1);
      assert.equal(document.wrote, null, 'nothing is written after a refused token');
    } finally {
      await server.close();
    }
  });

  it('--max-requests: never more, and what it did not reach is said', async () => {
    const server = await startQuirkyServer({});
    try {
      const result = await runInProcess(
        ['probe', '--env', 'sandbox', '--base-url', server.baseUrl, '--max-requests', '4'],
        {
          env: { LEDGERHOOK_TOKEN: server.token },
        },
      );
      assert.equal(server.requests(), 4);
      assert.match(result.stdout, /: 4 requests \(at most 4\)/);
      assert.match(result.stdout, /not probed: the other entities \(the budget of 4 requests was spent\)/);
      const bad = await runInProcess(['probe', '--max-requests', '0']);
      assert.equal(bad.code, 2);
    } finally {
      await server.close();
    }
  });
});

describe('ledgerhook probe against ledgerhook mock with its quirk flags', () => {
  it('whole seconds compared with >, a 50-item maximum, a rate limit: named, written, and sync converges', async () => {
    const config = tempDir();
    // The mock in-process: its quirk flags are under test here, its start as a process is json-contract.test.ts's.
    const mock = startInProcess(
      [
        'mock',
        '--port',
        '0',
        '--json',
        '--granularity',
        's',
        '--since',
        'exclusive',
        '--max-limit',
        '50',
        '--rate-limit',
        '12/1',
      ],
      { env: { LEDGERHOOK_CONFIG_DIR: config } },
    );
    try {
      const { baseUrl } = await mock.waitFor<{ baseUrl: string }>((line) => line.kind === 'listening');
      const env = { LEDGERHOOK_CONFIG_DIR: config };
      const probe = await runInProcess(['probe', '--env', 'local', '--base-url', baseUrl, '--write', '--json'], {
        env,
      });
      assert.equal(probe.code, 0, probe.stderr);
      const report = JSON.parse(probe.stdout);
      const quirks = report.findings.flatMap((finding: { quirk?: string }) => (finding.quirk ? [finding.quirk] : []));
      for (const quirk of ['whole-second-timestamps', 'limit-400-above-max', 'rate-limited'])
        assert.ok(quirks.includes(quirk), `${quirk} in ${quirks.join(', ')}`);
      const local = settingsOf(config).environments.local;
      assert.equal(local.lag, '1s');
      assert.equal(local.pageLimit, '50');
      // The window is measured on a wall clock: under load the twelve requests take longer than a second.
      assert.match(local.rateLimit, /^12\/\d+$/);
      assert.equal(local.baseUrl, baseUrl);

      // A read, then a change at once (the same second as the read's stamp, most times): the next read has it.
      const sync = ['sync', 'expenses', '--type', 'PENDING', '--env', 'local', '--json'];
      const out = tempDir();
      let sameSecond = 0;
      for (let cycle = 0; cycle < 6 && sameSecond === 0; cycle += 1) {
        const read = await runInProcess([...sync, '--out', out], { env });
        assert.equal(read.code, 0, read.stderr);
        const stamp = JSON.parse(read.stdout).lastUpdatedDate as string;
        const mutation = await fetch(new URL('/__mock/mutate', baseUrl), {
          method: 'POST',
          body: JSON.stringify({ path: '/expenses', update: 2, retype: 1 }),
        }).then((response) => response.json() as Promise<{ at: string }>);
        if (Math.floor(Date.parse(mutation.at) / 1000) === Math.floor(Date.parse(stamp) / 1000)) sameSecond += 1;
        const next = await runInProcess([...sync, '--out', out], { env });
        assert.equal(next.code, 0, next.stderr);
        const truth = await fetch(new URL('/__mock/dataset?path=/expenses&type=PENDING', baseUrl)).then((response) =>
          response.json(),
        );
        assert.deepEqual(JSON.parse(readFileSync(JSON.parse(next.stdout).file, 'utf8')), truth.data, `cycle ${cycle}`);
      }
      assert.equal(sameSecond, 1, 'a change in the same second as a read was made and read');
    } finally {
      await mock.stop();
    }
  });
});

describe('the settings probe writes, used by the commands that read the service', () => {
  it('sync keeps to the stored rateLimit and asks for the stored pageLimit', async () => {
    const server = await startQuirkyServer({ items: 120 });
    const config = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: config, LEDGERHOOK_TOKEN: server.token };
    try {
      const settings: Array<[string, string]> = [
        ['baseUrl', server.baseUrl],
        ['pageLimit', '40'],
        ['rateLimit', '2/1'],
      ];
      for (const [key, value] of settings)
        assert.equal((await runInProcess(['config', 'set', key, value, '--env', 'sandbox'], { env })).code, 0);
      const result = await runInProcess(['sync', 'expenses', '--out', tempDir()], { env });
      assert.equal(result.code, 0, result.stderr);
      const log = server.log();
      assert.deepEqual(
        log.map((entry) => entry.limit),
        ['40', '40', '40'],
      );
      // Two at once (the rate's burst), the third sent half a second later at the earliest; arrivals
      // are stamped by the server, where a loaded machine can delay the first one by a little.
      assert.ok((log[2]?.at ?? 0) - (log[0]?.at ?? 0) >= 350, `${(log[2]?.at ?? 0) - (log[0]?.at ?? 0)} ms`);
    } finally {
      await server.close();
    }
  });

  it('a page size the service refuses names the pageLimit setting; a bad value is refused by config set', async () => {
    const server = await startQuirkyServer({ maxLimit: 50 });
    try {
      const env = { LEDGERHOOK_TOKEN: server.token };
      const result = await runInProcess(['sync', 'expenses', '--base-url', server.baseUrl, '--out', tempDir()], {
        env,
      });
      assert.equal(result.code, 3);
      assertOneLineError(result);
      assert.match(result.stderr, /answered 400.*limit must be at most 50.*ledgerhook config set pageLimit N/);
      const refused: Array<[string, string]> = [
        ['lag', 'soon'],
        ['pageLimit', '0'],
        ['rateLimit', '5'],
        ['tolerance', '-1'],
      ];
      for (const [key, value] of refused) {
        const bad = await runInProcess(['config', 'set', key, value]);
        assert.equal(bad.code, 2, `${key} ${value}`);
        assert.match(bad.stderr, new RegExp(`${key}: `));
      }
    } finally {
      await server.close();
    }
  });

  it('listen and verify use the stored tolerance', async () => {
    const config = tempDir();
    const env = { LEDGERHOOK_CONFIG_DIR: config };
    const secretFile = join(tempDir(), 'secret');
    writeFileSync(secretFile, 'whsec_tolerance');
    const body = JSON.stringify({ userId: 'u1', type: 'ENTITY_UPDATE', entities: ['expense'] });
    const iat = String(Math.floor(Date.now() / 1000) - 400);
    const signed = await runInProcess(['sign', '--data', body, '--secret-file', secretFile, '--iat', iat], { env });
    const token = signed.stdout.trim();
    const verify = ['verify', '--data', body, '--token', token, '--secret-file', secretFile, '--env', 'sandbox'];
    const expired = await runInProcess(verify, { env });
    assert.equal(expired.code, 1);
    assert.match(expired.stdout + expired.stderr, /expired/);
    assert.equal((await runInProcess(['config', 'set', 'tolerance', '600', '--env', 'sandbox'], { env })).code, 0);
    const accepted = await runInProcess(verify, { env });
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
    assert.equal((await runInProcess([...verify, '--tolerance', '300'], { env })).code, 1, 'the flag still wins');
    const listen = startCli(['listen', '--port', '0', '--json', '--secret-file', secretFile, '--env', 'sandbox'], {
      env,
    });
    try {
      const { url } = await listen.waitFor<{ url: string }>((line) => line.kind === 'listening');
      const answer = await fetch(url, { method: 'POST', body, headers: { 'service-verification': token } });
      assert.equal(answer.status, 200, 'a delivery 400 s old, within the stored 600 s');
    } finally {
      await listen.stop();
    }
  });
});
