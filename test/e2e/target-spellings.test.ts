import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveTarget } from '../../src/delivery/target.js';

/** Every spelling and where it goes (asserted on the resolved URL: nothing is sent). */
const ACCEPTED: Array<[string, string]> = [
  ['4000', 'http://localhost:4000/'],
  ['4000/webhooks', 'http://localhost:4000/webhooks'],
  ['4000/webhooks?x=1', 'http://localhost:4000/webhooks?x=1'],
  [':4000', 'http://localhost:4000/'],
  [':4000/webhooks', 'http://localhost:4000/webhooks'],
  ['localhost:4000', 'http://localhost:4000/'],
  ['localhost:4000/webhooks', 'http://localhost:4000/webhooks'],
  ['127.0.0.1:4000/hooks', 'http://127.0.0.1:4000/hooks'],
  ['http://127.0.0.1:4000/hooks', 'http://127.0.0.1:4000/hooks'],
  ['https://example.com/hooks', 'https://example.com/hooks'],
  ['example.com', 'http://example.com/'],
  ['http://[::1]:4000/', 'http://[::1]:4000/'],
  ['  4000  ', 'http://localhost:4000/'],
  ['10.0.0.5:8080', 'http://10.0.0.5:8080/'],
];
const REFUSED = [
  '2130706433',
  'http://2130706433/',
  '0x7f.1',
  'http://0x7f.1:4000/',
  '127.1',
  '127.1:4000',
  '0177.0.0.1',
  '1.2.3',
  'http://0x7f000001/',
  '127.0.0.01',
  'ftp://example.com/',
  '',
  'http://user:pw@localhost:4000/',
];

describe('a signed delivery goes only where the user meant', () => {
  for (const [typed, url] of ACCEPTED)
    it(`${JSON.stringify(typed)} → ${url}`, () => assert.equal(resolveTarget(typed).href, url));
  for (const typed of REFUSED)
    it(`${JSON.stringify(typed)} is refused with the accepted forms`, () =>
      assert.throws(() => resolveTarget(typed), { code: 'ERR_USAGE' }));
  it('a numeric shorthand names the forms that are accepted', () =>
    assert.throws(() => resolveTarget('2130706433'), /numeric IPv4 address.*PORT\/path/));
});

describe('send-sample --to PORT/path reaches this machine', () => {
  it('a server on 127.0.0.1 gets the delivery at /webhooks; --to 2130706433 exits 2 and sends nothing', async () => {
    const { createServer } = await import('node:http');
    const { runInProcess } = await import('../helpers/in-process-cli.js');
    const paths: string[] = [];
    const server = createServer((request, response) => {
      paths.push(request.url ?? '');
      request.resume();
      request.on('end', () => response.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const env = { LEDGERHOOK_WEBHOOK_SECRET: 'whsec_target' };
      const sent = await runInProcess(['send-sample', 'ENTITY_UPDATE', '--to', `${port}/webhooks`], { env });
      assert.equal(sent.code, 0, sent.stderr);
      assert.deepEqual(paths, ['/webhooks']);
      const refused = await runInProcess(['send-sample', 'ENTITY_UPDATE', '--to', '2130706433'], { env });
      assert.equal(refused.code, 2, refused.stderr);
      assert.deepEqual(paths, ['/webhooks']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
