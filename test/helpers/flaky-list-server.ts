import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Not the mock: a list server that answers 503 `failures` times, then one page. */
export async function flakyListServer(failures: number) {
  let seen = 0;
  const server = createServer((_request, response) => {
    seen += 1;
    if (seen <= failures) {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data: [{ id: 1 }], lastUpdatedDate: '2026-11-24T00:00:00Z' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v5`,
    requests: () => seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
