import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkReceiver } from '../../src/delivery/check-receiver.js';
import { RECEIVER_CASE_TABLE } from '../../src/delivery/receiver-case-table.js';
import { assertOneLineError, runCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startSpecReceiver, type SpecReceiverOptions } from '../helpers/spec-receiver.js';

const SECRET = 'whsec_check_receiver_test';

/**
 * The command against a receiver variant. One case spawns the built CLI (`spawned`): exit 1, the --json document
 * and the one error line across a real process. The others run the same command in-process (runInProcess: same
 * definitions, command module and exit-code mapping), where a spawn only added ~0.5 s of CPU (node start, undici,
 * jose) per run; the battery itself is the same 14 HTTP requests either way.
 */
async function check(receiver: Omit<SpecReceiverOptions, 'secret'>, extra: string[] = [], spawned = false) {
  const server = await startSpecReceiver({ secret: SECRET, ...receiver });
  try {
    const args = ['check-receiver', '--to', server.url, '--secret', SECRET, '--json', ...extra];
    const result = await (spawned ? runCli(args) : runInProcess(args));
    return { result, report: result.stdout ? JSON.parse(result.stdout) : undefined };
  } finally {
    await server.close();
  }
}

/**
 * The same battery through the function the command calls: for the receiver variants, where the command adds
 * nothing the cases above and below do not already prove (exit codes, --json shape, the table).
 */
async function checkInProcess(
  receiver: Omit<SpecReceiverOptions, 'secret'>,
  options: Omit<Parameters<typeof checkReceiver>[0], 'url' | 'signing'> = {},
) {
  const server = await startSpecReceiver({ secret: SECRET, ...receiver });
  try {
    return await checkReceiver({ url: new URL(server.url), signing: { secret: SECRET }, ...options });
  } finally {
    await server.close();
  }
}

const failing = (report: { cases: Array<{ id: string; verdict: string }> }) =>
  report.cases
    .filter((c) => c.verdict !== 'pass')
    .map((c) => c.id)
    .sort();
const ids = (level: 'required' | 'recommended', expect?: 'accept' | 'reject'): string[] =>
  RECEIVER_CASE_TABLE.filter((c) => c.level === level && (expect === undefined || c.expect === expect))
    .map((c) => c.id)
    .sort();

