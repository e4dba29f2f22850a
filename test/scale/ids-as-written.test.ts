/**
 * Ids as the server wrote them, the same rule for both stores, through `ledgerhook sync` as a user
 * runs it: two items whose ids read as one (1 and "1"), or an id JSON.parse cannot keep exact
 * (9007199254740993 reads as 9007199254740992; -0 as 0), are refused with the ids named, in a full
 * read (on one page or across pages) and in an incremental one, in data and in deletedIds; nothing is
 * stored. Ids spelt alike on two pages are one item moved on, and a later read may spell a stored id
 * otherwise (deletedIds "2" removes item 2).
 *
 * The rule is the sync command's, the same in a process of its own as in this one: the first refusal
 * for each store is a spawned `ledgerhook sync` (exit 3, one line on stderr, the --json document), the
 * rest run the same command in process (runInProcess), without a process and a cold start each.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startRawListServer } from '../helpers/raw-list-server.js';
import { createTestSchema, servicesSkip, type TestSchema } from './helpers/services.js';

const skip = await servicesSkip();

type Api = Awaited<ReturnType<typeof startRawListServer>>;

interface Place {
  flags: string[];
  /** The settings directory (the file store keeps its state there): one per place, kept across its runs. */
  config: string;
  items(): Promise<unknown[]>;
}

interface StoreUnderTest {
  name: string;
  skip: string | false;
  /** The flags that send a sync into this store (a fresh place per call). */
  place(): Promise<Place>;
}

const schemas: TestSchema[] = [];

/**
 * One schema for every Postgres place: its tables are made once (a migration per place cost more than
 * the syncs), and emptied for each new place, so that each starts with nothing stored.
 */
async function emptySchema(): Promise<TestSchema> {
  const schema = schemas[0];
  if (!schema) {
    const created = await createTestSchema();
    schemas.push(created);
    return created;
  }
  const tables = await schema.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename <> 'ledgerhook_migrations'",
    [schema.name],
  );
  for (const { name } of tables.rows) await schema.query(`DELETE FROM ${schema.name}.${name}`);
  return schema;
}

const STORES: StoreUnderTest[] = [
  {
    name: 'the JSON file store',
    skip: false,
    async place() {
      const out = tempDir();
      return {
        flags: ['--out', out],
        config: tempDir(),
        items: async () => JSON.parse(readFileSync(join(out, 'expenses.json'), 'utf8')),
      };
    },
  },
  {
    name: 'Postgres',
    skip,
    async place() {
      const schema = await emptySchema();
      return {
        flags: ['--store', schema.url],
        config: tempDir(),
        async items() {
          const rows = await schema.query(
            `SELECT item FROM ${schema.name}.ledgerhook_items ORDER BY item_id COLLATE "C"`,
          );
          return rows.rows.map((row) => row.item);
        },
      };
    },
  },
];

const sync = (api: Api, place: Place, options: { spawned?: boolean } = {}) =>
  (options.spawned ? runCli : runInProcess)(
    ['sync', '/expenses', '--base-url', api.baseUrl, '--token', api.token, '--limit', '2', '--json', ...place.flags],
    { env: { LEDGERHOOK_CONFIG_DIR: place.config } },
  );

/** The refusal: exit 3, one line on stderr, the reason and the ids in the --json document. */
function assertRefused(result: Awaited<ReturnType<typeof sync>>, reason: string, named: RegExp) {
  assert.equal(result.code, 3, result.stderr);
  assertOneLineError(result);
  const error = JSON.parse(result.stdout).error;
  assert.equal(error.reason, reason);
  assert.match(error.message, named);
}

after(async () => {
  for (const schema of schemas) await schema.drop();
});

for (const store of STORES)
  describe(`ids as the server wrote them, into ${store.name}`, { skip: store.skip }, () => {
    it('a full read with 1 and "1" (on one page, or on two) is refused naming both, by the spawned CLI as in process; nothing is stored', async () => {
      let spawned = true;
      for (const [first, second] of [
        ['{"id":1,"a":1}', '{"id":"1","a":2}'],
        ['{"id":"-0"}', '{"id":0}'],
      ]) {
        for (const apart of [false, true]) {
          const api = await startRawListServer();
          try {
            api.put('a', first as string);
            if (apart) api.put('filler', '{"id":"0x"}'); // the limit is 2: the second id comes on page 2
            api.put('b', second as string);
            const place = await store.place();
            const result = await sync(api, place, { spawned });
            spawned = false;
            assertRefused(result, 'id_collision', /the ids \S+ and \S+/);
            const ids = JSON.parse(result.stdout)
              .error.message.match(/the ids (\S+) and ([^\s:]+)/)
              .slice(1);
            assert.deepEqual(
              ids.sort(),
              [JSON.stringify(JSON.parse(first as string).id), JSON.stringify(JSON.parse(second as string).id)].sort(),
            );
            assert.deepEqual(await place.items().catch(() => []), [], 'nothing was stored');
          } finally {
            await api.close();
          }
        }
      }
    });

    it('an id beyond 2^53 or -0 is refused by name, in data and in deletedIds', async () => {
      for (const text of ['{"id":9007199254740993}', '{"id":-0}', '{"id":1.5}']) {
        const api = await startRawListServer();
        try {
          api.put('a', '{"id":1}');
          api.put('b', text);
          const place = await store.place();
          assertRefused(await sync(api, place), 'id_not_exact', /data\[1\] has the id /);
        } finally {
          await api.close();
        }
      }
      const api = await startRawListServer();
      try {
        api.put('a', '{"id":9007199254740991}');
        api.put('b', '{"id":2}');
        const place = await store.place();
        const first = await sync(api, place);
        assert.equal(first.code, 0, first.stderr);
        // The largest exact integer is kept; a deletion naming its neighbour is refused, not applied to it.
        api.remove('a', '9007199254740993');
        assertRefused(await sync(api, place), 'id_not_exact', /deletedIds\[0\] has the id 9007199254740992/);
        assert.deepEqual(sorted(await place.items()), sorted([{ id: 9007199254740991 }, { id: 2 }]));
      } finally {
        await api.close();
      }
    });

    it('an incremental read with 7 and "7" on two pages is refused; spelt alike it is one item; deletedIds may spell a stored id otherwise', async () => {
      const api = await startRawListServer();
      try {
        for (const id of [1, 2, 3]) api.put(`item${id}`, `{"id":${id},"v":0}`);
        const place = await store.place();
        assert.equal((await sync(api, place)).code, 0);
        api.put('item1', '{"id":1,"v":1}');
        api.put('x', '{"id":"x"}');
        api.put('item1-again', '{"id":"1","v":2}');
        assertRefused(await sync(api, place), 'id_collision', /the ids 1 and "1" /);
        assert.deepEqual(
          sorted(await place.items()),
          sorted([
            { id: 1, v: 0 },
            { id: 2, v: 0 },
            { id: 3, v: 0 },
          ]),
          'nothing of the refused read is stored',
        );
        api.put('item1-again', '{"id":1,"v":2}'); // now spelt alike: the later copy wins
        api.remove('item2', '"2"');
        const next = await sync(api, place);
        assert.equal(next.code, 0, next.stderr);
        assert.deepEqual(JSON.parse(next.stdout).mode, 'incremental');
        assert.deepEqual(sorted(await place.items()), sorted([{ id: 1, v: 2 }, { id: 3, v: 0 }, { id: 'x' }]));
      } finally {
        await api.close();
      }
    });
  });

/** Items in one order whatever the store's (the file's by id, numbers first; Postgres's by row key). */
const sorted = (items: unknown[]) => items.map((item) => JSON.stringify(item)).sort();
