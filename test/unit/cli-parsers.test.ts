import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { Chalk } from 'chalk';
import { Command, InvalidArgumentError } from '@commander-js/extra-typings';
import { run as runMock } from '../../src/cli/commands/mock/mock.js';
import type { CliContext } from '../../src/cli/context.js';
import { defineMock, type MockCommandOptions } from '../../src/cli/commands/mock/definition.js';
import { collect, decimal, durationOrOff, examples, integer, oneOf, rateLimit } from '../../src/cli/parsers.js';
import type { RunCommand } from '../../src/cli/runner.js';
import { DEFAULT_MOCK_PORT, DEFAULT_MOCK_TOKEN } from '../../src/defaults.js';

type Case<T> = [input: string, expected: T | RegExp];

function table<T>(name: string, parse: (value: string) => T, cases: Array<Case<T>>): void {
  describe(name, () => {
    for (const [input, expected] of cases) {
      if (expected instanceof RegExp)
        it(`refuses ${JSON.stringify(input)}`, () =>
          assert.throws(
            () => parse(input),
            (error: unknown) => error instanceof InvalidArgumentError && expected.test(error.message),
          ));
      else
        it(`${JSON.stringify(input)} -> ${JSON.stringify(expected)}`, () => assert.deepEqual(parse(input), expected));
    }
  });
}

table('integer (--port 0..65535)', integer('--port', { min: 0, max: 65535 }), [
  ['0', 0],
  ['4010', 4010],
  [' 65535 ', 65535],
  ['65536', /--port must be between 0 and 65535, got 65536/],
  ['-1', /--port must be between 0 and 65535/],
  ['1.5', /--port takes a whole number, got "1.5"/],
  ['', /--port takes a whole number/],
  ['0x10', /whole number/],
  ['1e3', /whole number/],
]);

table('integer without bounds', integer('--seed'), [
  ['-42', -42],
  ['007', 7],
  ['9007199254740992', /between/],
]);

table('durationOrOff (--reconcile-every)', durationOrOff('--reconcile-every', { minMs: 1000, maxMs: 86_400_000 }), [
  ['6h', 21_600_000],
  ['90s', 90_000],
  ['off', 'off'],
  [' OFF ', 'off'],
  ['500ms', /--reconcile-every must be between .* \(or off\)\.$/],
  ['never', /--reconcile-every takes a duration such as 60s, 5m or 1h, got "never" \(or off\)\.$/],
]);

table('decimal (--fail-rate 0..1)', decimal('--fail-rate', { min: 0, max: 1 }), [
  ['0', 0],
  ['0.25', 0.25],
  ['1', 1],
  ['.5', 0.5],
  ['1.01', /--fail-rate must be between 0 and 1, got 1.01/],
  ['-0.1', /between 0 and 1/],
  ['half', /--fail-rate takes a number, got "half"/],
  ['  ', /takes a number/],
  ['NaN', /takes a number/],
  ['Infinity', /takes a number/],
]);

table('rateLimit (--rate-limit REQUESTS/SECONDS)', rateLimit('--rate-limit'), [
  ['1000/300', { requests: 1000, windowSeconds: 300 }],
  [' 5/0.5 ', { requests: 5, windowSeconds: 0.5 }],
  ['0/300', /--rate-limit takes REQUESTS\/SECONDS, e.g. 1000\/300, got "0\/300"/],
  ['10/0', /REQUESTS\/SECONDS/],
  ['lots', /REQUESTS\/SECONDS/],
  ['10/', /REQUESTS\/SECONDS/],
  ['/10', /REQUESTS\/SECONDS/],
  ['-1/10', /REQUESTS\/SECONDS/],
]);

table('oneOf', oneOf('--mode', ['first', 'last'] as const), [
  ['first', 'first'],
  ['last', 'last'],
  ['FIRST', /--mode must be one of first, last, got "FIRST"/],
  ['', /must be one of/],
]);

describe('collect and examples', () => {
  it('collect accumulates repeated values in order', () => {
    assert.deepEqual(collect('a', undefined), ['a']);
    assert.deepEqual(collect('c', collect('b', ['a'])), ['a', 'b', 'c']);
  });

  it('examples prefixes commands with $ and keeps comment lines as they are', () => {
    assert.equal(examples('# a comment', 'ledgerhook mock'), '\nExamples:\n  # a comment\n  $ ledgerhook mock\n');
  });
});

/** The mock command's definition, parsed in-process: what `run` receives for a command line. */
function parseMock(args: string[]): MockCommandOptions {
  let captured: MockCommandOptions | undefined;
  const program = new Command('ledgerhook').exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  const run: RunCommand = async (_load, options) => {
    captured = options as MockCommandOptions;
  };
  defineMock(program, run);
  program.parse(['mock', ...args], { from: 'user' });
  if (!captured) throw new Error('mock did not run');
  return captured;
}

