import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Set when this test runs compiled (npm test), not from source (`node --import tsx --test`). */
const BUILT = import.meta.url.includes('/.test-build/');

/**
 * The node arguments that start a TypeScript file of the repository as a process: its compiled copy
 * from `.test-build/runnable/` when the tests run compiled (scripts/build-tests.mjs lists which), else
 * the file itself through tsx. The same program either way: only the TypeScript loader is saved.
 */
export function runnable(file: string): string[] {
  const compiled = `${ROOT}.test-build/runnable/${relative(ROOT, file).replace(/\.ts$/, '.js')}`;
  return BUILT && existsSync(compiled) ? [compiled] : ['--import', 'tsx', file];
}
