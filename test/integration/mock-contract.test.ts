import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENTITIES } from '@ledgerhook/webhooks';
import { MockService, startMockServer, type RunningMockServer } from '../../src/api/mock.js';
import { runCli, startCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { sortedItems, specSync } from '../helpers/spec-client.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';

/** The full volume (a million expenses) only in the soak tier; the paging logic is the same at 100,000. */
const SOAK = process.env.LEDGERHOOK_SOAK === '1';
const BIG = SOAK ? 1_000_000 : 100_000;

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('mock service: the paging contract of spec 4.3', () => {
  let mock: RunningMockServer;
  const get = async (path: string, headers: Record<string, string> = {}, token?: string) => {
    const response = await fetch(`${mock.url}${path}`, {
      headers: { authorization: `Bearer ${token ?? mock.token}`, 'content-type': 'application/json', ...headers },
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };
  before(async () => {
    mock = await startMockServer({ port: 0, items: 202, seed: 7 });
  });
  after(() => mock.close());

  it('rule 2: 202 items with limit 100 give pages of 100, 100 and 2; only the first two carry a cursor', async () => {
    const first = await get('/expenses', { limit: '100' });
    const second = await get('/expenses', { limit: '100', cursor: first.body.cursor });
    const third = await get('/expenses', { limit: '100', cursor: second.body.cursor });
    assert.deepEqual([first.body.data.length, second.body.data.length, third.body.data.length], [100, 100, 2]);
    assert.equal(typeof first.body.cursor, 'string');
    assert.equal(typeof second.body.cursor, 'string');
    assert.equal('cursor' in third.body, false, 'the last page has no cursor field at all');
    const ids = [...first.body.data, ...second.body.data, ...third.body.data].map((item: { id: number }) => item.id);
    assert.equal(new Set(ids).size, 202);
  });

  it('envelope: data always, lastUpdatedDate in ISO 8601 UTC with milliseconds, no deletedIds on a full read', async () => {
    const page = await get('/expenses', { limit: '5' });
    assert.ok(Array.isArray(page.body.data));
    assert.match(page.body.lastUpdatedDate, ISO_MS);
    assert.equal('deletedIds' in page.body, false);
    assert.equal(page.headers.get('content-type'), 'application/json');
  });

  it('spec 2.5: expense fields and types', async () => {
    const { body } = await get('/expenses', { limit: '50' });
    for (const expense of body.data) {
      assert.equal(typeof expense.id, 'number');
      assert.equal(typeof expense.type, 'string');
      assert.match(expense.date, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
      assert.equal(typeof expense.amount, 'number');
      assert.equal(typeof expense.categoryId, 'number');
      assert.equal(typeof expense.personalCategoryId, 'number');
    }
    assert.ok(body.data.some((expense: { type: string }) => expense.type === 'PENDING'));
  });

  it('serves every list path of spec 4.2 and the sample path; /userTaxSetup is one settings object', async () => {
    for (const entity of ENTITIES) {
      const { status, body } = await get(entity.path, { limit: '3' });
      assert.equal(status, 200, entity.path);
      if (entity.paginated) assert.ok(Array.isArray(body.data) && body.data.length <= 3, entity.path);
      else assert.ok(!('data' in body) && typeof body.id === 'number', entity.path);
    }
    const sample = await get('/expenses/expenses?type=PENDING', { limit: '1000' });
    assert.ok(sample.body.data.length > 0 && sample.body.data.every((e: { type: string }) => e.type === 'PENDING'));
  });

  it('rules 4-6: incremental reads return only changes, and deletedIds for items that left the filtered dataset', async () => {
    const full = await get('/expenses/expenses?type=PENDING', { limit: '1000' });
    const since = full.body.lastUpdatedDate;
    const unchanged = await get('/expenses/expenses?type=PENDING', { limit: '1000', lastUpdatedDate: since });
    assert.deepEqual(unchanged.body.data, []);
    assert.equal('deletedIds' in unchanged.body, false, 'deletedIds only when non-empty');
    assert.equal('cursor' in unchanged.body, false);
    const result = mock.service.mutate({ path: '/expenses', create: 3, retype: 2, delete: 1 });
    const changes = await get('/expenses/expenses?type=PENDING', { limit: '1000', lastUpdatedDate: since });
    assert.ok(
      changes.body.deletedIds.includes(result.retyped[0]) && changes.body.deletedIds.includes(result.retyped[1]),
      'retyped PENDING items are reported as deleted from the PENDING dataset',
    );
    for (const item of changes.body.data) assert.equal(item.type, 'PENDING');
    assert.ok(!changes.body.data.some((item: { id: number }) => result.retyped.includes(item.id)));
    const unfiltered = await get('/expenses', { limit: '1000', lastUpdatedDate: since });
    assert.deepEqual(
      unfiltered.body.data.map((i: { id: number }) => i.id).sort(),
      [...result.retyped, ...result.created].sort(),
    );
    assert.deepEqual(unfiltered.body.deletedIds, result.deleted);
  });

  it('cursors are opaque, bound to their dataset, and refused when forged', async () => {
    const first = await get('/expenses?type=PENDING', { limit: '2' });
    assert.equal(
      (await get('/expenses', { limit: '2', cursor: first.body.cursor })).status,
      400,
      'same path, other filter',
    );
    assert.equal(
      (await get('/invoices?type=PENDING', { limit: '2', cursor: first.body.cursor })).status,
      400,
      'other path',
    );
    const forged = await get('/expenses?type=PENDING', { limit: '2', cursor: `${first.body.cursor}x` });
    assert.equal(forged.status, 400);
    assert.equal(forged.body.error, 'invalid_cursor');
  });

  it('errors as JSON: 401 without or with a wrong token, 400 for a bad limit or date, 404 for an unknown path', async () => {
    const none = await fetch(`${mock.url}/expenses`);
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { error: string }).error, 'unauthorized');
    assert.equal((await get('/expenses', {}, 'wrong')).status, 401);
    for (const limit of ['0', '-1', 'ten', '1001'])
      assert.equal((await get('/expenses', { limit })).status, 400, limit);
    for (const date of ['yesterday', '2026-13-45', '1700000000'])
      assert.equal((await get('/expenses', { lastUpdatedDate: date })).body.error, 'invalid_last_updated_date');
    const missing = await get('/unicorns');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error, 'not_found');
  });

  it('/__mock/dataset is the ground truth and /__mock/mutate changes it', async () => {
    const response = await fetch(`${mock.url.replace('/rest/v5', '')}/__mock/mutate`, {
      method: 'POST',
      body: JSON.stringify({ path: '/invoices', create: 2, update: 1 }),
    });
    const result = (await response.json()) as { created: number[]; updated: number[] };
    assert.equal(result.created.length, 2);
    const truth = (await (await fetch(`${mock.url.replace('/rest/v5', '')}/__mock/dataset?path=/invoices`)).json()) as {
      data: Array<{ id: number }>;
    };
    assert.equal(truth.data.length, 27);
    assert.ok(result.created.every((id) => truth.data.some((item) => item.id === id)));
    const bad = await fetch(`${mock.url.replace('/rest/v5', '')}/__mock/mutate`, {
      method: 'POST',
      body: '{"path":"/invoices","create":-1}',
    });
    assert.equal(bad.status, 400);
  });
});

describe('mock service: an independent client converges', () => {
  for (const limit of [1, 7, 100, 1000]) {
    it(`full sync, then rounds of mutate + incremental sync, equal to /__mock/dataset (limit ${limit})`, async () => {
      const mock = await startMockServer({ port: 0, items: 230, seed: limit });
      try {
        for (const query of ['', 'type=PENDING']) {
          const truth = () =>
            mock.service.dataset('/expenses/expenses', Object.fromEntries(new URLSearchParams(query))).data;
          let state = await specSync({
            baseUrl: mock.url,
            token: mock.token,
            path: '/expenses/expenses',
            query,
            limit,
          });
          assert.deepEqual(sortedItems(state), truth());
          for (let round = 0; round < 4; round += 1) {
            mock.service.mutate({ path: '/expenses', create: 3 + round, update: 4, delete: 2, retype: 3 });
            state = await specSync({
              baseUrl: mock.url,
              token: mock.token,
              path: '/expenses/expenses',
              query,
              limit,
              state,
            });
            assert.deepEqual(sortedItems(state), truth(), `round ${round} ${query}`);
          }
        }
      } finally {
        await mock.close();
      }
    });
  }

  it('converges when changes happen between the pages of a read', async () => {
    const mock = await startMockServer({ port: 0, items: 120, seed: 3 });
    try {
      const truth = () => mock.service.dataset('/expenses').data;
      const state = { items: new Map<number, Record<string, unknown>>(), pages: 0 } as Awaited<
        ReturnType<typeof specSync>
      >;
      // A full read whose pages interleave with mutations.
      let cursor: string | undefined;
      const pages: Array<{ data: Array<Record<string, unknown>>; lastUpdatedDate: string }> = [];
      do {
        const response = await fetch(`${mock.url}/expenses`, {
          headers: { authorization: `Bearer ${mock.token}`, limit: '10', ...(cursor ? { cursor } : {}) },
        });
        const page = (await response.json()) as {
          data: Array<Record<string, unknown>>;
          lastUpdatedDate: string;
          cursor?: string;
        };
        pages.push(page);
        cursor = page.cursor;
        mock.service.mutate({ path: '/expenses', create: 1, update: 2, delete: 1 });
      } while (cursor);
      for (const page of pages) for (const item of page.data) state.items.set(item.id as number, item);
      state.lastUpdatedDate = pages.at(-1)!.lastUpdatedDate;
      await specSync({ baseUrl: mock.url, token: mock.token, path: '/expenses', limit: 10, state });
      assert.deepEqual(sortedItems(state), truth());
    } finally {
      await mock.close();
    }
  });
});

describe('mock service: the handler without a socket, faults, and the CLI', () => {
  it('is a plain function of a request', async () => {
    const service = new MockService({ items: 3, now: () => Date.parse('2026-01-01T00:00:00.000Z') });
    const response = await service.handle({
      method: 'GET',
      url: '/rest/v5/expenses',
      headers: { authorization: `Bearer ${service.token}`, limit: '2' },
    });
    assert.equal(response.status, 200);
    assert.equal((response.body as { data: unknown[] }).data.length, 2);
    assert.equal((response.body as { lastUpdatedDate: string }).lastUpdatedDate, '2026-01-01T00:00:00.000Z');
  });

  it('is deterministic for a seed', async () => {
    const a = new MockService({ seed: 9 }).dataset('/expenses').data;
    const b = new MockService({ seed: 9 }).dataset('/expenses').data;
    const c = new MockService({ seed: 10 }).dataset('/expenses').data;
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
  });

  it('rate-limits with 429 and Retry-After, fails with 500/503, and resets connections', async () => {
    const limited = new MockService({ faults: { rateLimit: { requests: 2, windowSeconds: 300 } } });
    const request = { method: 'GET', url: '/rest/v5/expenses', headers: { authorization: `Bearer ${limited.token}` } };
    assert.equal((await limited.handle(request)).status, 200);
    assert.equal((await limited.handle(request)).status, 200);
    const third = await limited.handle(request);
    assert.equal(third.status, 429);
    assert.ok(Number(third.headers['retry-after']) > 0 && Number(third.headers['retry-after']) <= 300);
    const failing = new MockService({ faults: { failRate: 1 } });
    assert.ok([500, 503].includes((await failing.handle(request)).status));
    const dropping = await startMockServer({ port: 0, faults: { dropRate: 1 } });
    await assert.rejects(fetch(`${dropping.url}/expenses`, { headers: { authorization: `Bearer ${dropping.token}` } }));
    await dropping.close();
  });

  it(`serves ${BIG.toLocaleString('en')} expenses with a full paginated read at limit 1000 (a million with LEDGERHOOK_SOAK=1)`, async () => {
    const mock = await startMockServer({ port: 0, items: BIG });
    try {
      let cursor: string | undefined;
      let count = 0;
      let pages = 0;
      do {
        const response = await fetch(`${mock.url}/expenses`, {
          headers: { authorization: `Bearer ${mock.token}`, limit: '1000', ...(cursor ? { cursor } : {}) },
        });
        const page = (await response.json()) as { data: unknown[]; cursor?: string };
        count += page.data.length;
        pages += 1;
        cursor = page.cursor;
      } while (cursor);
      assert.equal(count, BIG);
      assert.equal(pages, BIG / 1000);
    } finally {
      await mock.close();
    }
  });

  it('ledgerhook mock --json prints { baseUrl, token } first and sends signed webhooks for each change', async () => {
    const receiver = await startSpecReceiver({ secret: 'mock-webhook-secret' });
    const mock = startCli([
      'mock',
      '--port',
      '0',
      '--json',
      '--webhook-url',
      receiver.url,
      '--secret',
      'mock-webhook-secret',
      '--items',
      '50',
    ]);
    const first = await mock.waitFor((line) => typeof line === 'object' && line !== null && 'baseUrl' in line);
    // JSON Lines like listen's: kind and time first, then the address scripts read.
    assert.deepEqual(Object.keys(first), ['kind', 'time', 'baseUrl', 'token']);
    assert.equal(first.kind, 'listening');
    assert.match(first.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/rest\/v5$/);
    assert.equal(mock.lines[0], JSON.stringify(first));
    await fetch(`${first.baseUrl.replace('/rest/v5', '')}/__mock/mutate`, {
      method: 'POST',
      body: JSON.stringify({ path: '/expenses', create: 2, update: 1 }),
    });
    await mock.waitFor(
      (line) =>
        line?.kind === 'webhook-sent' && line.body.type === 'LIFECYCLE_EVENT' && line.body.event === 'EXPENSE_UPDATED',
    );
    await mock.stop();
    const bodies = receiver.received.map((delivery) => JSON.parse(delivery.body.toString()));
    assert.ok(
      receiver.received.every((delivery) => delivery.status === 200),
      'every webhook verifies',
    );
    assert.deepEqual(bodies[0], { userId: 'user_7f3c2a91', type: 'ENTITY_UPDATE', entities: ['expense'] });
    const added = bodies.find((body) => body.event === 'EXPENSE_ADDED');
    for (const key of ['expenseId', 'bankAccountId', 'amount', 'date']) assert.ok(key in added.eventData, key);
    await receiver.close();
  });

  it('ledgerhook mock refuses bad flags with one line', async () => {
    for (const args of [
      ['--rate-limit', 'lots'],
      ['--fail-rate', '2'],
      // sandbox: no webhook secret there (the local environment would make one and start).
      ['--webhook-url', 'http://127.0.0.1:1/', '--env', 'sandbox'],
    ]) {
      // Flag parsing in-process; the unreachable webhook URL (checked when the mock starts) end to end.
      const run = args[0] === '--webhook-url' ? runCli : runInProcess;
      const result = await run(['mock', '--port', '0', ...args]);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr.trim().split('\n').length, 1);
    }
  });
});
