#!/usr/bin/env node
// `ledgerhook --help` (or -h) written to a pipe, a file or /dev/null is the text the build saved from
// this very program (scripts/bundle-cli.mjs: dist/cli-bundle/help.txt; a test holds them equal),
// printed without loading the bundle and commander and building every command (issue 23: ~95M
// instructions under callgrind, as much as Node's own start). At a terminal, where commander wraps the
// help to the window's width, it is the page the build saved for that width (terminalHelp below).
const args = process.argv.slice(2);
if (!(args.length === 1 && (args[0] === '--help' || args[0] === '-h') && printSavedHelp())) {
  // Node 22.1+ keeps V8's compiled code of the CLI bundle on disk and reuses it at the next start; Node 20
  // has no enableCompileCache and simply loads the bundle (NODE_DISABLE_COMPILE_CACHE=1 turns it off).
  // process.getBuiltinModule rather than `import 'node:module'`, whose namespace would load more of Node.
  if (Number(process.versions.node.split('.')[0]) >= 22) process.getBuiltinModule('node:module').enableCompileCache?.();
  await import('../dist/cli-bundle/main.js');
}

/** Prints the saved help, off a terminal or at one; false: the usual way (not built, Windows, odd stdout). */
function printSavedHelp() {
  const fs = process.getBuiltinModule('node:fs');
  let text;
  try {
    const out = fs.fstatSync(1);
    // A terminal is a character device; so is /dev/null, the one such device known not to be one.
    if (out.isCharacterDevice() && out.rdev !== fs.statSync('/dev/null').rdev) text = terminalHelp(fs);
    else text = fs.readFileSync(new URL('../dist/cli-bundle/help.txt', import.meta.url)); // as at 80 columns
  } catch {
    return false; // not built, or no /dev/null (Windows): the usual way
  }
  if (text === undefined) return false;
  let written = 0;
  try {
    while (written < text.length) written += fs.writeSync(1, text, written);
  } catch (error) {
    // `ledgerhook --help | head` closes the pipe early: not an error (as main.ts says for any command).
    if (error?.code === 'EPIPE') return true;
    // A non-blocking stdout that is full: the stream waits for it, as commander's own write would.
    if (error?.code === 'EAGAIN') process.stdout.write(text.subarray(written));
    // Any other failure (a full disk, a descriptor not open for writing): the usual way, which writes
    // the page again and says in one line why it cannot (main.ts's session), not with a stack trace.
    else return false;
  }
  return true;
}

/**
 * At a terminal commander wraps the help to process.stdout.columns. Node's only public way to that
 * width is the TTY stream itself (~3-4 ms to build: it loads net and the streams; the internal
 * process.binding('tty_wrap') is cheaper but not for use outside Node). The build saved the page of
 * every width that gives a distinct one, from the least width that prints it (help-pages.json,
 * scripts/help-pages.mjs); none has colour codes (the build checks), so NO_COLOR and FORCE_COLOR
 * change nothing. undefined: the usual way (a character device that is no TTY, no width known).
 */
function terminalHelp(fs) {
  const { isTTY, columns } = process.stdout;
  if (!isTTY || !Number.isSafeInteger(columns) || columns < 0) return undefined;
  const saved = JSON.parse(fs.readFileSync(new URL('../dist/cli-bundle/help-pages.json', import.meta.url), 'utf8'));
  let at = 0;
  while (at + 1 < saved.widths.length && saved.widths[at + 1] <= columns) at += 1;
  return Buffer.from(saved.pages[at].map((line) => saved.lines[line]).join('\n'));
}
