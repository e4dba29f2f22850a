import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A list server written for the tests of the server's timestamps (not the mock): one page, whose
 * lastUpdatedDate and Date header the test sets. `stamp` may be a function of the lastUpdatedDate
 * the request sent (a server that echoes it). Items are changed by `put`; an incremental request
 * gets every item (enough to see what is committed). Each request's lastUpdatedDate header is kept.
 */
export async function startStampedListServer(initial: { stamp: string; date?: string | null }) {
  let stamp: string | ((sent: string | undefined) => string) = initial.stamp;
  // undefined: node's own Date header (now); null: none at all; a string: that header.
  let date: string | null | undefined = initial.date;
  const items = new Map<number, { id: number; amount: number }>([
    [1, { id: 1, amount: 1 }],
    [2, { id: 2, amount: 2 }],
  ]);
  const sent: Array<string | undefined> = [];
  const server = createServer((request, response) => {
    const since = request.headers.lastupdateddate;
    const asked = typeof since === 'string' ? since : undefined;
    sent.push(asked);
    if (date === null) response.sendDate = false;
    else if (date !== undefined) response.setHeader('date', date);
    const lastUpdatedDate = typeof stamp === 'function' ? stamp(asked) : stamp;
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data: [...items.values()], lastUpdatedDate }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v5`,
    /** The lastUpdatedDate each request sent (undefined for a full read). */
    sent,
    setStamp: (next: typeof stamp) => {
      stamp = next;
    },
    setDate: (next: string | null | undefined) => {
      date = next;
    },
    put: (id: number, amount: number) => items.set(id, { id, amount }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
