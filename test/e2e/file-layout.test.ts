/**
 * The file names a user sees, and an earlier layout moved on the first run, through the built CLI:
 * `sync expenses --type PENDING` keeps `expenses.type=PENDING@14-20.json`; a folder an earlier build
 * wrote (`expenses%3Ftype=PENDING.json`) is moved there by the next sync, which stays incremental,
 * and `state list` and `history` follow it; with both names there, the sync stops in one line.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertOneLineError, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startPagedListServer } from '../helpers/paged-list-server.js';

const NAME = 'expenses.type=PENDING@14-20';
const OLD = 'expenses%3Ftype=PENDING';

async function setUp() {
  const server = await startPagedListServer(9);
  const dir = tempDir();
  const out = join(dir, 'out');
  const env = { LEDGERHOOK_CONFIG_DIR: join(dir, 'config') };
  const dataset = ['expenses', '--type', 'PENDING', '--out', out];
  const sync = () =>
    runInProcess(['sync', ...dataset, '--base-url', server.baseUrl, '--token', 't', '--json'], { env });
  const stateFile = join(dir, 'config', 'state.json');
  /** Lays the folder out as an earlier build did, and its state saying so. */
  const asBefore = () => {
    for (const suffix of ['.json', '.changes.jsonl'])
      if (existsSync(join(out, `${NAME}${suffix}`)))
        renameSync(join(out, `${NAME}${suffix}`), join(out, `${OLD}${suffix}`));
    const state = JSON.parse(readFileSync(stateFile, 'utf8'));
    for (const record of Object.values(state.datasets) as Array<{ file: string }>)
      record.file = join(out, `${OLD}.json`);
    writeFileSync(stateFile, JSON.stringify(state));
  };
  return { server, out, env, dataset, sync, asBefore };
}

describe('where files live', () => {
  it('an earlier layout is moved by the next sync, which stays incremental; state list and history follow', async () => {
    const s = await setUp();
    try {
      assert.equal((await s.sync()).code, 0);
      s.server.put({ id: 3, amount: 30, type: 'PENDING' });
      assert.equal((await s.sync()).code, 0);
      assert.deepEqual(readdirSync(s.out).sort(), [`${NAME}.changes.jsonl`, `${NAME}.json`]);
      s.asBefore();
      s.server.put({ id: 6, amount: 60, type: 'PENDING' });
      const moved = await s.sync();
      assert.equal(moved.code, 0, moved.stderr);
      assert.equal(JSON.parse(moved.stdout).mode, 'incremental');
      assert.equal(JSON.parse(moved.stdout).file, join(s.out, `${NAME}.json`));
      assert.deepEqual(readdirSync(s.out).sort(), [`${NAME}.changes.jsonl`, `${NAME}.json`]);
      const list = JSON.parse((await runInProcess(['state', 'list', '--json'], { env: s.env })).stdout);
      assert.deepEqual(
        list.datasets.map((entry: { data: string }) => entry.data),
        [join(s.out, `${NAME}.json`)],
      );
      const history = await runInProcess(['history', ...s.dataset, '3', '--json'], { env: s.env });
      assert.deepEqual(
        JSON.parse(history.stdout).entries.map((entry: { item: { amount: number } }) => entry.item.amount),
        [30],
      );
    } finally {
      await s.server.close();
    }
  });

  it('with both the old and the new name there, the sync stops in one line and moves nothing (exit 2)', async () => {
    const s = await setUp();
    try {
      assert.equal((await s.sync()).code, 0);
      const current = readFileSync(join(s.out, `${NAME}.json`), 'utf8');
      s.asBefore();
      writeFileSync(join(s.out, `${NAME}.json`), current);
      const refused = await s.sync();
      assert.equal(refused.code, 2, refused.stderr);
      assertOneLineError(refused);
      assert.match(
        refused.stderr,
        /cannot move \S+expenses%3Ftype=PENDING\.json to \S+PENDING@14-20\.json, .*both exist/,
      );
      assert.ok(existsSync(join(s.out, `${OLD}.json`)));
      assert.equal(readFileSync(join(s.out, `${NAME}.json`), 'utf8'), current);
    } finally {
      await s.server.close();
    }
  });
});
