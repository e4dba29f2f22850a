#!/usr/bin/env node
// `ledgerhook --help` (or -h) written to a pipe, a file or /dev/null is the text the build saved from
// this very program (scripts/bundle-cli.mjs: dist/cli-bundle/help.txt; a test holds them equal),
// printed without loading the bundle and commander and building every command (issue 23: ~95M
// instructions under callgrind, as much as Node's own start). At a terminal commander wraps the help
// to the window's width (which only a TTY stream, itself costly, can tell), so that goes the usual way.
const args = process.argv.slice(2);
if (!(args.length === 1 && (args[0] === '--help' || args[0] === '-h') && printSavedHelp())) {
  // Node 22.1+ keeps V8's compiled code of the CLI bundle on disk and reuses it at the next start; Node 20
  // has no enableCompileCache and simply loads the bundle (NODE_DISABLE_COMPILE_CACHE=1 turns it off).
  // process.getBuiltinModule rather than `import 'node:module'`, whose namespace would load more of Node.
  if (Number(process.versions.node.split('.')[0]) >= 22) process.getBuiltinModule('node:module').enableCompileCache?.();
  if (!(args[0] === 'verify' && (await startVerify()))) await import('../dist/cli-bundle/main.js');
}

/**
 * `verify` with a plain command line runs from its own small bundle, without commander or the start chunk
 * (src/cli/verify-start.ts); false for anything else (help, a mistake), before any side effect: main.js
 * then runs. LEDGERHOOK_PLAIN_START=0 always takes main.js (the tests compare the two to the byte).
 */
async function startVerify() {
  if (process.env.LEDGERHOOK_PLAIN_START === '0') return false;
  const { startVerify } = await import('../dist/cli-bundle/verify-start.js');
  return startVerify(args);
}

/** Prints the saved help when stdout is no terminal and the text is there; false: the usual way. */
function printSavedHelp() {
  const fs = process.getBuiltinModule('node:fs');
  let text;
  try {
    const out = fs.fstatSync(1);
    // A terminal is a character device; so is /dev/null, the one such device known not to be one.
    if (out.isCharacterDevice() && out.rdev !== fs.statSync('/dev/null').rdev) return false;
    text = fs.readFileSync(new URL('../dist/cli-bundle/help.txt', import.meta.url));
  } catch {
    return false; // not built, or no /dev/null (Windows): the usual way
  }
  let written = 0;
  try {
    while (written < text.length) written += fs.writeSync(1, text, written);
  } catch (error) {
    // `ledgerhook --help | head` closes the pipe early: not an error (as main.ts says for any command).
    if (error?.code === 'EPIPE') return true;
    // A non-blocking stdout that is full: the stream waits for it, as commander's own write would.
    if (error?.code === 'EAGAIN') process.stdout.write(text.subarray(written));
    else throw error;
  }
  return true;
}
