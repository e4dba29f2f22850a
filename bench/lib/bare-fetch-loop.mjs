/**
 * The floor of bench/sync-throughput.ts: what a developer would write to read a dataset with undici
 * and nothing else — fetch each page, parse it, follow the cursor, keep nothing. (Plain JS, so that a
 * child process runs it as a bare `node` process; the bench also calls it in process.)
 */
import { pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';

/** Reads every page of `path` at `limit`; returns the items counted. */
export async function bareFetchLoop(baseUrl, token, dispatcher, path = '/expenses', limit = 1000) {
  let cursor;
  let items = 0;
  do {
    const response = await request(`${baseUrl}${path}`, {
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        limit: String(limit),
        ...(cursor ? { cursor } : {}),
      },
      dispatcher,
    });
    const page = await response.body.json();
    items += page.data.length;
    cursor = page.cursor;
  } while (cursor);
  return items;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [baseUrl, token] = process.argv.slice(2);
  const dispatcher = new Agent();
  const total = await bareFetchLoop(baseUrl, token, dispatcher);
  await dispatcher.close();
  process.stdout.write(`${JSON.stringify({ total })}\n`);
}
