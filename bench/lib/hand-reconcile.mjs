/**
 * The baseline of bench/reconcile.ts: what a data engineer would write by hand to compare a synced
 * JSON file with the service — load the file whole into a Map of id → JSON text, fetch every page,
 * compare each item's JSON text, and count what is missing, extra or different. (Plain JS, so a
 * child process can run it for its peak RSS; the bench also calls it in process for its time.)
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export async function handReconcile(baseUrl, token, file) {
  const stored = new Map();
  for (const item of JSON.parse(readFileSync(file, 'utf8'))) stored.set(String(item.id), JSON.stringify(item));
  const seen = new Set();
  let missing = 0;
  let different = 0;
  let cursor;
  do {
    const response = await fetch(`${baseUrl}/expenses`, {
      headers: { authorization: `Bearer ${token}`, limit: '1000', ...(cursor ? { cursor } : {}) },
    });
    const page = await response.json();
    for (const item of page.data) {
      const key = String(item.id);
      seen.add(key);
      const mine = stored.get(key);
      if (mine === undefined) missing += 1;
      else if (mine !== JSON.stringify(item)) different += 1;
    }
    cursor = page.cursor;
  } while (cursor);
  let extra = 0;
  for (const key of stored.keys()) if (!seen.has(key)) extra += 1;
  return { missing, extra, different, server: seen.size, stored: stored.size };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [baseUrl, token, file] = process.argv.slice(2);
  const result = await handReconcile(baseUrl, token, file);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
