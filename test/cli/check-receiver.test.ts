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
  options: { only?: string[]; skip?: string[]; toleranceSeconds?: number } = {},
) {
  const server = await startSpecReceiver({ secret: SECRET, ...receiver });
  try {
    return await checkReceiver({ url: new URL(server.url), secret: SECRET, ...options });
  } finally {
    await server.close();
  }
}

const failing = (report: { cases: Array<{ id: string; verdict: string }> }) =>
  report.cases
    .filter((c) => c.verdict !== 'pass')
    .map((c) => c.id)
    .sort();

describe('ledgerhook check-receiver', () => {
  it('passes against a receiver that follows spec 5.2', async () => {
    const { result, report } = await check({});
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.equal(report.passed, true);
    assert.equal(report.cases.length, RECEIVER_CASE_TABLE.length);
    assert.equal(report.cases.length, 14);
  });

  it('fails, naming every forgery, against a receiver that accepts everything (spawned)', async () => {
    const { result, report } = await check({ acceptAll: true }, [], true);
    assert.equal(result.code, 1);
    assert.deepEqual(
      failing(report),
      RECEIVER_CASE_TABLE.filter((c) => c.expect === 'reject')
        .map((c) => c.id)
        .sort(),
    );
    assertOneLineError(result);
  });

  it('fails, naming exactly the cases each flawed receiver gets wrong (in-process, one table)', async () => {
    const table: Array<[Omit<SpecReceiverOptions, 'secret'>, string[]]> = [
      [{ skipExpiry: true }, ['expired', 'future-iat']],
      [{ acceptFutureIat: true }, ['future-iat']],
      [{ skipBodyHash: true }, ['body-changed', 'body-reserialised', 'body-swapped', 'hex-hash']],
      [{ anyAlgorithm: true }, ['alg-none', 'hs512']],
    ];
    for (const [receiver, expected] of table) {
      const report = await checkInProcess(receiver);
      assert.equal(report.passed, false, JSON.stringify(receiver));
      assert.deepEqual(failing(report), expected, JSON.stringify(receiver));
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
    const skipped = await checkInProcess({}, { skip: ['expired'] });
    assert.equal(skipped.cases.length, RECEIVER_CASE_TABLE.length - 1);
    assert.ok(!skipped.cases.some((c) => c.id === 'expired'));
  });

  it('prints a table naming the failing cases', async () => {
    const server = await startSpecReceiver({ secret: SECRET, skipExpiry: true });
    const result = await runInProcess(['check-receiver', '--to', server.url, '--secret', SECRET]);
    await server.close();
    assert.equal(result.code, 1);
    assert.match(result.stdout, /case\s+expected\s+got\s+verdict/);
    assert.match(result.stdout, /expired\s+4xx\s+200\s+FAIL/);
    assert.match(result.stderr, /expired/);
  });

  it('exits 2 for an unknown case and 3 when nothing listens', async () => {
    const unknown = await runInProcess(['check-receiver', '--to', '3000', '--secret', SECRET, '--only', 'expird']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /did you mean expired/);
    const down = await runInProcess(['check-receiver', '--to', '1', '--secret', SECRET]);
    assert.equal(down.code, 3);
    assertOneLineError(down);
  });
});
