/**
 * One rule for a freshness tolerance: whole seconds, 1 or more. Every command with --tolerance
 * (found in the definitions, so a new one is covered) and every library entry that takes
 * toleranceSeconds refuses the same values with the same words, and takes the same ones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startListener } from '../../src/api/listen.js';
import { checkConsumer } from '../../src/consumer-check/check-consumer.js';
import { checkReceiver } from '../../src/delivery/check-receiver.js';
import { Webhooks } from '@ledgerhook/webhooks';
import { verifyWebhook } from '@ledgerhook/webhooks';
import { programFromDefinitions, runInProcess } from '../helpers/in-process-cli.js';

const REFUSED = ['0', '-5', '1.5', 'soon', '', '300s'];
const RULE = /must be a whole number of seconds, 1 or more/;

interface Definition {
  name(): string;
  commands: readonly Definition[];
  options: readonly { long?: string | undefined }[];
}

/** The command lines (e.g. "captures show") of every definition with a --tolerance, subcommands too. */
function commandsWithTolerance(command: Definition, path: string[] = []): string[] {
  const own = path.length > 0 && command.options.some((option) => option.long === '--tolerance');
  return [
    ...(own ? [path.join(' ')] : []),
    ...command.commands.flatMap((sub) => commandsWithTolerance(sub, [...path, sub.name()])),
  ];
}

describe('--tolerance, one definition for every command', () => {
  const names = commandsWithTolerance(programFromDefinitions(async () => {}, { out: () => {}, err: () => {} }));

  it('is taken by the commands that check freshness', () => {
    for (const name of ['verify', 'listen', 'inspect', 'captures show', 'check-receiver', 'check-consumer'])
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
  });

  for (const name of names)
    it(`${name} refuses ${REFUSED.map((value) => JSON.stringify(value)).join(', ')} with the same line, exit 2`, async () => {
      for (const value of REFUSED) {
        const result = await runInProcess([...name.split(' '), '--tolerance', value]);
        assert.equal(result.code, 2, `${name} --tolerance ${JSON.stringify(value)}: ${result.stderr}`);
        assert.match(result.stderr, RULE);
        assert.match(result.stderr, new RegExp(`--tolerance must be .*, got "${value}"`));
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      }
    });
});

describe('toleranceSeconds, the same rule in the library', () => {
  const refusedBy = async (label: string, run: (toleranceSeconds: number) => unknown) => {
    for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await assert.rejects(
        async () => run(value),
        (error: { code?: string; message?: string; details?: { reason?: string } }) =>
          error.code === 'ERR_USAGE' &&
          error.details?.reason === 'invalid_tolerance' &&
          RULE.test(error.message ?? '') &&
          /toleranceSeconds/.test(error.message ?? ''),
        `${label} with ${value}`,
      );
    }
  };

  it('verifyWebhook', () =>
    refusedBy('verifyWebhook', (toleranceSeconds) =>
      verifyWebhook({ body: '{}', token: 'a.b.c', secrets: 'x', toleranceSeconds }),
    ));
  it('new Webhooks', () =>
    refusedBy('Webhooks', (toleranceSeconds) => new Webhooks({ secret: 'x', toleranceSeconds })));
  it('startListener', () =>
    refusedBy('startListener', (toleranceSeconds) =>
      startListener({ verification: { secrets: ['x'], toleranceSeconds } }),
    ));
  it('checkReceiver', () =>
    refusedBy('checkReceiver', (toleranceSeconds) =>
      checkReceiver({ url: new URL('http://127.0.0.1:9/'), signing: { secret: 'x', toleranceSeconds } }),
    ));
  it('checkConsumer', () =>
    refusedBy('checkConsumer', (toleranceSeconds) =>
      checkConsumer({ signing: { secret: 'x', toleranceSeconds } } as Parameters<typeof checkConsumer>[0]),
    ));

  it('a whole number of seconds is taken, and the default is 300', async () => {
    const result = await verifyWebhook({ body: '{}', token: undefined, secrets: 'x', toleranceSeconds: 1 });
    assert.equal(result.ok, false);
    assert.equal(new Webhooks({ secret: 'x', toleranceSeconds: 86_400 }) instanceof Webhooks, true);
  });
});
