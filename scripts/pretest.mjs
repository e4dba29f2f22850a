/**
 * Before the tests: lint (fast, fails first), then the build and the type-check side by side. Each
 * tsc run is single-threaded, so on 2 cores running them together halves this step's wall time.
 */
import { spawn } from 'node:child_process';

const run = (script) =>
  new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: 'inherit' });
    child.on('close', (code) => resolve(code ?? 1));
  });

const lint = await run('lint');
if (lint !== 0) process.exit(lint);
const codes = await Promise.all([run('build'), run('typecheck')]);
process.exit(codes.find((code) => code !== 0) ?? 0);
