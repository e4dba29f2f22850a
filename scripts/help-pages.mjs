/**
 * `ledgerhook --help` at a terminal, saved by the build for every width (issue 23). commander 14 wraps
 * help to process.stdout.columns when stdout is a TTY (Command#getOutHelpWidth; Help#formatItem and
 * #boxWrap, which wrap nothing below Help#minWidthToWrap = 40), so the page depends on the width;
 * but few widths give a page of their own: 66 distinct pages today, one for 0-39 (nothing wraps),
 * then 65 from 40 to 162, and the same page for every width from 162 on.
 * dist/cli-bundle/help-pages.json holds each distinct page once, as indexes into the distinct lines
 * of them all (~35 kB, ~4 kB gzipped, where all 367 pages rendered are ~1.2 MB), with the least width
 * that prints it; bin/ledgerhook.js picks the page for the terminal's columns instead of loading the
 * bundle and commander.
 *
 * The pages are commander's own: this file, run as a script, imports the bundle once per width (a
 * new module instance each time: `main.js?width=N`; the chunks, commander among them, are shared)
 * with a process.stdout that says it is a TTY of that width, and writes each page followed by a NUL.
 * test/cli/help-at-terminal.test.ts runs it on the bin too, at a real terminal, for every width.
 */
import { spawnSync } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = fileURLToPath(import.meta.url);

/** The pages `node <entry> --help` prints at a TTY of each width, rendered in one child process. */
export function renderHelpPages(entry, widths, env = { PATH: process.env.PATH }) {
  const child = spawnSync(process.execPath, [SELF, entry, ...widths.map(String)], {
    encoding: 'utf8',
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  const pages = child.stdout.split('\0');
  const end = pages.pop();
  if (child.status !== 0 || child.stderr !== '' || end !== '' || pages.length !== widths.length)
    throw new Error(`rendering --help at ${widths.length} widths failed (${pages.length} pages): ${child.stderr}`);
  return pages;
}

/** Saves every distinct page of `main` (the bundle's entry) at a terminal to `file`. */
export function saveHelpPages(main, file) {
  // At width 0 nothing is wrapped, so every line of every description is whole in that page and no
  // longer than its widest line L; so are the item terms. A description is left as it is once its
  // box is at least 40 and as wide as its longest line, which happens for every one by width
  // term + 4 + max(40, L) <= 2L + 44: the page is the same for every width from there on.
  const [unwrapped = ''] = renderHelpPages(main, [0]);
  const bound = 2 * Math.max(...unwrapped.split('\n').map((line) => line.length)) + 44;
  const widths = Array.from({ length: bound + 1 }, (_, width) => width);
  const rendered = renderHelpPages(main, widths);
  // Rendered with colour allowed (no NO_COLOR, a TTY that has colours): commander strips escape codes
  // only when colour is off, so a page without any is the same either way, as the bin assumes.
  if (rendered.some((page) => page.includes('\x1b')))
    throw new Error('ledgerhook --help has colour codes: bin/ledgerhook.js saves pages that have none');
  const saved = { widths: [], lines: [], pages: [] };
  const lineIndex = new Map();
  rendered.forEach((page, width) => {
    if (page === rendered[width - 1]) return;
    saved.widths.push(width);
    saved.pages.push(
      page.split('\n').map((line) => {
        if (!lineIndex.has(line)) lineIndex.set(line, saved.lines.push(line) - 1);
        return lineIndex.get(line);
      }),
    );
  });
  // The bin's reading of it (the last page whose width is at most the columns), checked at every width.
  for (const [width, page] of rendered.entries())
    if (pageFor(saved, width) !== page) throw new Error(`help-pages: width ${width} does not round-trip`);
  if (pageFor(saved, 100_000) !== rendered[bound]) throw new Error('help-pages: the widest page does not hold');
  writeFileSync(file, JSON.stringify(saved));
}

/** The saved page for a width, as bin/ledgerhook.js reads it. */
function pageFor(saved, width) {
  let at = 0;
  while (at + 1 < saved.widths.length && saved.widths[at + 1] <= width) at += 1;
  return saved.pages[at].map((line) => saved.lines[line]).join('\n');
}

/** The child: `node help-pages.mjs ENTRY WIDTH...` prints ENTRY's --help at each width, each followed by NUL. */
async function renderChild([entry, ...widths]) {
  const { writeSync } = await import('node:fs');
  let columns = 0;
  // What commander asks of process.stdout for help (isTTY, columns, hasColors), and what the program
  // would do with it if it built the stream (write, on): the program itself writes to fd 1.
  const stdout = {
    isTTY: true,
    get columns() {
      return columns;
    },
    hasColors: () => true,
    getColorDepth: () => 8,
    write: (text) => writeSync(1, text) > 0,
    on: () => stdout,
  };
  Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => stdout });
  // main.ts ends with a 2 s unref'd timer that exits the process: one per render, cleared after it.
  const timers = [];
  const setTimer = globalThis.setTimeout;
  globalThis.setTimeout = (...args) => {
    const timer = setTimer(...args);
    timers.push(timer);
    return timer;
  };
  const url = pathToFileURL(entry).href;
  for (const width of widths) {
    columns = Number(width);
    process.argv = [process.argv[0], entry, '--help'];
    await import(`${url}?width=${width}`);
    for (const timer of timers.splice(0)) clearTimeout(timer);
    writeSync(1, '\0');
  }
  process.exitCode = 0;
}

if (process.argv[1] && realpathSync(process.argv[1]) === SELF) await renderChild(process.argv.slice(2));
