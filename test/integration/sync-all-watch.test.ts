/** `sync --all` ends with a summary, says what Ctrl-C left; `sync --watch` keeps a dataset current. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startMockServer } from '../../src/index.js';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startClockedListServer } from '../helpers/clocked-list-server.js';

describe('sync --all and --watch', () => {
  it('--all ends with a table of dataset, mode, items, changes, time and the totals', async () => {
    const mock = await startMockServer({ port: 0, items: 5 });
    try {
      const result = await runCli(['sync', '--all', '--base-url', mock.url, '--token', mock.token, '--out', tempDir()]);
      assert.equal(result.code, 0, result.stderr);
      const lines = result.stdout.trimEnd().split('\n');
      const header = lines.findIndex((line) => /^dataset\s+mode\s+items\s+changes\s+time$/.test(line));
      assert.ok(header >= 0, result.stdout);
      const rows = lines.slice(header + 1);
      assert.equal(rows.length, 25, 'one row per entity and the totals');
      assert.match(rows.find((row) => row.startsWith('/expenses ')) ?? '', /^\/expenses\s+full\s+5\s+5\s+\d+\.\ds$/);
      assert.match(rows.at(-1) ?? '', /^total: 24 of 24 synced\s+\d+\s+\d+$/);
    } finally {
      await mock.close();
    }
  });

  it('Ctrl-C during --all says which datasets finished and which were left as they were', async () => {
    const mock = await startMockServer({ port: 0, items: 400, faults: { latencyMs: 15 } });
    const sync = startCli(
      // biome-ignore format: flags in pairs
      ['sync', '--all', '--base-url', mock.url, '--token', mock.token, '--out', tempDir(), '--limit', '10',
        '--concurrency', '1'],
    );
    try {
      // A dataset's done line is progress: on stderr.
      await sync.waitForStderr(/^✔ /m, 60_000);
      const { code } = await sync.stop('SIGINT');
      assert.equal(code, 130);
      const stderr = sync.stderr().trim();
      assert.equal(stderr.split('\n').filter((line) => !/^(✔ )?\/\S*: /.test(line)).length, 1, stderr);
      assert.match(
        stderr,
        /sync stopped; finished: \/attachments.*; left as they were \(nothing half-written\): .*\/vendors/,
      );
    } finally {
      await sync.stop('SIGKILL');
      await mock.close();
    }
  });

  it('--watch polls every --interval, applies changes as they come, and stops on Ctrl-C', async () => {
    const server = await startClockedListServer({ accounts: { w: 5 } });
    const sync = startCli(
      // biome-ignore format: flags in pairs
      ['sync', '/things', '--base-url', server.baseUrl, '--token', 'w', '--out', tempDir(), '--watch',
        '--interval', '150ms', '--json'],
    );
    try {
      const first = await sync.waitFor((line) => line?.round === 1);
      assert.equal(first.datasets[0].mode, 'full');
      assert.equal(first.datasets[0].total, 5);
      server.edit('w', 6, { amount: 6 });
      const changed = await sync.waitFor((line) => line?.round > 1 && line.datasets[0].upserted === 1);
      assert.equal(changed.datasets[0].mode, 'incremental');
      assert.equal(changed.datasets[0].total, 6);
      // Ctrl-C ends a watch like listen: exit 130 (interrupted), a last line saying how many rounds ran.
      const { code } = await sync.stop('SIGINT');
      assert.equal(code, 130, sync.stderr());
      const last = JSON.parse(sync.lines.at(-1) ?? '{}');
      assert.equal(last.kind, 'stopped');
      assert.ok(last.rounds >= 2);
      for (const line of sync.lines) assert.match(line, /^\{"kind":"(round|stopped)","time":"\d{4}-/);
      for (const line of sync.lines) JSON.parse(line); // JSON Lines: one document per line
    } finally {
      await sync.stop('SIGKILL');
      await server.close();
    }
  });

  it('refuses a bad --interval with one line', async () => {
    const result = await runInProcess(['sync', 'expenses', '--watch', '--interval', 'soon']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--interval takes a duration/);
  });
});
