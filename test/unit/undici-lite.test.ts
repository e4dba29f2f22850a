/**
 * The CLI bundle takes of undici only what scripts/undici-lite.mjs exports (`request`, `Agent`): a
 * name the source starts to use from undici must be added there too, or the CLI would find it
 * undefined at run time while the library (which imports undici itself) works. This reads every
 * value import of undici in src/ and every name taken from loadUndici().
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readFileSync(join(ROOT, dir, file), 'utf8'));
}

/** The names a source takes from undici at run time (type-only imports left out). */
function usedNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'undici'/g))
    if (!match[1])
      for (const part of (match[2] ?? '').split(','))
        if (part.trim() !== '' && !part.trim().startsWith('type ')) names.push(part.trim().split(/\s+as\s+/)[0] ?? '');
  for (const match of text.matchAll(/\{([^{}]*)\}\s*=\s*await\s+loadUndici\(\)/g))
    for (const part of (match[1] ?? '').split(',')) if (part.trim() !== '') names.push(part.trim().split(':')[0] ?? '');
  if (/import\s+\*\s+as\s+\w+\s+from\s+'undici'|import\s+\w+\s+from\s+'undici'/.test(text)) names.push('(namespace)');
  return names;
}

describe('the CLI bundle’s undici (scripts/undici-lite.mjs)', () => {
  it('exports every name the source uses from undici', () => {
    const lite = readFileSync(join(ROOT, 'scripts/undici-lite.mjs'), 'utf8');
    const exported = new Set((/export\s*\{([^}]*)\}/.exec(lite)?.[1] ?? '').split(',').map((name) => name.trim()));
    const used = new Set(sources('src').flatMap(usedNames));
    assert.ok(used.has('request') && used.has('Agent'), `the scan found ${[...used].join(', ')}`);
    for (const name of used)
      assert.ok(exported.has(name), `src/ uses undici's ${name}; export it from scripts/undici-lite.mjs`);
  });

  // Its HTTP/2 half is a stub that throws (scripts/bundle-cli.mjs): undici uses it only for a TLS
  // connection that agreed on h2, which it offers only with allowH2 (or h2c with useH2c).
  it('is never asked for HTTP/2, whose half the CLI bundle leaves out', () => {
    for (const text of sources('src')) assert.doesNotMatch(text, /\b(allowH2|useH2c)\b/);
  });
});
