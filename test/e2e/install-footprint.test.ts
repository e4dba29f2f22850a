import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { OPTIONAL_PEER_NAMES } from '../../src/util/optional-peer.js';
import { assertOneLineError, tempDir } from '../helpers/cli.js';

/**
 * What an install brings: the packed tarballs (ledgerhook, and @ledgerhook/webhooks alone), installed
 * beside exactly the packages their production dependencies resolve to (taken from this checkout's
 * node_modules, so the test sends nothing past loopback). pg, bullmq, ioredis, rate-limiter-flexible
 * and @opentelemetry/api are optional peers: absent here, and a feature that needs one names the
 * package to install. A service that only receives webhooks gets jose and nothing of the CLI's.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WEBHOOKS = '@ledgerhook/webhooks';
const DESIGN_CARD = [WEBHOOKS, 'chalk', 'commander', 'conf', 'jose', 'ora', 'proper-lockfile', 'undici'];

/**
 * `npm pack` of the root package and of @ledgerhook/webhooks, in one npm process (npm costs about a
 * second of CPU to start): each package's tarball by name.
 */
function pack(work: string): Map<string, string> {
  const packed = JSON.parse(
    execFileSync(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', work, '-w', WEBHOOKS, '--include-workspace-root'],
      { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    ),
  ) as Array<{ name: string; filename: string }>;
  return new Map(packed.map((entry) => [entry.name, join(work, entry.filename)]));
}

function extract(tarball: string, into: string): void {
  mkdirSync(into, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
}

/** Links each top-level package of a closure into `modules` (nested ones come along inside their parents). */
function linkClosure(closure: Map<string, string>, modules: string): void {
  for (const [dir, name] of closure) {
    if (dir !== join(ROOT, 'node_modules', name) || existsSync(join(modules, name))) continue;
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(dir, join(modules, name), 'dir');
  }
}

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Node's lookup: node_modules/NAME beside `from`, then in each parent directory. */
function resolvePackageDir(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`${name} is not installed below ${from}`);
  }
}

/** Every package directory the production dependencies of `manifest` pull in, transitively. */
function productionClosure(manifest: Manifest): Map<string, string> {
  const found = new Map<string, string>(); // directory -> name
  const visit = (deps: Record<string, string> | undefined, from: string, optional: boolean) => {
    for (const name of Object.keys(deps ?? {})) {
      let dir: string;
      try {
        dir = resolvePackageDir(name, from);
      } catch (error) {
        if (optional) continue; // a platform package for another OS
        throw error;
      }
      if (found.has(dir)) continue;
      found.set(dir, name);
      const child = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
      visit(child.dependencies, dir, false);
      visit(child.optionalDependencies, dir, true);
    }
  };
  visit(manifest.dependencies, ROOT, false);
  return found;
}

