/**
 * Real Redis and Postgres for the scale tests. Where they are not reachable the tests
 * are skipped with ONE loud line saying how to run them; with LEDGERHOOK_REQUIRE_SERVICES=1 (CI)
 * they fail instead. Every test gets its own schema and queue name, and removes them at the end.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

export const REDIS_URL = process.env.LEDGERHOOK_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const DATABASE_URL = withDefaultUser(
  process.env.LEDGERHOOK_TEST_DATABASE_URL ?? 'postgres://127.0.0.1:5432/test',
);
const REQUIRED = process.env.LEDGERHOOK_REQUIRE_SERVICES === '1';

/** libpq takes the OS user when the URL names none; where there is none (a bare container), `postgres`. */
function withDefaultUser(url: string): string {
  const parsed = new URL(url);
  if (!parsed.username && !process.env.PGUSER && !process.env.USER) parsed.username = 'postgres';
  return parsed.href;
}

async function probeRedis(): Promise<string | undefined> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return `Redis at ${REDIS_URL}: ${(error as Error).message}`;
  } finally {
    redis.disconnect();
  }
}

async function probePostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `Postgres at ${DATABASE_URL}: ${(error as Error).message}`;
  } finally {
    await client.end().catch(() => {});
  }
}

let probed: Promise<string | false> | undefined;

/**
 * `false` when both services answer, else the skip reason (printed once). Throws instead of
 * skipping when LEDGERHOOK_REQUIRE_SERVICES=1.
 */
export function servicesSkip(): Promise<string | false> {
  probed ??= (async () => {
    const problems = (await Promise.all([probeRedis(), probePostgres()])).filter((p): p is string => p !== undefined);
    if (problems.length === 0) return false;
    const line = `SKIPPING scale tests: ${problems.join('; ')}. Start Redis and Postgres, or point LEDGERHOOK_TEST_REDIS_URL / LEDGERHOOK_TEST_DATABASE_URL at them; LEDGERHOOK_REQUIRE_SERVICES=1 makes this a failure.`;
    if (REQUIRED) throw new Error(line.replace('SKIPPING', 'REQUIRED services missing for'));
    process.stderr.write(`\n!!! ${line}\n\n`);
    return line;
  })();
  return probed;
}

export interface TestSchema {
  name: string;
  /** DATABASE_URL that puts ledgerhook's tables in this schema. */
  url: string;
  query<T extends pg.QueryResultRow = any>(sql: string, params?: unknown[]): Promise<pg.QueryResult<T>>;
  drop(): Promise<void>;
}

export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.href;
}

/** A fresh schema of its own; `drop()` removes it with everything in it. */
export async function createTestSchema(): Promise<TestSchema> {
  const name = `lh_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${name}`);
  await admin.query(`SET search_path = ${name}`);
  return {
    name,
    url: withSearchPath(DATABASE_URL, name),
    query: (sql, params) => admin.query(sql, params as unknown[]),
    async drop() {
      await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      await admin.end();
    },
  };
}

export function testQueueName(label: string): string {
  return `lh-test-${label}-${randomBytes(4).toString('hex')}`;
}

/** Removes every key of a test queue (BullMQ keys are `bull:<name>:*`) and of its rate limiter. */
export async function dropQueueKeys(queueName: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    for (const pattern of [`bull:${queueName}:*`, `ledgerhook:${queueName}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}
