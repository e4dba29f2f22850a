import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { killedAfter, startResumableListServer } from '../helpers/resumable-list-server.js';

/*
 * An interrupted read is a real process SIGKILLed mid-read (killedAfter). What the next run does with
 * what it left is the sync command's, the same in this process: the first rerun and the --since repair
 * are the spawned bin as a user runs it; the other reruns, state and config commands and the input
 * refusals run the same commands in process (runInProcess), without a cold start each.
 */
type Api = Awaited<ReturnType<typeof startResumableListServer>>;

/** 95 items at --limit 10: a full read is 10 pages. */
const ITEMS = 95;
const PAGES = 10;

function setup(api: Api, token = 'token-a') {
  const out = tempDir();
  const env = { LEDGERHOOK_CONFIG_DIR: tempDir() };
  const args = (...more: string[]) => [
    'sync',
    '/things',
    '--base-url',
    api.baseUrl,
    '--token',
    token,
    '--out',
    out,
    '--limit',
    '10',
    ...more,
  ];
  const file = join(out, 'things.json');
  return { out, env, args, file, data: () => JSON.parse(readFileSync(file, 'utf8')) };
}

/** The requests of the last run: those after `from`. */
const since = (api: Api, from: number) => api.log().slice(from);

describe('sync resumes an interrupted full read', () => {
  it('killed after 4 of 10 pages, the rerun fetches only the rest, equals the server, and stores the first run’s first lastUpdatedDate', async () => {
    const api = await startResumableListServer({ accounts: { 'token-a': ITEMS } });
    const s = setup(api);
    try {
      await killedAfter(api, s.args(), s.env, 4);
      const firstPage = api.log()[0]?.answered;
      assert.ok(firstPage);
      // Changed while the read was interrupted, on a page it had already kept (as a webhook would say,
      // one a queue coalesced into the rerun): read by the rerun itself, not left for some later run.
      api.edit('token-a', 2, { amount: 222 });
      const before = api.requests();
      const rerun = await runCli(s.args('--json'), { env: s.env });
      assert.equal(rerun.code, 0, rerun.stderr);
      const summary = JSON.parse(rerun.stdout);
      const fetched = since(api, before);
      assert.equal(summary.catchUp?.upserted, 1);
      // Kept: page 3 for sure (page 5 was requested only after it), page 4 if its checkpoint was written.
      assert.ok([4, 5].includes(summary.resumed?.fromPage), rerun.stdout);
      // The rest of the read, then at once one incremental run since the read's FIRST page (the first
      // run's): the kept pages are older than this run, and what changed meanwhile is read now.
      assert.equal(summary.catchUp?.pages, 1);
      assert.equal(fetched.length, PAGES - summary.resumed.fromPage + 1 + 1, 'fewer pages the second time');
      assert.ok(fetched.length < PAGES);
      assert.ok(fetched[0]?.cursor, 'the rerun starts with the kept cursor, not page 1');
      assert.equal(
        fetched.at(-1)?.lastUpdatedDate,
        firstPage,
        'the catch-up reads since the FIRST page of the first run',
      );
      assert.deepEqual([summary.mode, summary.pages, summary.total], ['full', PAGES, ITEMS]);
      assert.deepEqual(s.data(), api.truth('token-a'));
      const state = JSON.parse((await runInProcess(['state', 'list', '--json'], { env: s.env })).stdout);
      assert.equal(state.datasets[0].lastUpdatedDate, summary.lastUpdatedDate, 'where the catch-up left it');
      assert.deepEqual(
        readdirSync(s.out).filter((name) => !name.endsWith('.changes.jsonl')),
        ['things.json'],
        'no staging file or checkpoint left',
      );
      // And on from there: the next run is incremental since the catch-up's first page.
      const next = await runInProcess(s.args('--json'), { env: s.env });
      assert.equal(JSON.parse(next.stdout).mode, 'incremental');
      assert.equal(api.log().at(-1)?.lastUpdatedDate, summary.lastUpdatedDate);
    } finally {
      await api.close();
    }
  });

  it('restarts from page 1, saying so, when the server no longer accepts the kept cursor', async () => {
    const api = await startResumableListServer({ accounts: { 'token-a': ITEMS } });
    const s = setup(api);
    try {
      await killedAfter(api, s.args(), s.env, 3);
      api.expireCursors();
      const before = api.requests();
      const rerun = await runInProcess(s.args(), { env: s.env });
      assert.equal(rerun.code, 0, rerun.stderr);
      assert.match(rerun.stderr, /continuing an interrupted full read at page [34]/);
      assert.match(
        rerun.stderr,
        /dropped [23] kept pages of an interrupted full read: the server no longer accepts their cursor \(GET .* answered 410/,
      );
      assert.match(
        rerun.stdout,
        /full, 10 pages, 95 items \(first sync .*; from page 1: the server no longer accepts their cursor\)/,
      );
      const fetched = since(api, before);
      assert.ok(fetched[0]?.cursor, 'the kept cursor was tried first');
      assert.equal(fetched[1]?.cursor, undefined, 'then page 1');
      assert.equal(fetched.length, 1 + PAGES);
      assert.deepEqual(s.data(), api.truth('token-a'));
      assert.deepEqual(readdirSync(s.out), ['things.json']);
    } finally {
      await api.close();
    }
  });

  it('which answers mean "cursor expired" is a setting: an uncounted 409 fails with advice until counted', async () => {
    const api = await startResumableListServer({ accounts: { 'token-a': ITEMS }, expiredStatus: 409, expiredBody: {} });
    const s = setup(api);
    try {
      await killedAfter(api, s.args(), s.env, 3);
      api.expireCursors();
      const failed = await runInProcess(s.args(), { env: s.env });
      assert.equal(failed.code, 3, failed.stderr);
      assertOneLineError(failed);
      assert.match(
        failed.stderr,
        /answered 409.*continued an interrupted full read at page [34]: --no-resume reads from page 1, and `ledgerhook config set expiredCursorStatuses` can count that status/,
      );
      const set = await runInProcess(['config', 'set', 'expiredCursorStatuses', '400,409,410', '--env', 'sandbox'], {
        env: s.env,
      });
      assert.equal(set.code, 0, set.stderr);
      const bad = await runInProcess(['config', 'set', 'expiredCursorStatuses', '401'], { env: s.env });
      assert.equal(bad.code, 2);
      assertOneLineError(bad);
      const rerun = await runInProcess(s.args('--env', 'sandbox', '--json'), { env: s.env });
      assert.equal(rerun.code, 0, rerun.stderr);
      assert.equal(JSON.parse(rerun.stdout).resumeDiscarded, 'invalid-cursor');
      assert.deepEqual(s.data(), api.truth('token-a'));
    } finally {
      await api.close();
    }
  });

  // One read killed after 3 pages for all five: what it left (the data folder with its hidden staging
  // file and checkpoint, and the settings) is copied aside, and put back as it was before each case.
  describe('a kept checkpoint is dropped, and said so, when the next run differs', () => {
    let api: Api;
    let s: ReturnType<typeof setup>;
    const kept = tempDir();
    before(async () => {
      api = await startResumableListServer({ accounts: { 'token-a': ITEMS, 'token-b': 42 } });
      s = setup(api, 'token-a');
      await killedAfter(api, s.args(), s.env, 3);
      for (const [from, name] of [
        [s.out, 'out'],
        [s.env.LEDGERHOOK_CONFIG_DIR, 'config'],
      ] as const)
        cpSync(from, join(kept, name), { recursive: true, preserveTimestamps: true });
      assert.equal(
        readdirSync(s.out).filter((file) => file.endsWith('.checkpoint')).length,
        1,
        'the killed read kept a checkpoint',
      );
    });
    after(() => api?.close());
    /** The folders as the killed read left them. */
    const restore = () => {
      for (const [to, name] of [
        [s.out, 'out'],
        [s.env.LEDGERHOOK_CONFIG_DIR, 'config'],
      ] as const) {
        rmSync(to, { recursive: true, force: true });
        cpSync(join(kept, name), to, { recursive: true, preserveTimestamps: true });
      }
    };

    for (const [name, token, more, text] of [
      ['another access token', 'token-b', [], 'they were read with another access token'],
      ['another --limit', 'token-a', ['--limit', '20'], 'they were read with another --limit'],
      ['--no-resume', 'token-a', ['--no-resume'], 'a read from page 1 was asked for'],
      ['--full', 'token-a', ['--full'], 'a read from page 1 was asked for'],
    ] as const) {
      it(`never continues a checkpoint for ${name}: drops it, says so, reads from page 1`, async () => {
        restore();
        const before = api.requests();
        // The same --out and state, with the variation (a later --limit wins over the first).
        const args = [...s.args(), ...more].map((arg) => (arg === 'token-a' ? token : arg));
        const rerun = await runInProcess(args, { env: s.env });
        assert.equal(rerun.code, 0, rerun.stderr);
        assert.ok(rerun.stderr.includes(`kept pages of an interrupted full read: ${text}`), rerun.stderr);
        assert.ok(rerun.stdout.includes(`from page 1: ${text}`), rerun.stdout);
        const fetched = since(api, before);
        assert.equal(fetched[0]?.cursor, undefined, 'page 1 first');
        assert.ok(fetched.every((request) => request.token === token));
        assert.deepEqual(s.data(), api.truth(token));
        assert.deepEqual(readdirSync(s.out), ['things.json']);
      });
    }

    it('with --json the summary says which checkpoint was dropped and why', async () => {
      restore();
      const rerun = await runInProcess(
        s.args('--json').map((arg) => (arg === 'token-a' ? 'token-b' : arg)),
        { env: s.env },
      );
      assert.equal(rerun.code, 0, rerun.stderr);
      const summary = JSON.parse(rerun.stdout);
      assert.deepEqual([summary.resumeDiscarded, summary.resumed, summary.total], ['other-token', undefined, 42]);
    });
  });
});

describe('sync --since DATE re-reads a window', () => {
  it('merges the changes since DATE that an incremental run never saw, and never moves lastUpdatedDate back', async () => {
    const api = await startResumableListServer({ accounts: { 'token-a': 30 } });
    const s = setup(api);
    try {
      assert.equal((await runInProcess(s.args(), { env: s.env })).code, 0);
      api.edit('token-a', 7, { amount: 700 });
      assert.equal((await runInProcess(s.args(), { env: s.env })).code, 0);
      const state = async () =>
        JSON.parse((await runInProcess(['state', 'list', '--json'], { env: s.env })).stdout).datasets[0]
          .lastUpdatedDate;
      const stored = await state();
      // A write that became visible late, dated before the stored lastUpdatedDate: no incremental run reports it.
      api.edit('token-a', 12, { amount: 1200 }, '2026-05-01T00:00:01.500Z');
      api.edit('token-a', 13, null, '2026-05-01T00:00:01.500Z');
      const missed = await runInProcess(s.args('--json'), { env: s.env });
      assert.equal(JSON.parse(missed.stdout).upserted, 0);
      assert.notDeepEqual(s.data(), api.truth('token-a'));

      const before = api.requests();
      const repair = await runCli(s.args('--since', '2026-05-01T00:00:01Z', '--json'), { env: s.env });
      assert.equal(repair.code, 0, repair.stderr);
      const summary = JSON.parse(repair.stdout);
      assert.deepEqual([summary.mode, summary.since, summary.deleted], ['incremental', '2026-05-01T00:00:01.000Z', 1]);
      assert.equal(
        since(api, before)[0]?.lastUpdatedDate,
        '2026-05-01T00:00:01.000Z',
        'DATE is sent, not the stored date',
      );
      assert.deepEqual(s.data(), api.truth('token-a'));
      assert.ok(Date.parse(await state()) >= Date.parse(stored), 'the stored lastUpdatedDate never moves back');

      // A window that starts after the stored date leaves the changes before it unread: the state stays.
      const kept = await state();
      const later = await runInProcess(s.args('--since', '2027-01-01', '--json'), { env: s.env });
      assert.equal(later.code, 0, later.stderr);
      assert.equal(await state(), kept);
    } finally {
      await api.close();
    }
  });

  it('refuses garbage, a dataset never synced, and --full, each with one line and exit 2', async () => {
    const api = await startResumableListServer({ accounts: { 'token-a': 5 } });
    const s = setup(api);
    try {
      for (const date of ['yesterday', '2026-02-30', '2026-01-31T12:00:00', '']) {
        const result = await (date === 'yesterday' ? runCli : runInProcess)(s.args('--since', date), { env: s.env });
        assert.equal(result.code, 2, `${date}: ${result.stderr}`);
        assertOneLineError(result);
        assert.match(result.stderr, /ISO 8601/);
      }
      const first = await runInProcess(s.args('--since', '2026-01-31'), { env: s.env });
      assert.equal(first.code, 2);
      assertOneLineError(first);
      assert.match(
        first.stderr,
        /nothing in .* to re-read a window into \(never synced there\); a full read comes first; run the sync once without --since/,
      );
      const full = await runInProcess(s.args('--since', '2026-01-31', '--full'), { env: s.env });
      assert.equal(full.code, 2);
      assertOneLineError(full);
      assert.equal(api.requests(), 0, 'nothing was fetched');
    } finally {
      await api.close();
    }
  });
});
