import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ATTRIBUTE_LENGTH, safeAttributes } from '../../src/telemetry/open-telemetry.js';
import { noTelemetry, traced } from '../../src/telemetry/telemetry.js';
import { checkedTraceparent, formatTraceparent, parseTraceparent } from '../../src/telemetry/traceparent.js';
import { parseSyncJobData } from '../../src/queue/sync-job.js';
import { missingPeerError } from '../../src/util/optional-peer.js';

const GOOD = `00-${'4bf92f3577b34da6a3ce929d0e0e4736'}-${'00f067aa0ba902b7'}-01`;

describe('traceparent read back from a job (hostile input)', () => {
  const cases: Array<[string, unknown, boolean]> = [
    ['a well-formed W3C traceparent', GOOD, true],
    ['not sampled', GOOD.replace(/-01$/, '-00'), true],
    ['upper-case hex', GOOD.toUpperCase(), false],
    ['another version', GOOD.replace(/^00/, 'ff'), false],
    ['all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, false],
    ['all-zero span id', `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`, false],
    ['a header injected after it', `${GOOD}\r\nx-evil: 1`, false],
    ['extra fields', `${GOOD}-extra`, false],
    ['a number', 42, false],
    ['an object', { traceId: 'x' }, false],
    ['very long', 'a'.repeat(100_000), false],
    ['empty', '', false],
  ];
  for (const [what, value, ok] of cases)
    it(`${what}: ${ok ? 'kept' : 'dropped'}`, () => {
      assert.equal(checkedTraceparent(value), ok ? value : undefined);
      assert.equal(
        parseSyncJobData({ userId: 'u', entity: 'expense', path: '/expenses', filter: {}, traceparent: value })
          ?.traceparent,
        ok ? value : undefined,
      );
    });

  it('formats what it parses', () => {
    const parsed = parseTraceparent(GOOD);
    assert.ok(parsed);
    assert.equal(formatTraceparent(parsed), GOOD);
  });
});

describe('span and metric attributes', () => {
  it('drop names that could hold a secret, a token or a body; bound strings; leave out undefined', () => {
    const recorded = safeAttributes({
      'ledgerhook.dataset': '/expenses',
      'ledgerhook.user_id': 'u'.repeat(10_000),
      'http.request.header.authorization': 'Bearer x',
      'ledgerhook.token': 'x',
      'ledgerhook.secret.label': 'x',
      'http.request.body': '{}',
      'ledgerhook.verdict.code': undefined,
      'ledgerhook.sync.pages': 3,
      'ledgerhook.sync.dry_run': false,
    });
    assert.deepEqual(Object.keys(recorded).sort(), [
      'ledgerhook.dataset',
      'ledgerhook.sync.dry_run',
      'ledgerhook.sync.pages',
      'ledgerhook.user_id',
    ]);
    assert.equal((recorded['ledgerhook.user_id'] as string).length, MAX_ATTRIBUTE_LENGTH);
  });
});

describe('noTelemetry', () => {
  it('records nothing, and traced() runs the work as it is', async () => {
    assert.equal(noTelemetry.enabled, false);
    assert.equal(noTelemetry.under(noTelemetry.span('x')), noTelemetry);
    assert.equal(noTelemetry.span('x').traceparent(), undefined);
    assert.equal(await traced(noTelemetry, 'x', undefined, async () => 7), 7);
    await assert.rejects(
      traced(noTelemetry, 'x', undefined, async () => {
        throw new Error('boom');
      }),
      /boom/,
    );
  });

  it('an absent @opentelemetry/api is a usage error naming its install command', () => {
    const thrown = Object.assign(new Error("Cannot find package '@opentelemetry/api' imported from /app/x.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const error = missingPeerError(thrown);
    assert.equal(error?.details.reason, 'missing_dependency');
    assert.match(error?.message ?? '', /run npm install @opentelemetry\/api/);
  });
});
