/**
 * The manual cannot fall behind the command line: every command and every flag in `--help` has its
 * page under docs/cli/ and an entry in that page's flags table, no page lists or uses a flag its
 * command does not have, every page is linked from docs/index.md, and every link between the pages
 * leads somewhere. The commands are read from the commander program main.ts builds (in process), the
 * pages as Markdown text.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Command } from '@commander-js/extra-typings';
import { programFromDefinitions } from '../helpers/in-process-cli.js';
import {
  flagsIn,
  headingSlugs,
  headings,
  invocations,
  linksIn,
  proseOf,
  sectionsUnder,
  tableFlagEntries,
} from '../helpers/markdown.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI_DOCS = join(ROOT, 'docs', 'cli');
/** Flags every command takes, from commander or the program itself (--help-all: help-layout.ts). */
const GLOBAL_FLAGS = new Set(['--help', '--version', '--debug', '--help-all']);

type AnyCommand = Command<unknown[], Record<string, unknown>>;
const program = programFromDefinitions(async () => {}, { out: () => {}, err: () => {} }) as unknown as AnyCommand;
const commands = program.commands.filter((command) => command.name() !== 'help') as AnyCommand[];
const byName = new Map(commands.map((command) => [command.name(), command]));

/** Every flag of a command, the advanced ones `--help` leaves out (help-layout.ts) included. */
const longFlags = (command: AnyCommand): string[] =>
  command.options.filter((option) => !option.hidden && option.long).map((option) => option.long as string);
/** The flags only `--help-all` prints. */
const advancedFlags = (command: AnyCommand): string[] =>
  command.options
    .filter((option) => !option.hidden && option.long && option.helpGroupHeading !== undefined)
    .map((option) => option.long as string);
const subcommandsOf = (command: AnyCommand): AnyCommand[] =>
  command.commands.filter((sub) => sub.name() !== 'help') as AnyCommand[];
/** The flags a use of `command` (and of any of its subcommands, when `sub` is not named) may carry. */
function flagsAllowed(command: AnyCommand, sub?: AnyCommand): Set<string> {
  const own = sub ? longFlags(sub) : [command, ...subcommandsOf(command)].flatMap(longFlags);
  return new Set([...own, ...GLOBAL_FLAGS]);
}

const pagePath = (name: string) => join(CLI_DOCS, `${name}.md`);
const read = (path: string) => readFileSync(path, 'utf8');

/** README.md and every Markdown file under docs/. */
function manualFiles(): string[] {
  const files = [join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.md')) files.push(join(dir, entry.name));
    }
  };
  walk(join(ROOT, 'docs'));
  return files;
}

