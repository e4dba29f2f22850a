/**
 * Just enough Markdown for test/cli/docs-pages.test.ts: headings and their sections, flags tables,
 * links, and the command lines a page shows (in code blocks and in inline code), each outside or
 * inside fenced code as it matters.
 */

interface Line {
  text: string;
  /** Inside a fenced code block (the fence lines included). */
  code: boolean;
}

function lines(markdown: string): Line[] {
  let fenced = false;
  return markdown.split('\n').map((text) => {
    const fence = /^\s*(```|~~~)/.test(text);
    if (fence) fenced = !fenced;
    return { text, code: fence || fenced };
  });
}

export interface Heading {
  level: number;
  text: string;
  index: number;
}

export function headings(markdown: string): Heading[] {
  const found: Heading[] = [];
  lines(markdown).forEach((line, index) => {
    const match = line.code ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line.text);
    if (match) found.push({ level: (match[1] as string).length, text: match[2] as string, index });
  });
  return found;
}

/** The anchors GitHub gives the headings of a page. */
export function headingSlugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const { text } of headings(markdown)) {
    const plain = text.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** Each section whose heading `wanted` accepts: its title and the lines up to the next heading of its level or above. */
export function sectionsUnder(
  markdown: string,
  wanted: (title: string) => boolean,
): Array<{ title: string; body: string }> {
  const all = markdown.split('\n');
  const found = headings(markdown);
  return found
    .filter((heading) => wanted(heading.text))
    .map((heading) => {
      const next = found.find((other) => other.index > heading.index && other.level <= heading.level);
      return { title: heading.text, body: all.slice(heading.index + 1, next?.index).join('\n') };
    });
}

const FLAG = /(?:^|[\s,[(|/])(--[a-z0-9][a-z0-9-]*)/g;

/** The long flags a text names, in order. */
function flagsOf(text: string): string[] {
  return [...text.matchAll(FLAG)].map((match) => match[1] as string);
}

function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
}

/** A table row's cells, a `|` inside inline code not counting as a border. */
function cells(row: string): string[] {
  const found: string[] = [];
  let cell = '';
  let inCode = false;
  for (const char of row.trim().replace(/^\|/, '').replace(/\|$/, '')) {
    if (char === '`') inCode = !inCode;
    if (char === '|' && !inCode) {
      found.push(cell);
      cell = '';
    } else cell += char;
  }
  return [...found, cell];
}

/**
 * The flags a flags section lists: those in inline code in the first cell of each table row, and
 * at the start of each list item (`- \`--flag VALUE\`: ...`).
 */
export function tableFlagEntries(section: string): string[] {
  const flags: string[] = [];
  for (const { text, code } of lines(section)) {
    if (code) continue;
    if (/^\s*\|/.test(text) && !/^\s*\|[\s:|-]*$/.test(text))
      for (const span of codeSpans(cells(text)[0] ?? '')) flags.push(...flagsOf(span));
    const item = /^\s*[-*]\s+((?:`[^`]+`[\s,/or]*)+)/.exec(text);
    if (item) for (const span of codeSpans(item[1] as string)) flags.push(...flagsOf(span));
  }
  return flags;
}

/** The page's text outside fenced code. */
export function proseOf(markdown: string): string {
  return lines(markdown)
    .filter((line) => !line.code)
    .map((line) => line.text)
    .join('\n');
}

const INVOCATION = /^(?:npx\s+)?(?:ledgerhook\s+)?([a-z][\w-]*)/;

/** Quoted words are values: `EDITOR="code --wait"` names no flag. */
const unquoted = (text: string) => text.replace(/'[^']*'|"[^"]*"/g, 'VALUE');

/** The flags named in inline code that is not a command line (`--json`, not `sync --json`). */
export function flagsIn(prose: string, isCommand: (word: string) => boolean): string[] {
  return codeSpans(prose)
    .filter((span) => !isCommand(INVOCATION.exec(span.trim())?.[1] ?? ''))
    .flatMap((span) => flagsOf(unquoted(span)));
}

export interface Invocation {
  command: string;
  subcommand: string | undefined;
  flags: string[];
  text: string;
}

const STOP = new Set(['|', '||', '&&', ';', '&', '>', '>>', '<', '2>', '2>&1']);

/** One command line from its command word on: the subcommand (a word right after it) and the flags, up to the shell's next command. */
function invocationAt(command: string, rest: string): Invocation {
  const words = unquoted(rest).split(/\s+/).filter(Boolean);
  const flags: string[] = [];
  const used: string[] = [command];
  let subcommand: string | undefined;
  for (const [index, word] of words.entries()) {
    if (STOP.has(word) || word.startsWith('#') || word === 'ledgerhook') break;
    used.push(word);
    if (index === 0 && /^[a-z][\w-]*$/.test(word)) subcommand = word;
    const flag = /^[[(]*(--[a-z0-9][a-z0-9-]*)/.exec(word);
    if (flag) flags.push(flag[1] as string);
    if (/[`)]/.test(word)) break;
  }
  return { command, subcommand, flags, text: used.join(' ') };
}

/**
 * Every use of a command the page shows: in fenced code, each `ledgerhook COMMAND ...` (lines ending
 * in `\` joined); in prose, inline code that starts with a command (`listen --sync`,
 * `ledgerhook sync --watch`).
 */
export function invocations(markdown: string, isCommand: (word: string) => boolean): Invocation[] {
  const found: Invocation[] = [];
  const code = lines(markdown)
    .filter((line) => line.code)
    .map((line) => line.text)
    .join('\n')
    .replace(/\\\n/g, ' ');
  for (const line of code.split('\n'))
    for (const match of line.matchAll(/(?:^|[^\w/.@-])ledgerhook\s+([a-z][\w-]*)/g)) {
      const command = match[1] as string;
      if (isCommand(command)) found.push(invocationAt(command, line.slice(match.index + match[0].length)));
    }
  for (const span of codeSpans(proseOf(markdown))) {
    const match = INVOCATION.exec(span.trim());
    if (match && isCommand(match[1] as string))
      found.push(invocationAt(match[1] as string, span.trim().slice(match[0].length)));
  }
  return found;
}

/** The targets of the page's links and images, outside code. */
export function linksIn(markdown: string): string[] {
  const prose = proseOf(markdown).replace(/`[^`]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] as string);
}
