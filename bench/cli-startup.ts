/**
 * Cold-process wall time of `ledgerhook --help` and `ledgerhook verify FILE --token T --secret S`
 * against `node -e 0`, interleaved run by run, on every Node this machine has: the one running the
 * bench, and the Node 22 and 24 that `.ci/run` installs into ~/.cache/ledgerhook-ci-node (or
 * LEDGERHOOK_NODE_CACHE). Goal: at most 1.3x `node -e 0` for both, on each.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signWebhook } from '../src/index.js';
import { timeProcessSamples } from './lib/measure.js';
import { reportRatio } from './lib/ratio.js';

/** This Node, and the Node 22 and 24 that .ci/run installs (when they are there). */
export function nodes(): Array<[string, string]> {
  const cache =
    process.env.LEDGERHOOK_NODE_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'ledgerhook-ci-node');
  const found: Array<[string, string]> = [[`node ${process.version}`, process.execPath]];
  for (const major of [22, 24]) {
    const bin = join(cache, `node${major}`, 'node_modules', 'node', 'bin', 'node');
    if (existsSync(bin)) found.push([`node ${major} (${bin})`, bin]);
    else console.log(`\n(node ${major} not installed at ${bin}: run .ci/run once, or see bench/cli-startup.ts)`);
  }
  return found;
}

/**
 * The environment of a timed start: settings in `dir`, no colour, and no NODE_EXTRA_CA_CERTS (set on
 * some machines, this one included): Node 20 parses that bundle at every start (~50 ms, 4x `node -e
 * 0`'s own work) where Node 22+ waits for a TLS connection, so with it Node 20's floor is mostly
 * certificates and every ratio looks better than it is.
 */
export function coldStartEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LEDGERHOOK_CONFIG_DIR: dir, NO_COLOR: '1' };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

export async function benchCliStartup(runs = Number(process.env.LEDGERHOOK_BENCH_RUNS ?? 15)): Promise<void> {
  const bin = fileURLToPath(new URL('../bin/ledgerhook.js', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'ledgerhook-bench-'));
  const body = '{"userId":"u-1","type":"ENTITY_UPDATE","entities":["expense","invoice"]}';
  writeFileSync(join(dir, 'body.json'), body);
  // Two floors under the goal, for the reading: any ES module entry (the bin is one: the package is
  // ESM only), and node:crypto loaded for one HMAC (what any verify must do).
  writeFileSync(join(dir, 'empty.mjs'), '');
  const hmac = "require('node:crypto').createHmac('sha256', 'k').update('x').digest()";
  // The least an ES module bin that verifies costs: both floors at once.
  writeFileSync(join(dir, 'hmac.mjs'), hmac.replace('require(', 'process.getBuiltinModule('));
  const token = await signWebhook(body, 'bench-secret', { iat: Math.floor(Date.now() / 1000) + 3600 });
  const env = coldStartEnv(dir);
  const verify = ['verify', join(dir, 'body.json'), '--token', token, '--secret', 'bench-secret', '--ignore-expiry'];
  for (const [label, node] of nodes()) {
    // One untimed start first: it fills Node 22+'s compile cache, as any earlier run of the CLI would.
    timeProcessSamples({ warm: [node, bin, '--help'], warmVerify: [node, bin, ...verify] }, 1, env);
    const times = timeProcessSamples(
      {
        floor: [node, '-e', '0'],
        help: [node, bin, '--help'],
        verify: [node, bin, ...verify],
        esm: [node, join(dir, 'empty.mjs')],
        crypto: [node, '-e', hmac],
        esmCrypto: [node, join(dir, 'hmac.mjs')],
      },
      runs,
      env,
    );
    const floor = { label: 'node -e 0', samples: times.floor ?? [] };
    const goal = { better: 'lower', ratio: 1.3 } as const;
    reportRatio(
      `Cold start, ${label}: ledgerhook --help vs node -e 0`,
      floor,
      { label: 'ledgerhook --help', samples: times.help ?? [] },
      goal,
      'ms',
      1,
    );
    reportRatio(
      `Cold start, ${label}: ledgerhook verify FILE --token T --secret S vs node -e 0`,
      floor,
      { label: 'ledgerhook verify', samples: times.verify ?? [] },
      goal,
      'ms',
      1,
    );
    for (const [key, what, name] of [
      ['esm', 'an empty ES module (the least any ESM bin costs)', 'node empty.mjs'],
      ['crypto', 'node:crypto loaded for one HMAC (the least any verify costs)', 'node -e <one HMAC>'],
      ['esmCrypto', 'an ES module that loads node:crypto for one HMAC (both floors)', 'node hmac.mjs'],
    ] as const)
      reportRatio(
        `Floor, ${label}: ${what} vs node -e 0`,
        floor,
        { label: name, samples: times[key] ?? [] },
        goal,
        'ms',
        1,
      );
  }
}