describe('the installed package', () => {
  const work = tempDir('ledgerhook-install-');
  const app = join(work, 'app');
  const modules = join(app, 'node_modules');
  /** Packed once; @ledgerhook/webhooks installed twice: beside ledgerhook, and alone. */
  let tarballs: Map<string, string> | undefined;
  const tarball = (name: string) => {
    tarballs ??= pack(work);
    return tarballs.get(name) ?? `${name} was not packed`;
  };

  it('brings only the design card packages and their dependencies, never pg, bullmq or ioredis', () => {
    extract(tarball('ledgerhook'), join(modules, 'ledgerhook'));
    extract(tarball(WEBHOOKS), join(modules, WEBHOOKS));

    const manifest = JSON.parse(readFileSync(join(modules, 'ledgerhook', 'package.json'), 'utf8')) as Manifest & {
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    assert.deepEqual(Object.keys(manifest.dependencies ?? {}).sort(), DESIGN_CARD);
    for (const peer of OPTIONAL_PEER_NAMES) {
      assert.ok(manifest.peerDependencies?.[peer], `${peer} is a peer dependency`);
      assert.equal(manifest.peerDependenciesMeta?.[peer]?.optional, true, `${peer} is optional`);
    }

    const closure = productionClosure(manifest);
    const names = new Set(closure.values());
    for (const peer of [...OPTIONAL_PEER_NAMES, 'msgpackr', 'pg-pool'])
      assert.ok(!names.has(peer), `${peer} installed`);
    linkClosure(closure, modules);
    process.stdout.write(`# a production install brings ${closure.size} packages besides ledgerhook\n`);
  });

  it('ledgerhook/webhooks signs and verifies there', () => {
    const script = `
      const { signWebhook, verifyWebhook } = await import('ledgerhook/webhooks');
      const body = '{"userId":"u1","type":"ENTITY_UPDATE","entityName":"expense","timestamp":"2026-01-01T00:00:00.000Z"}';
      const token = await signWebhook(body, 's3cret');
      const result = await verifyWebhook({ body, token, secrets: 's3cret' });
      process.stdout.write(JSON.stringify(result.ok));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
    assert.equal(result.stderr, '');
    assert.equal(result.stdout, 'true');
  });

  it('@ledgerhook/webhooks alone brings jose and nothing else, and receives there', () => {
    const service = join(work, 'service');
    const serviceModules = join(service, 'node_modules');
    extract(tarball(WEBHOOKS), join(serviceModules, WEBHOOKS));
    const manifest = JSON.parse(readFileSync(join(serviceModules, WEBHOOKS, 'package.json'), 'utf8')) as Manifest;
    assert.deepEqual(Object.keys(manifest.dependencies ?? {}), ['jose']);
    const closure = productionClosure(manifest);
    assert.deepEqual([...new Set(closure.values())], ['jose']);
    linkClosure(closure, serviceModules);
    const script = `
      const { signWebhook, Webhooks, createWebMiddleware } = await import('@ledgerhook/webhooks');
      const { createNodeMiddleware } = await import('@ledgerhook/webhooks/node');
      const body = '{"userId":"u1","type":"ENTITY_UPDATE","entities":["expense"]}';
      const seen = [];
      const webhooks = new Webhooks({ secret: 's3cret' }).on('ENTITY_UPDATE', ({ userId }) => { seen.push(userId); });
      const answer = await createWebMiddleware(webhooks)(new Request('http://service/webhooks', {
        method: 'POST', body, headers: { 'service-verification': await signWebhook(body, 's3cret') },
      }));
      process.stdout.write(JSON.stringify([answer.status, seen, typeof createNodeMiddleware]));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: service,
      encoding: 'utf8',
    });
    assert.equal(result.stderr, '');
    assert.equal(result.stdout, '[200,["u1"],"function"]');
  });

  for (const [what, args, install] of [
    [
      'the Postgres store',
      ['sync', 'expense', '--store', 'postgres://127.0.0.1:1/none', '--base-url', 'http://127.0.0.1:9', '--token', 't'],
      'npm install pg',
    ],
    [
      'the queue worker',
      [
        'worker',
        '--queue',
        'redis://127.0.0.1:1',
        '--store',
        'postgres://127.0.0.1:1/none',
        '--base-url',
        'http://127.0.0.1:9',
        '--token',
        't',
      ],
      'npm install',
    ],
    [
      'OpenTelemetry (--otel)',
      ['sync', 'expense', '--otel', '--base-url', 'http://127.0.0.1:9', '--token', 't'],
      'npm install @opentelemetry/api',
    ],
  ] as const) {
    it(`${what} without its optional package says which one to install (exit 2, one line)`, () => {
      const result = spawnSync(process.execPath, [join(modules, 'ledgerhook', 'bin', 'ledgerhook.js'), ...args], {
        cwd: app,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', LEDGERHOOK_CONFIG_DIR: join(work, 'config') },
      });
      assert.equal(result.status, 2, result.stderr);
      assertOneLineError({ code: result.status, signal: null, stdout: result.stdout, stderr: result.stderr });
      assert.match(result.stderr, new RegExp(`needs the package .+ which is not installed: run ${install}`));
    });
  }
});
