/**
 * Help that fits a screen: the top-level help lists the commands in their groups with three
 * examples; every command's (and subcommand's) default help is at most 60 lines at 80 columns,
 * showing its common options and one line saying what `--help-all` adds; `--help-all` prints every
 * option; and no help text speaks in spec section numbers or the project's internal words. The
 * pages are rendered in process from the definitions main.ts builds; the top level, one full help
 * and the routing of `--help-all` to a subcommand run as a user runs them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CommanderError, CommandUnknownOpts } from '@commander-js/extra-typings';
import { ADVANCED_OPTIONS, COMMAND_GROUPS, HELP_ALL } from '../../src/cli/help-layout.js';
import { runCli } from '../helpers/cli.js';
import { programFromDefinitions, runInProcess } from '../helpers/in-process-cli.js';

const MAX_LINES = 60;
/** Section numbers of the spec, and words only the project's own code and issues use. */
const INTERNAL =
  /\bspec(?:ification)?\s+(?:section\s+)?\d|§|\bcatalogue\b|\binode\b|\b[mc]time\b|\bplain (?:start|sync|run)\b|\bissue\s*#?\d/i;

function program(): CommandUnknownOpts {
  return programFromDefinitions(
    async () => {
      throw new Error('no command runs in this test');
    },
    { out: () => {}, err: () => {} },
  ) as unknown as CommandUnknownOpts;
}

/** Every command and subcommand, with the words that name it. */
function commandsOf(
  parent: CommandUnknownOpts,
  path: string[] = [],
): Array<{ path: string[]; command: CommandUnknownOpts }> {
  return parent.commands
    .filter((command) => command.name() !== 'help')
    .flatMap((command) => {
      const at = [...path, command.name()];
      return [{ path: at, command }, ...commandsOf(command, at)];
    });
}

/** A help page as a terminal 80 columns wide shows it: `--help`, or `--help-all` when `full`. */
async function helpOf(command: CommandUnknownOpts, full = false): Promise<string> {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: () => {}, getOutHelpWidth: () => 80 });
  if (!full) {
    command.outputHelp();
    return text;
  }
  await assert.rejects(command.parseAsync([HELP_ALL], { from: 'user' }), (error: unknown) => {
    // Its exit code is process.exitCode, which the test runner sets once a test failed.
    assert.equal((error as CommanderError).code, 'commander.help', String(error));
    return true;
  });
  return text;
}