describe('ledgerhook check-receiver', () => {
  it('passes against a receiver that follows spec 5.2 to the letter, warning about what is only advice', async () => {
    // Spec 5.2 defines only expiry (now - iat >= tolerance): a future iat is accepted by the letter.
    const { result, report } = await check({ acceptFutureIat: true });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.equal(report.passed, true);
    assert.equal(report.cases.length, RECEIVER_CASE_TABLE.length);
    assert.deepEqual(report.failed, []);
    assert.deepEqual(report.warnings, ['future-iat']);
    assert.equal(report.cases.find((c: { id: string }) => c.id === 'future-iat').level, 'recommended');

    // --strict: recommended cases fail too.
    const strict = await check({ acceptFutureIat: true }, ['--strict']);
    assert.equal(strict.result.code, 1);
    assert.deepEqual(strict.report.failed, ['future-iat']);
    assert.deepEqual(strict.report.warnings, []);
  });

  it('prints a recommended case that does not hold as a warning, and exits 0', async () => {
    const server = await startSpecReceiver({ secret: SECRET, acceptFutureIat: true });
    const result = await runInProcess(['check-receiver', '--to', server.url, '--secret', SECRET]);
    await server.close();
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /future-iat\s+recommended\s+4xx\s+200\s+warn/);
    assert.match(result.stdout, /all 14 required cases hold/);
    assert.match(
      result.stderr,
      /warning: future-iat \(recommended, beyond spec 5\.2\): accepted an invalid delivery.*--strict/,
    );
    assert.doesNotMatch(
      result.stderr + result.stdout,
      /forged/,
      'an iat in the future signed with the secret is not "forged"',
    );
  });

  it('passes, strict included, against a receiver that also refuses far-future tokens', async () => {
    const { result, report } = await check({}, ['--strict']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(failing(report), []);
  });

  it('fails a receiver that refuses a genuine delivery issued a few seconds ahead of its clock', async () => {
    const report = await checkInProcess({ refuseAnyFutureIat: true });
    assert.equal(report.passed, false);
    assert.deepEqual(report.failed, ['valid-clock-ahead']);
    const clockAhead = report.cases.find((c) => c.id === 'valid-clock-ahead');
    assert.equal(clockAhead?.level, 'required');
    assert.match(clockAhead?.detail ?? '', /a valid delivery was refused \(400\); it must be accepted/);
  });

  it('fails, naming every forgery, against a receiver that accepts everything (spawned)', async () => {
    const { result, report } = await check({ acceptAll: true }, [], true);
    assert.equal(result.code, 1);
    assert.deepEqual(failing(report), [...ids('required', 'reject'), ...ids('recommended', 'reject')].sort());
    assert.deepEqual([...report.failed].sort(), ids('required', 'reject'));
    // "forged" only for what was not signed with the secret.
    const detail = (id: string) => report.cases.find((c: { id: string }) => c.id === id).detail;
    assert.match(detail('wrong-secret'), /^accepted a forged delivery \(200\)/);
    assert.match(detail('expired'), /^accepted an invalid delivery \(200\)/);
    assert.match(detail('body-swapped'), /^accepted an altered delivery \(200\)/);
    assertOneLineError(result);
  });

  it('fails, naming exactly the cases each flawed receiver gets wrong (in-process, one table)', async () => {
    const table: Array<[Omit<SpecReceiverOptions, 'secret'>, string[]]> = [
      [{ skipExpiry: true }, ['expired', 'future-iat']],
      [{ refuseAnyFutureIat: true }, ['valid-clock-ahead']],
      [{ skipBodyHash: true }, ['body-changed', 'body-reserialised', 'body-swapped', 'hex-hash']],
      [{ anyAlgorithm: true }, ['alg-none', 'hs512']],
    ];
    for (const [receiver, expected] of table) {
      const report = await checkInProcess(receiver);
      assert.equal(report.passed, false, JSON.stringify(receiver));
      assert.deepEqual(failing(report), expected, JSON.stringify(receiver));
      assert.deepEqual(
        report.failed,
        expected.filter((id) => ids('required').includes(id)),
        JSON.stringify(receiver),
      );
    }
  });

  it('runs only the chosen cases and honours the receiver tolerance', async () => {
    // --only and --tolerance as flags, exit 0.
    const { result, report } = await check({ toleranceSeconds: 60 }, [
      '--only',
      'expired,valid-near-expiry',
      '--tolerance',
      '60',
    ]);
    assert.equal(result.code, 0, result.stdout);
    assert.deepEqual(
      report.cases.map((c: { id: string }) => c.id),
      ['valid-near-expiry', 'expired'],
    );
    const skipped = await checkInProcess({}, { cases: { skip: ['expired'] } });
    assert.equal(skipped.cases.length, RECEIVER_CASE_TABLE.length - 1);
    assert.ok(!skipped.cases.some((c) => c.id === 'expired'));
  });

  it('prints a table naming the failing cases', async () => {
    const server = await startSpecReceiver({ secret: SECRET, skipExpiry: true });
    const result = await runInProcess(['check-receiver', '--to', server.url, '--secret', SECRET]);
    await server.close();
    assert.equal(result.code, 1);
    assert.match(result.stdout, /case\s+level\s+expected\s+got\s+verdict/);
    assert.match(result.stdout, /expired\s+required\s+4xx\s+200\s+FAIL/);
    assert.match(result.stdout, /future-iat\s+recommended\s+4xx\s+200\s+warn/);
    assert.doesNotMatch(result.stdout, /checking/, 'progress goes to stderr');
    assert.match(result.stderr, /checking http:\/\/127\.0\.0\.1:\d+\/webhooks .*skew 5s/);
    assert.match(result.stderr, /expired/);
  });

  it('allows a clock-skew margin at the tolerance edges (--skew)', async () => {
    const server = await startSpecReceiver({ secret: SECRET });
    try {
      const received = () => server.received.map((r) => r.headers['service-verification'] as string);
      const iatOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).iat;
      const now = Math.floor(Date.now() / 1000);
      const report = await checkReceiver({
        url: new URL(server.url),
        signing: { secret: SECRET, skewSeconds: 20 },
        cases: { only: ['valid-near-expiry', 'expired', 'valid-clock-ahead'] },
        now: () => now * 1000,
      });
      assert.equal(report.skewSeconds, 20);
      assert.deepEqual(received().map(iatOf), [now - 280, now + 20, now - 320]);
      assert.equal(report.passed, true);
    } finally {
      await server.close();
    }
  });

  it('judges a receiver that answers 202 and drops refusals by --reject-status, or a body marker', async () => {
    const plain = await checkInProcess({ refuseWith: 202 });
    assert.equal(plain.passed, false, 'with the default marker (4xx) every refusal looks accepted');
    const { result, report } = await check({ refuseWith: 202 }, ['--reject-status', '202', '--strict']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(report.rejectWhen.statuses, ['202']);
    const marked = await checkInProcess(
      { refuseWith: 200 },
      { cases: { reject: { bodyContains: '"error"' }, strict: true } },
    );
    assert.equal(marked.passed, true, JSON.stringify(marked.cases.filter((c) => c.verdict !== 'pass')));
    const all2xx = await runInProcess(['check-receiver', '--to', '3000', '--secret', SECRET, '--reject-status', '2xx']);
    assert.equal(all2xx.code, 2);
    assert.match(all2xx.stderr, /could never be told apart/);
  });

  it('sends every token after the configured verification prefix', async () => {
    const server = await startSpecReceiver({ secret: SECRET, prefix: 'Bearer ' });
    try {
      const bare = await checkReceiver({
        url: new URL(server.url),
        signing: { secret: SECRET },
        cases: { only: ['valid-entity-update'] },
      });
      assert.equal(bare.passed, false);
      const prefixed = await runInProcess([
        'check-receiver',
        '--to',
        server.url,
        '--secret',
        SECRET,
        '--verification-prefix',
        'Bearer',
        '--json',
      ]);
      assert.equal(prefixed.code, 0, prefixed.stdout + prefixed.stderr);
      assert.match(String(server.received.at(-1)?.headers['service-verification']), /^Bearer eyJ/);
    } finally {
      await server.close();
    }
  });

  it('exits 2 for an unknown case and 3 when nothing listens', async () => {
    const unknown = await runInProcess(['check-receiver', '--to', '3000', '--secret', SECRET, '--only', 'expird']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /did you mean expired/);
    const down = await runInProcess(['check-receiver', '--to', '1', '--secret', SECRET, '--json']);
    assert.equal(down.code, 3);
    assertOneLineError(down);
  });
});
