/**
 * A clean install says nothing to worry about: no package in the lockfile asks for a newer Node than
 * the one we support (npm ci's EBADENGINE warning on Node 20), and the packed tarball ships dist/
 * built with no install-time script (npm's "install scripts not yet covered by allowScripts" warning
 * for the package's own `prepare`). The pack runs for real (`npm pack`, its prepack and postpack) in a
 * copy of the package, so the checkout's package.json is never rewritten under other tests.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
};
// semver is a production dependency (conf's): the same range logic npm's EBADENGINE check uses.
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'];

describe('a clean install', () => {
  it('every package of the lockfile runs on the oldest Node we support (no EBADENGINE)', () => {
    const oldest = semver.minVersion(manifest.engines.node)?.version ?? '';
    assert.match(oldest, /^20\./);
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string } | string[]; version?: string }>;
    };
    const refused = Object.entries(lock.packages)
      .filter(([path, entry]) => {
        const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return path !== '' && node !== undefined && !semver.satisfies(oldest, node);
      })
      .map(([path, entry]) => `${path}@${entry.version}`);
    assert.deepEqual(refused, [], `these require a newer Node than ${oldest}`);
  });

  it('npm pack ships dist/ built and no install-time script; the package.json packed from is put back', () => {
    assert.ok(existsSync(join(ROOT, 'dist/cli-bundle/main.js')), 'built first (npm test builds)');
    const copy = join(tempDir('ledgerhook-pack-'), 'package');
    mkdirSync(copy);
    for (const entry of [
      'package.json',
      '.npmignore',
      'LICENSE',
      'README.md',
      'bin',
      'dist',
      'scripts/pack-manifest.mjs',
    ])
      cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
    const before = readFileSync(join(copy, 'package.json'));
    const out = tempDir('ledgerhook-tarball-');
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
        cwd: copy,
        encoding: 'utf8',
        // dist/ is the checkout's, already built: prepack does not build it again here.
        env: { ...process.env, LEDGERHOOK_PACK_PREBUILT: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = new Set(packed[0]?.files.map((file) => file.path));
    for (const path of ['bin/ledgerhook.js', 'dist/cli-bundle/main.js', 'dist/index.js', 'dist/inspector-page/app.js'])
      assert.ok(files.has(path), `${path} is in the tarball`);
    const shipped = JSON.parse(
      execFileSync('tar', ['-xzf', join(out, packed[0]?.filename ?? ''), '-O', 'package/package.json'], {
        encoding: 'utf8',
      }),
    ) as { scripts?: Record<string, string> };
    assert.deepEqual(
      INSTALL_SCRIPTS.filter((name) => shipped.scripts?.[name] !== undefined),
      [],
      'nothing runs when the tarball is installed',
    );
    // The clone still builds on npm install; the file packed from is as it was, byte for byte.
    assert.ok(manifest.scripts.prepare, 'a clone builds on npm install');
    assert.deepEqual(readFileSync(join(copy, 'package.json')), before);
    assert.equal(existsSync(join(copy, 'package.json.unpacked')), false);
  });
});