describe('every command in --help has its page, and every flag its entry (docs/cli/)', () => {
  for (const command of commands) {
    const name = command.name();
    const page = pagePath(name);
    describe(name, () => {
      it(`has docs/cli/${name}.md with examples before the flags, exit codes and its --json`, () => {
        assert.ok(
          existsSync(page),
          `ledgerhook ${name} has no page: write docs/cli/${name}.md (synopsis, examples, flags, exit codes)`,
        );
        const text = read(page);
        const titles = headings(text).map((heading) => heading.text);
        const examples = titles.findIndex((title) => /example/i.test(title));
        const flags = titles.findIndex((title) => /\bflags\b/i.test(title));
        const problems: string[] = [];
        if (examples < 0) problems.push('no Examples heading');
        else if (flags >= 0 && flags < examples) problems.push('the flags come before the examples');
        if (!titles.some((title) => /exit code/i.test(title))) problems.push('no Exit codes heading');
        const takesJson = [command, ...subcommandsOf(command)].some((each) => longFlags(each).includes('--json'));
        if (takesJson && !titles.some((title) => title.includes('--json')) && !text.includes('json.md'))
          problems.push('it takes --json: give its fields under a `--json` heading, or link docs/json.md');
        for (const sub of subcommandsOf(command))
          if (!titles.some((title) => title.includes(`${name} ${sub.name()}`)))
            problems.push(`no heading names \`${name} ${sub.name()}\``);
        assert.deepEqual(problems, [], `docs/cli/${name}.md`);
      });

      it('lists every flag, and no flag the command does not have', (t) => {
        if (!existsSync(page)) return t.skip('no page (the test above fails)');
        const sections = sectionsUnder(read(page), (title) => /\bflags\b/i.test(title));
        const subs = subcommandsOf(command);
        const problems: string[] = [];
        if (sections.length === 0 && flagsAllowed(command).size > GLOBAL_FLAGS.size) problems.push('no Flags section');
        const listed = new Map<AnyCommand | undefined, Set<string>>();
        for (const section of sections) {
          const sub = subs.find((each) => section.title.includes(`${name} ${each.name()}`));
          const allowed = flagsAllowed(command, sub);
          const set = listed.get(sub) ?? new Set<string>();
          listed.set(sub, set);
          for (const flag of tableFlagEntries(section.body)) {
            if (!allowed.has(flag))
              problems.push(
                `"${section.title}" lists ${flag}: not a flag of ledgerhook ${name}${sub ? ` ${sub.name()}` : ''}`,
              );
            set.add(flag);
          }
        }
        const generic = listed.get(undefined) ?? new Set<string>();
        for (const flag of longFlags(command))
          if (!generic.has(flag)) problems.push(`${flag} (in --help) has no entry in the Flags table`);
        for (const sub of subs)
          for (const flag of longFlags(sub))
            if (!generic.has(flag) && !listed.get(sub)?.has(flag))
              problems.push(`\`${name} ${sub.name()} ${flag}\` (in --help) has no entry in a Flags table`);
        assert.deepEqual(problems, [], `docs/cli/${name}.md`);
      });

      it('groups its flags as --help does: the advanced ones under an "Advanced" heading, the common ones not', (t) => {
        if (!existsSync(page)) return t.skip('no page (the test above fails)');
        const text = read(page);
        const flagSections = sectionsUnder(text, (title) => /\bflags\b/i.test(title));
        const advancedSections = sectionsUnder(text, (title) => /advanced/i.test(title));
        const subs = subcommandsOf(command);
        // A section is a subcommand's when its title names it (`captures show`), else the command's.
        const owner = (title: string) => subs.find((each) => title.includes(`${name} ${each.name()}`)) ?? command;
        const problems: string[] = [];
        for (const each of [command, ...subs]) {
          const advanced = new Set(advancedFlags(each));
          const listedAdvanced = new Set(
            advancedSections
              .filter((section) => owner(section.title) === each)
              .flatMap((section) => tableFlagEntries(section.body)),
          );
          const listed = flagSections
            .filter((section) => owner(section.title) === each)
            .flatMap((section) => tableFlagEntries(section.body));
          const label = each === command ? name : `${name} ${each.name()}`;
          for (const flag of new Set(listed)) {
            if (advanced.has(flag) && !listedAdvanced.has(flag))
              problems.push(`${flag} is an advanced flag of ${label} (--help-all): list it under an Advanced heading`);
            if (!advanced.has(flag) && listedAdvanced.has(flag))
              problems.push(
                `${flag} is a common flag of ${label} (--help lists it): list it outside the Advanced headings`,
              );
          }
        }
        assert.deepEqual(problems, [], `docs/cli/${name}.md`);
      });

      it('names in its prose only flags the command has', (t) => {
        if (!existsSync(page)) return t.skip('no page (the test above fails)');
        const allowed = flagsAllowed(command);
        const foreign = flagsIn(proseOf(read(page)), (word) => byName.has(word)).filter((flag) => !allowed.has(flag));
        assert.deepEqual(
          [...new Set(foreign)],
          [],
          `docs/cli/${name}.md names flags ledgerhook ${name} does not have (write another command's as \`listen --capture\`)`,
        );
      });
    });
  }

  it('has no page for a command that does not exist', () => {
    const orphans = readdirSync(CLI_DOCS).filter((file) => file.endsWith('.md') && !byName.has(file.slice(0, -3)));
    assert.deepEqual(orphans, [], 'pages under docs/cli/ that document no command in --help');
  });
});

describe('every command line the manual shows uses flags its command has (README.md, docs/)', () => {
  for (const file of manualFiles()) {
    const shown = relative(ROOT, file);
    it(shown, () => {
      const problems: string[] = [];
      for (const use of invocations(read(file), (word) => byName.has(word))) {
        const command = byName.get(use.command) as AnyCommand;
        const sub = subcommandsOf(command).find((each) => each.name() === use.subcommand);
        const allowed = flagsAllowed(command, sub);
        for (const flag of use.flags)
          if (!allowed.has(flag))
            problems.push(
              `\`${use.text}\`: ${flag} is not a flag of ledgerhook ${use.command}${sub ? ` ${sub.name()}` : ''}`,
            );
      }
      assert.deepEqual(problems, [], shown);
    });
  }
});

describe('the manual can be found and its links lead somewhere', () => {
  it('README.md links docs/index.md, and docs/index.md every page under docs/', () => {
    assert.ok(read(join(ROOT, 'README.md')).includes('](docs/index.md)'), 'README.md links docs/index.md');
    const index = join(ROOT, 'docs', 'index.md');
    const linked = new Set(linksIn(read(index)).map((link) => resolve(dirname(index), link.split('#')[0] as string)));
    const pages = manualFiles().filter((file) => file.startsWith(join(ROOT, 'docs')) && file !== index);
    const expected = new Set([...pages, ...commands.map((command) => pagePath(command.name()))]);
    const unlinked = [...expected].filter((page) => !linked.has(page)).map((page) => relative(ROOT, page));
    assert.deepEqual(unlinked, [], 'pages docs/index.md does not link');
  });

  it('every relative link names a file that exists, and a heading in it when it names one', () => {
    const slugs = new Map<string, Set<string>>();
    const slugsOf = (file: string) => {
      if (!slugs.has(file)) slugs.set(file, headingSlugs(read(file)));
      return slugs.get(file) as Set<string>;
    };
    const broken: string[] = [];
    for (const file of manualFiles()) {
      for (const link of linksIn(read(file))) {
        if (/^[a-z]+:/i.test(link)) continue;
        const [target = '', anchor] = link.split('#');
        const path = target === '' ? file : resolve(dirname(file), target);
        if (!existsSync(path)) broken.push(`${relative(ROOT, file)}: ${link} leads to no file`);
        else if (anchor && path.endsWith('.md') && !slugsOf(path).has(anchor))
          broken.push(`${relative(ROOT, file)}: ${link} names no heading there`);
      }
    }
    assert.deepEqual(broken, [], 'broken links');
  });
});