/** The long flags listed in an options section of a help page. */
function flagsListed(help: string, heading: string): string[] {
  const section = new RegExp(`\\n${heading}\\n([\\s\\S]*?)\\n\\n`).exec(`\n${help}`)?.[1] ?? '';
  return [...section.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((match) => match[1] as string);
}

const visibleFlags = (command: CommandUnknownOpts) =>
  command.options.filter((option) => !option.hidden).map((option) => option.long as string);
const commonFlags = (command: CommandUnknownOpts) =>
  command.options
    .filter((option) => !option.hidden && option.helpGroupHeading === undefined)
    .map((option) => option.long as string);

/** The built bin's top-level help (main.ts adds to the definitions), spawned once for the tests that read it. */
let topHelp: ReturnType<typeof runCli> | undefined;
const spawnedTopHelp = () => {
  topHelp ??= runCli(['--help']);
  return topHelp;
};

describe('help that fits a screen', () => {
  it('the top-level help lists every command once, in the five groups in order, with three examples', async () => {
    const help = await spawnedTopHelp();
    assert.equal(help.code, 0, help.stderr);
    const lines = help.stdout.trimEnd().split('\n');
    assert.ok(lines.length <= MAX_LINES, `ledgerhook --help is ${lines.length} lines`);
    const headings = lines.filter((line) => /^\S.*:$/.test(line));
    const groups = Object.values(COMMAND_GROUPS);
    assert.deepEqual(
      headings.filter((heading) => heading !== 'Options:' && heading !== 'Examples:'),
      groups,
      'the groups, in order, and no command outside them',
    );
    const listed = [...help.stdout.matchAll(/^ {2}([a-z][\w-]*)(?= |$)/gm)].map((match) => match[1]);
    const names = commandsOf(program())
      .filter(({ path }) => path.length === 1)
      .map(({ path }) => path[0]);
    assert.deepEqual(listed.sort(), [...names, 'help'].sort(), 'each command listed once');
    const examples = help.stdout.slice(help.stdout.indexOf('\nExamples:\n'));
    assert.equal(examples.match(/^ {2}\$ ledgerhook /gm)?.length, 3, examples);
  });

  it(`every command's and subcommand's default help is at most ${MAX_LINES} lines, with its common options only`, async () => {
    const problems: string[] = [];
    for (const { path, command } of commandsOf(program())) {
      const help = await helpOf(command);
      const lines = help.trimEnd().split('\n').length;
      if (lines > MAX_LINES) problems.push(`${path.join(' ')} --help is ${lines} lines`);
      const shown = flagsListed(help, 'Options:').filter((flag) => flag !== '--help');
      if (shown.join() !== commonFlags(command).join())
        problems.push(`${path.join(' ')} --help lists ${shown.join()} as its options`);
      const advanced = visibleFlags(command).length - commonFlags(command).length;
      if (advanced > 0 && !flagsListed(help, ADVANCED_OPTIONS).includes(HELP_ALL))
        problems.push(`${path.join(' ')} has ${advanced} advanced options and no line naming ${HELP_ALL}`);
    }
    assert.deepEqual(problems, []);
  });

  it('--help-all lists every option of each command, the common ones first; only --help-all itself is hidden', async () => {
    const problems: string[] = [];
    for (const { path, command } of commandsOf(program())) {
      const hidden = command.options.filter((option) => option.hidden).map((option) => option.long);
      const leaf = command.commands.length === 0;
      if (hidden.join() !== (leaf ? HELP_ALL : '')) problems.push(`${path.join(' ')} hides ${hidden.join()}`);
      if (!leaf) continue;
      const help = await helpOf(command, true);
      const listed = [...help.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((match) => match[1] as string);
      const common = [...commonFlags(command), '--help'];
      const advanced = visibleFlags(command).filter((flag) => !common.includes(flag));
      if (
        listed.slice(0, common.length).join() !== common.join() ||
        listed.slice(common.length).sort().join() !== advanced.sort().join()
      )
        problems.push(`${path.join(' ')} --help-all lists ${listed.join()}`);
    }
    assert.deepEqual(problems, []);
  });

  it('no help text names spec sections or internal words', async () => {
    const top = await spawnedTopHelp();
    const problems = INTERNAL.test(top.stdout) ? [`ledgerhook --help: ${INTERNAL.exec(top.stdout)?.[0]}`] : [];
    for (const { path, command } of commandsOf(program()))
      for (const full of command.commands.length === 0 ? [false, true] : [false]) {
        const found = INTERNAL.exec(await helpOf(command, full));
        if (found) problems.push(`${path.join(' ')} ${full ? HELP_ALL : '--help'}: "${found[0]}"`);
      }
    assert.deepEqual(problems, []);
  });

  it('ledgerhook listen --help-all prints the advanced options --help leaves out, with more examples', async () => {
    // One page from the built bin, the other in-process from the same definitions.
    const [help, all] = await Promise.all([runCli(['listen', '--help']), runInProcess(['listen', HELP_ALL])]);
    for (const page of [help, all]) {
      assert.equal(page.code, 0, page.stderr);
      assert.equal(page.stderr, '');
    }
    assert.match(help.stdout.replace(/\s+/g, ' '), /--help-all show the \d+ advanced options .*docs\/cli\/listen\.md/);
    assert.ok(!help.stdout.includes('--max-connections'), 'an advanced option stays out of --help');
    assert.ok(all.stdout.includes('--max-connections'), '--help-all prints it');
    assert.match(all.stdout, /\nMore examples:\n/);
  });

  it('--help-all after a subcommand is that subcommand’s, whatever its parent takes', async () => {
    const full = await runInProcess(['captures', 'show', HELP_ALL]);
    assert.equal(full.code, 0, full.stderr);
    assert.match(full.stdout, /^Usage: ledgerhook captures show /);
    assert.match(full.stdout, /\n {2}--secret <secret>/, 'its advanced options');
  });
});