describe('ledgerhook mock options (in-process)', () => {
  it('defaults come from src/defaults.ts and the mock', () => {
    const options = parseMock([]);
    assert.equal(options.port, DEFAULT_MOCK_PORT);
    assert.deepEqual(
      [options.host, options.seed, options.items, options.otherItems, options.deletedIdsOn],
      // deletedIdsOn: unset, so that the mock's own default (first) or, with --from, the recording's applies.
      ['127.0.0.1', 42, 202, 25, undefined],
    );
    assert.equal(options.token, undefined);
  });

  it('parses every fault flag into its typed value', () => {
    const options = parseMock(
      '--port 0 --latency 50 --fail-rate 0.1 --drop-rate 0.05 --rate-limit 1000/300 --churn 2.5 --deleted-ids-on last'.split(
        ' ',
      ),
    );
    assert.deepEqual(
      [options.port, options.latency, options.failRate, options.dropRate, options.rateLimit, options.churn],
      [0, 50, 0.1, 0.05, { requests: 1000, windowSeconds: 300 }, 2.5],
    );
    assert.equal(options.deletedIdsOn, 'last');
  });

  it('refuses bad values with the flag named', () => {
    for (const [args, message] of [
      [['--rate-limit', 'lots'], /--rate-limit takes REQUESTS\/SECONDS/],
      [['--fail-rate', '2'], /--fail-rate must be between 0 and 1/],
      [['--port', '70000'], /--port must be between 0 and 65535/],
      [['--deleted-ids-on', 'middle'], /Allowed choices are first, last, every/],
    ] as const)
      assert.throws(() => parseMock([...args]), message);
  });
});

/** A CliContext for in-process runs: stdout captured, no colour, an abort signal the test owns. */
function testContext(signal: AbortSignal) {
  const stdout = new PassThrough();
  let text = '';
  const waiters = new Set<() => void>();
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
    for (const wake of waiters) wake();
  });
  const ctx = {
    env: {},
    stdout: stdout as unknown as NodeJS.WriteStream,
    // Both streams into one text: these tests read what a person sees (status lines are on stderr).
    stderr: stdout as unknown as NodeJS.WriteStream,
    stdin: new PassThrough() as unknown as NodeJS.ReadStream,
    isTTY: false,
    color: new Chalk({ level: 0 }),
    signal,
    debug: false,
  } satisfies CliContext;
  const lines = () => text.split('\n').filter(Boolean);
  /** Resolves with the first output line that satisfies the predicate, as soon as it is written. */
  const waitForLine = (predicate: (line: string) => boolean) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const line = lines().find(predicate);
        if (line === undefined) return;
        waiters.delete(check);
        resolve(line);
      };
      waiters.add(check);
      check();
    });
  return { ctx, lines, waitForLine };
}

describe('ledgerhook mock run (in-process through CliContext)', { timeout: 30_000 }, () => {
  it('--json prints { baseUrl, token } first, serves the API, and stops on the signal', async () => {
    const controller = new AbortController();
    const { ctx, lines, waitForLine } = testContext(controller.signal);
    const running = runMock(parseMock(['--port', '0', '--json', '--items', '5']), ctx);
    const first = await waitForLine(() => true);
    const { baseUrl, token } = JSON.parse(first) as { baseUrl: string; token: string };
    assert.equal(token, DEFAULT_MOCK_TOKEN);
    const response = await fetch(`${baseUrl}/expenses`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { data: unknown[] }).data.length, 5);
    await fetch(`${baseUrl.replace('/rest/v5', '')}/__mock/mutate`, {
      method: 'POST',
      body: JSON.stringify({ path: '/expenses', create: 1 }),
    });
    controller.abort();
    await running;
    const mutation = lines()
      .slice(1)
      .map((line) => JSON.parse(line) as { kind: string; created?: number[] })
      .find((line) => line.kind === 'mutation');
    assert.equal(mutation?.created?.length, 1);
    await assert.rejects(fetch(`${baseUrl}/expenses`), 'the server is closed after the signal');
  });

  it('human output names the URL, the token and a curl line', async () => {
    const controller = new AbortController();
    const { ctx, lines, waitForLine } = testContext(controller.signal);
    const running = runMock(parseMock(['--port', '0', '--token', 'tok-1']), ctx);
    await waitForLine((line) => line.includes('Ctrl-C'));
    controller.abort();
    await running;
    const text = lines().join('\n');
    assert.match(text, /mock service at http:\/\/127\.0\.0\.1:\d+\/rest\/v5/);
    assert.match(text, /bearer token\s+tok-1/);
    assert.match(text, /curl -H "Authorization: Bearer tok-1"/);
  });
});
