import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { captureRecord, VALID_BODY } from '../helpers/capture-file.js';
import { runCli, tempDir } from '../helpers/cli.js';
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

  it('replay refused by the receiver says it in the same words: "2 of 2 replayed deliveries were not answered"', async () => {
    const receiver = await startSpecReceiver({ secret: 'the-receivers-secret' });
    try {
      const records = [
        await captureRecord(VALID_BODY, { id: 'dlv_1' }),
        await captureRecord(VALID_BODY, { id: 'dlv_2' }),
      ];
      const file = join(tempDir(), 'capture.jsonl');
      writeFileSync(file, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
      const result = await runCli(['replay', file, '--to', receiver.url, '--as-captured']);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /^error: 2 of 2 replayed deliveries were not answered with 2xx/m);
    } finally {
      await receiver.close();
    }
  });
});
