/**
 * Ctrl-C during `send-sample --count` is an interruption (exit 130, one line), not deliveries that
 * failed: the requests in flight are aborted by the user, not refused by the receiver.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { assertOneLineError, startCli } from '../helpers/cli.js';

describe('send-sample interrupted', () => {
  it('exits 130 with one line when Ctrl-C arrives while deliveries are in flight', async () => {
    // A receiver that holds every request: deliveries are in flight when the signal comes.
    const server = createServer(() => {});
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const arrived = once(server, 'request');
    const load = startCli([
      'send-sample',
      'ENTITY_UPDATE',
      '--count',
      '1000',
      '--concurrency',
      '5',
      '--to',
      url,
      '--secret',
      'whsec_interrupt',
    ]);
    try {
      await arrived;
      const { code } = await load.stop('SIGINT');
      assert.equal(code, 130, load.stderr());
      assertOneLineError({ code, signal: null, stdout: '', stderr: load.stderr() });
      assert.doesNotMatch(load.stderr(), /not answered with 2xx/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
