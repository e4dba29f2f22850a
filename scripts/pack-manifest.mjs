/**
 * `npm pack` and `npm publish` ship dist/ built and a package.json without the scripts that build a
 * clone on `npm install` (`prepare`): a user installing the tarball has nothing to build, and npm
 * nothing to warn about ("1 package has install scripts not yet covered by allowScripts").
 *
 * - `prepack`: builds (skipped with LEDGERHOOK_PACK_PREBUILT=1, when dist/ is already built), then
 *   keeps package.json as it is beside it and writes it without the install-time scripts;
 * - `postpack`: puts the kept file back, byte for byte.
 * A kept file left by a pack that failed between the two is put back first.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const MANIFEST = 'package.json';
const KEPT = 'package.json.unpacked';
/** What npm runs when it installs a package (and, for a clone or a git dependency, builds it). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'];

function putBack() {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
}

const step = process.argv[2];
if (step === 'prepack') {
  putBack();
  if (process.env.LEDGERHOOK_PACK_PREBUILT !== '1') {
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  if (!existsSync('dist/cli-bundle/main.js')) {
    console.error('pack: dist/ is not built (run npm run build)');
    process.exit(1);
  }
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  for (const name of INSTALL_SCRIPTS) delete manifest.scripts?.[name];
  copyFileSync(MANIFEST, KEPT);
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
} else if (step === 'postpack') {
  putBack();
} else {
  console.error('usage: node scripts/pack-manifest.mjs prepack|postpack');
  process.exit(2);
}
