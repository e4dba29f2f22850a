import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { captureRecord, writeMixedCapture } from '../helpers/capture-file.js';
import { COMMAND_GROUPS } from '../../src/cli/help-layout.js';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { programFromDefinitions, runInProcess } from '../helpers/in-process-cli.js';

const EXAMPLES = /Examples:\n( {2}#.*\n)* {2}\$ ledgerhook /;

/** A command's --help page, with the text the definitions add after it (as outputHelp prints it). */
function helpOf(command: CommandUnknownOpts): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: () => {} });
  command.outputHelp();
  return text;
}

/** The names listed under "Commands:" or the top-level help's groups in a help text (help itself aside). */
function commandsIn(help: string): string[] {
  const headings = ['Commands:', ...Object.values(COMMAND_GROUPS)];
  return headings
    .flatMap((heading) => (new RegExp(`\n${heading}\n([\\s\\S]*?)(\n\n|$)`).exec(help)?.[1] ?? '').split('\n'))
    .map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
}

/** The built CLI's top-level help pages, spawned once for the tests that read them. */
let topPages: Promise<Awaited<ReturnType<typeof runCli>>[]> | undefined;
const spawnedTopPages = () => {
  topPages ??= Promise.all([['--help'], ['-h'], ['help'], []].map((args) => runCli(args)));
  return topPages;
};

describe('help and input checks', () => {
  it("--help, -h, help and no arguments print commander's page; a command's --help is commander's page of its definition", async () => {
    const pages = await spawnedTopPages();
    for (const [at, page] of pages.entries()) {
      assert.equal(page.code, 0, page.stderr);
      assert.equal(page.stderr, '');
      assert.equal(page.stdout, pages[0]?.stdout, `page ${at}`);
    }
    assert.match(pages[0]?.stdout ?? '', /^Usage: ledgerhook \[options\] \[command\]\n/);
    // The same definitions rendered by commander in this process: the spawned page is that text.
    const program = programFromDefinitions(
      async () => {
        throw new Error('no command runs in this test');
      },
      { out: () => {}, err: () => {} },
    );
    const byName = (name: string) => program.commands.find((command) => command.name() === name);
    // One command and one subcommand of the bin: every other page is the same definitions' text.
    for (const path of [['sync'], ['state', 'reset']]) {
      const [name = '', sub] = path;
      const command = sub === undefined ? byName(name) : byName(name)?.commands.find((c) => c.name() === sub);
      assert.ok(command, path.join(' '));
      const spawned = await runCli([...path, '--help']);
      assert.equal(spawned.code, 0, spawned.stderr);
      assert.equal(spawned.stdout, helpOf(command), path.join(' '));
    }
  });

  it('every command and every subcommand has an example in its --help', async () => {
    // The texts come from the command definitions, rendered in-process; the spawned --help proves that the
    // program the user runs lists exactly these commands, and a few spawned help pages prove the routing.
    const program = programFromDefinitions(
      async () => {
        throw new Error('no command runs in this test');
      },
      { out: () => {}, err: () => {} },
    );
    const [top = { code: null, stdout: '' }] = await spawnedTopPages();
    assert.equal(top.code, 0);
    assert.deepEqual(commandsIn(top.stdout), commandsIn(helpOf(program)), 'the definitions are the whole program');
    assert.ok(commandsIn(top.stdout).includes('config'));
    const missing: string[] = [];
    for (const command of program.commands.filter((c) => c.name() !== 'help')) {
      const help = helpOf(command);
      if (!EXAMPLES.test(help)) missing.push(command.name());
      for (const sub of command.commands.filter((c) => c.name() !== 'help')) {
        const subHelp = helpOf(sub);
        assert.match(subHelp, new RegExp(`^Usage: ledgerhook ${command.name()} ${sub.name()} `));
        if (!EXAMPLES.test(subHelp)) missing.push(`${command.name()} ${sub.name()}`);
      }
    }
    assert.deepEqual(missing, []);
    // "help <command>" prints that page (commander's help command; habits.test.ts spawns "help state reset").
    const spawned = await runInProcess(['help', 'config']);
    assert.equal(spawned.code, 0, spawned.stderr);
    assert.match(spawned.stdout, /^Usage: ledgerhook config /);
    assert.match(spawned.stdout, EXAMPLES);
  });

  it('config set checks header names, suggests keys, and stores tokensFile as an absolute path', async () => {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir('ledgerhook-config-') };
    const bad: Array<[string[], RegExp]> = [
      [['headerName', 'bad header'], /"bad header" is not a valid HTTP header name/],
      [['headerName', 'X-Sig:'], /not a valid HTTP header name/],
      [['basUrl', 'https://x.example'], /unknown setting "basUrl" \(did you mean baseUrl\?\)/],
      [['baseUrl', 'ftp://x.example'], /baseUrl must be http or https/],
    ];
    for (const [args, message] of bad) {
      const result = await runInProcess(['config', 'set', ...args], { env });
      assert.equal(result.code, 2, args.join(' '));
      assertOneLineError(result);
      assert.match(result.stderr, message);
    }
    assert.equal((await runInProcess(['config', 'get', 'headerName'], { env })).code, 2, 'nothing was stored');
    assert.equal((await runInProcess(['config', 'set', 'headerName', 'Acme-Verification'], { env })).code, 0);

    const cwd = tempDir();
    writeFileSync(join(cwd, 'tokens.json'), '{}');
    // A process of its own: the relative path is resolved against that process's working directory.
    const set = await runCli(['config', 'set', 'tokensFile', './tokens.json'], { env, cwd });
    assert.equal(set.code, 0, set.stderr);
    const stored = await runInProcess(['config', 'get', 'tokensFile'], { env });
    assert.equal(stored.stdout.trim(), join(cwd, 'tokens.json'));
  });

  it('replay and captures list check --type and --event, with a suggestion; a custom event in the capture is fine', async () => {
    const { file } = await writeMixedCapture();
    const cases: Array<[string[], RegExp]> = [
      [['--type', 'ENTITY_UPDAT'], /unknown webhook type "ENTITY_UPDAT" \(did you mean ENTITY_UPDATE\?\)/],
      [['--event', 'INVOICE_VIEWD'], /unknown event "INVOICE_VIEWD" \(did you mean INVOICE_VIEWED\?\)/],
    ];
    for (const [args, message] of cases) {
      for (const command of [
        ['replay', file, '--to', 'http://127.0.0.1:1/', '--as-captured'],
        ['captures', 'list', file],
      ]) {
        const result = await runInProcess([...command, ...args]);
        assert.equal(result.code, 2, [...command, ...args].join(' '));
        assert.match(result.stderr, message);
        assert.equal(result.stderr.split('\n').filter((line) => line.startsWith('error:')).length, 1);
      }
    }
    const custom = join(tempDir(), 'custom.jsonl');
    const record = await captureRecord(
      '{"userId":"u","type":"LIFECYCLE_EVENT","event":"PAYROLL_SYNCED","eventData":{}}',
      { id: 'dlv_custom' },
    );
    writeFileSync(custom, `${JSON.stringify(record)}\n`);
    const listed = await runInProcess(['captures', 'list', custom, '--event', 'payroll-synced', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      JSON.parse(listed.stdout).deliveries.map((d: { id: string }) => d.id),
      ['dlv_custom'],
    );
  });
});
