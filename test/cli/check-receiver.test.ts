import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RECEIVER_CASE_TABLE } from '../../src/delivery/receiver-case-table.js';
import { assertOneLineError, runCli } from '../helpers/cli.js';
import { startSpecReceiver, type SpecReceiverOptions } from '../helpers/spec-receiver.js';

const SECRET = 'whsec_check_receiver_test';

async function check(receiver: Omit<SpecReceiverOptions, 'secret'>, extra: string[] = []) {
  const server = await startSpecReceiver({ secret: SECRET, ...receiver });
  try {
    const result = await runCli(['check-receiver', '--to', server.url, '--secret', SECRET, '--json', ...extra]);
    return { result, report: result.stdout ? JSON.parse(result.stdout) : undefined };
  } finally {
    await server.close();
  }
}

const failing = (report: { cases: Array<{ id: string; verdict: string }> }) => report.cases.filter((c) => c.verdict !== 'pass').map((c) => c.id).sort();

describe('ledgerhook check-receiver', () => {
  it('passes against a receiver that follows spec 5.2', async () => {
    const { result, report } = await check({});
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.equal(report.passed, true);
    assert.equal(report.cases.length, RECEIVER_CASE_TABLE.length);
  });

  it('fails, naming every forgery, against a receiver that accepts everything', async () => {
    const { result, report } = await check({ acceptAll: true });
    assert.equal(result.code, 1);
    assert.deepEqual(failing(report), RECEIVER_CASE_TABLE.filter((c) => c.expect === 'reject').map((c) => c.id).sort());
    assertOneLineError(result);
  });

  it('fails on expiry against a receiver that skips it', async () => {
    const { result, report } = await check({ skipExpiry: true });
    assert.equal(result.code, 1);
    assert.deepEqual(failing(report), ['expired']);
  });

  it('fails on the body cases against a receiver that skips the body hash', async () => {
    const { report } = await check({ skipBodyHash: true });
    assert.deepEqual(failing(report), ['body-changed', 'body-reserialised', 'body-swapped', 'hex-hash']);
  });

  it('fails on algorithm confusion against a receiver that accepts any algorithm', async () => {
    const { report } = await check({ anyAlgorithm: true });
    assert.deepEqual(failing(report), ['alg-none', 'hs512']);
  });

  it('runs only the chosen cases and honours the receiver tolerance', async () => {
    const { result, report } = await check({ toleranceSeconds: 60 }, ['--only', 'expired,valid-near-expiry', '--tolerance', '60']);
    assert.equal(result.code, 0, result.stdout);
    assert.deepEqual(report.cases.map((c: { id: string }) => c.id), ['valid-near-expiry', 'expired']);
    const skipped = await check({}, ['--skip', 'expired']);
    assert.equal(skipped.report.cases.length, RECEIVER_CASE_TABLE.length - 1);
  });

  it('prints a table naming the failing cases', async () => {
    const server = await startSpecReceiver({ secret: SECRET, skipExpiry: true });
    const result = await runCli(['check-receiver', '--to', server.url, '--secret', SECRET]);
    await server.close();
    assert.equal(result.code, 1);
    assert.match(result.stdout, /case\s+expected\s+got\s+verdict/);
    assert.match(result.stdout, /expired\s+4xx\s+200\s+FAIL/);
    assert.match(result.stderr, /expired/);
  });

  it('exits 2 for an unknown case and 3 when nothing listens', async () => {
    const unknown = await runCli(['check-receiver', '--to', '3000', '--secret', SECRET, '--only', 'expird']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /did you mean expired/);
    const down = await runCli(['check-receiver', '--to', '1', '--secret', SECRET]);
    assert.equal(down.code, 3);
    assertOneLineError(down);
  });
});
