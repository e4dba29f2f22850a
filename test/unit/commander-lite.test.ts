/**
 * commander-lite.ts parses `verify`'s plain command lines without commander (verify-start.ts). Whatever
 * it parses must come out exactly as commander parses it: the same options (values, defaults, parsed
 * numbers, collected secrets), the same FILE, the same flag warnings; anything else it must leave to
 * commander. Checked on hand-picked lines and on every line of up to four words drawn from a vocabulary
 * of flags, values and look-alikes (global flags, `--`, short flags, `=` forms, bad numbers).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command, Option } from '@commander-js/extra-typings';
import { Command as LiteCommand, Option as LiteOption } from '../../src/cli/commander-lite.js';
import { defineVerify } from '../../src/cli/commands/verify/definition.js';
import type { RunCommand } from '../../src/cli/runner.js';
import { secretFlagWarnings } from '../../src/cli/secret-flag-warnings.js';

interface Parse {
  options: unknown;
  warnings: string[];
}

/** As main.ts builds the program when the first word is `verify`: its global flags and verify alone. */
async function commanderParse(args: string[]): Promise<Parse | undefined> {
  let options: unknown;
  const run: RunCommand = async (_load, given) => {
    options = given;
  };
  const program = new Command('ledgerhook')
    .version('0.0.0', '-v, --version')
    .option('--debug', 'print stack traces for unexpected errors')
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  defineVerify(program, run);
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch {
    return undefined;
  }
  const verify = program.commands.find((command) => command.name() === 'verify');
  if (options === undefined || !verify) return undefined;
  return { options, warnings: secretFlagWarnings(verify) };
}

/** commander-lite's program, defined once: each parse starts from the definition's defaults. */
let liteOptions: unknown;
const liteProgram = new LiteCommand('ledgerhook');
defineVerify(liteProgram as unknown as Command, async (_load, given) => {
  liteOptions = given;
});

async function liteParse(args: string[]): Promise<Parse | undefined> {
  liteOptions = undefined;
  const plain = liteProgram.parsePlain(args);
  if (!plain) return undefined;
  await plain.act();
  return { options: liteOptions, warnings: secretFlagWarnings(plain.command as unknown as Command) };
}

const PLAIN: string[][] = [
  ['verify', 'body.json', '--token', 'T', '--secret', 's'],
  ['verify', 'body.json', '--token', 'T', '--secret', 'a', '--secret', 'b', '--json'],
  ['verify', '--token=T', '--data', '{"a":1}', '--secret-file', 'f', '--tolerance', '60'],
  ['verify', '-', '--header', 'Service-Verification: eyJ', '--env', 'production', '--header-name', 'X-Sig'],
  ['verify', 'b', '--token', 'T', '--now', '1700000000', '--allow-future-iat', '--verification-prefix', 'Bearer '],
  ['verify', '--delivery', 'captures.jsonl#dlv_1', '--at-receipt', '--tolerance=0'],
  ['verify', 'b', '--token', 'T', '--ignore-expiry', '--token', 'U', '--data', ''],
  ['verify', 'b', '--token', '-', '--secret='],
];

test('the plain command lines are parsed here, as commander parses them', async () => {
  for (const args of PLAIN) {
    const lite = await liteParse(args);
    assert.ok(lite, `commander-lite left ${JSON.stringify(args)} to commander`);
    assert.deepEqual(lite, await commanderParse(args), JSON.stringify(args));
  }
});

test('help, version, global flags, mistakes and odd forms are left to commander', async () => {
  const others: string[][] = [
    ['verify', '--help'],
    ['verify', '-h'],
    ['verify', 'b', '--version'],
    ['verify', 'b', '-v'],
    ['verify', 'b', '--token', 'T', '--debug'],
    ['verify', 'b', '--token', '-vx'], // commander's program reads -v out of it: the version
    ['verify', '--', 'b'],
    ['verify', 'a', 'b'],
    ['verify', '--tolerance', 'soon'],
    ['verify', '--tolerance', '-1'],
    ['verify', '--env', 'staging'],
    ['verify', '--token'],
    ['verify', '--json=yes'],
    ['verify', '--unknown'],
    ['verify', '--tok', 'T'],
    ['sign', 'b'],
    [],
  ];
  for (const args of others) assert.equal(await liteParse(args), undefined, JSON.stringify(args));
});

test('every line of up to four words from the vocabulary: parsed as commander does, or left to it', async () => {
  const words = [
    'b.json',
    '-',
    '--',
    '--token',
    '--token=x',
    '--secret',
    '--json',
    '--tolerance',
    '--tolerance=7',
    '12',
    '-3',
    '--env',
    'local',
    '--debug',
    '-v',
    '--data',
  ];
  let parsedHere = 0;
  let lines = 0;
  const visit = async (line: string[]): Promise<void> => {
    const args = ['verify', ...line];
    lines += 1;
    const lite = await liteParse(args);
    if (lite) {
      parsedHere += 1;
      assert.deepEqual(lite, await commanderParse(args), JSON.stringify(args));
    }
    if (line.length < 4) for (const word of words) await visit([...line, word]);
  };
  await visit([]);
  // Most lines hold a mistake (69,905 lines; 2,481 parsed here when written): enough must still be
  // parsed here, or the test proves little.
  assert.ok(parsedHere > 2000, `${parsedHere} of ${lines} lines parsed by commander-lite`);
});

test("commander-lite's Option reads flags as commander's Option does (the start bundle uses it)", () => {
  const flags = [
    '--token <jwt>',
    '--ignore-expiry',
    '--delivery <file[:index|#id]>',
    '--tolerance <seconds>',
    '--secret-file <file>',
    '-v, --version',
    '--opt [value]',
    '--many <items...>',
    '--no-color',
  ];
  for (const flag of flags) {
    const lite = new LiteOption(flag, '');
    const real = new Option(flag, '');
    const fields = (option: LiteOption | Option) => ({
      long: option.long,
      short: option.short,
      required: option.required,
      optional: option.optional,
      variadic: option.variadic,
      negate: option.negate,
      name: option.long?.startsWith('--no-') ? undefined : option.attributeName(),
    });
    assert.deepEqual(fields(lite), fields(real), flag);
  }
  const lite = new LiteOption('--env <name>').choices(['local', 'sandbox']);
  const real = new Option('--env <name>').choices(['local', 'sandbox']);
  assert.equal(lite.parseArg?.('sandbox', undefined), real.parseArg?.('sandbox', undefined));
  assert.throws(() => lite.parseArg?.('staging', undefined));
  assert.throws(() => real.parseArg?.('staging', undefined));
});
