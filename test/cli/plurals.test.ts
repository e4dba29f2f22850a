import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';

describe('counts read right', () => {
  it('send-sample --count 2 refused by the receiver: "2 of 2 deliveries were not answered"', async () => {
    const receiver = await startSpecReceiver({ secret: 'the-receivers-secret' });
    try {
      const result = await runCli([
        'send-sample',
        'ENTITY_UPDATE',
        '--to',
        receiver.url,
        '--secret',
        'another',
        '--count',
        '2',
      ]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /^error: 2 of 2 deliveries were not answered with 2xx/m);
    } finally {
      await receiver.close();
    }
  });
});
