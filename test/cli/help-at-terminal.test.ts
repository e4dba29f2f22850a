/**
 * `ledgerhook --help` at a terminal (issue 23). commander wraps the help to the terminal's width;
 * bin/ledgerhook.js prints instead the page the build saved for that width (help-pages.json,
 * scripts/help-pages.mjs), without the bundle. Both are held to commander's page byte for byte: at
 * every width from 0 to 300 and a few far past the widest page, and end to end at a pseudo-terminal
 * (util-linux `script`) sized with `stty cols`, which Node reads with the TIOCGWINSZ ioctl as
 * process.stdout.columns (the COLUMNS variable plays no part).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { shellQuote } from '../../src/util/shell-quote.js';
import { tempDir } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE_MAIN = join(ROOT, 'dist/cli-bundle/main.js');
const RENDER = join(ROOT, 'scripts/help-pages.mjs');

/** `script` is util-linux, on every Linux this runs on; where it is not, ONE loud line and a skip. */
function scriptMissing(): string | false {
  if (spawnSync('script', ['--version'], { stdio: 'ignore' }).error === undefined) return false;
  const message = 'NO `script` (util-linux) on PATH: the --help-at-a-terminal tests skipped';
  console.error(`\n*** ${message} ***\n`);
  return message;
}
const skip = scriptMissing();

/** Colour allowed, as at a user's terminal (commander strips escape codes only when it is off). */
function terminalEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LEDGERHOOK_CONFIG_DIR: tempDir('ledgerhook-config-') };
  delete env.NO_COLOR;
  delete env.NODE_EXTRA_CA_CERTS; // Node 20 parses the bundle at every start (~50 ms), for nothing here
  return env;
}

/** Runs a shell command at a new pseudo-terminal; its output as written (-opost: no "\n" to "\r\n"). */
function atTerminal(command: string, env: NodeJS.ProcessEnv = terminalEnv()): string {
  const result = spawnSync('script', ['-qec', `stty -opost; ${command}`, '/dev/null'], {
    encoding: 'utf8',
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(result.status, 0, `${command}: ${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** The shim and the pages it reads, with no bundle beside them: a page not saved would fail to load it. */
function shimAlone(): string {
  const dir = tempDir('ledgerhook-shim-');
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'dist/cli-bundle'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  copyFileSync(join(ROOT, 'bin/ledgerhook.js'), join(dir, 'bin/ledgerhook.js'));
  for (const file of ['help.txt', 'help-pages.json'])
    copyFileSync(join(ROOT, 'dist/cli-bundle', file), join(dir, 'dist/cli-bundle', file));
  return join(dir, 'bin/ledgerhook.js');
}

/** scripts/help-pages.mjs's output: each page followed by a NUL. */
function pagesOf(output: string, count: number): string[] {
  const pages = output.split('\0');
  assert.equal(pages.pop(), '', 'the output ends with a NUL');
  assert.equal(pages.length, count);
  return pages;
}

const quote = (words: string[]) => words.map(shellQuote).join(' ');

describe('ledgerhook --help at a terminal', { skip }, () => {
  it("prints commander's page at every width, without the bundle", () => {
    const widths = [...Array.from({ length: 301 }, (_, width) => width), 500, 1000, 65_535];
    // commander's pages: the bundle at a process.stdout that says it is a TTY of each width.
    const child = spawnSync(process.execPath, [RENDER, BUNDLE_MAIN, ...widths.map(String)], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(child.status, 0, child.stderr);
    const commander = pagesOf(child.stdout, widths.length);
    // The shim's, the same way but at a real terminal (it prints the saved page only there).
    const shim = pagesOf(
      atTerminal(`exec ${quote([process.execPath, RENDER, shimAlone(), ...widths.map(String)])}`),
      widths.length,
    );
    const wrong = widths.filter((_width, at) => shim[at] !== commander[at]);
    assert.deepEqual(wrong, [], 'widths where the saved page is not commander’s');
    // Sanity: the widths give different pages (the fake width reached commander) and 80 is help.txt's.
    assert.notEqual(commander[40], commander[120]);
    const offTerminal = spawnSync(process.execPath, [BUNDLE_MAIN, '--help'], { encoding: 'utf8', env: { PATH: '' } });
    assert.equal(commander[80], offTerminal.stdout);
  });

  it('is the page `ledgerhook help` builds with commander at the same terminal, at any size', () => {
    const shim = shimAlone();
    const bin = join(ROOT, 'bin/ledgerhook.js');
    for (const columns of [0, 39, 40, 61, 80, 101, 161, 250]) {
      const size = `stty cols ${columns} rows 40`;
      const saved = atTerminal(`${size}; exec ${quote([process.execPath, shim, '--help'])}`);
      const built = atTerminal(`${size}; exec ${quote([process.execPath, bin, 'help'])}`);
      assert.equal(saved, built, `${columns} columns`);
      assert.match(saved, /^Usage: ledgerhook /);
    }
    const short = atTerminal(`stty cols 100; exec ${quote([process.execPath, shim, '-h'])}`);
    assert.equal(short, atTerminal(`stty cols 100; exec ${quote([process.execPath, bin, 'help'])}`));
  });
});
