/**
 * A 2xx means the delivery is recorded: the port is bound before the capture file opens (a taken port
 * leaves no file behind), so until every subscriber is attached the listener answers 503 with
 * Retry-After. A FIFO as the capture file holds the open for as long as the test likes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startListener } from '../../src/index.js';
import { signWebhook } from '@ledgerhook/webhooks';
import { tempDir } from '../helpers/cli.js';

const SECRET = 'whsec_listener_starting';

/** A port the kernel just handed out (the listener needs it before it can say which it took). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls until the port answers (a condition with a deadline, never a fixed sleep). */
async function firstAnswer(url: string, init: RequestInit): Promise<Response> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await fetch(url, init);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

describe('startListener while it starts', () => {
  it('answers 503 with Retry-After until the capture is open, then records before it answers 2xx', async () => {
    const fifo = join(tempDir(), 'capture.fifo');
    execFileSync('mkfifo', [fifo]);
    const port = await freePort();
    const starting = startListener({
      port,
      host: '127.0.0.1',
      verification: { secrets: [SECRET] },
      capture: { path: fifo },
    });
    const body = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
    const init = async () => ({
      method: 'POST',
      body,
      headers: { 'service-verification': await signWebhook(body, SECRET) },
    });
    const early = await firstAnswer(`http://127.0.0.1:${port}/`, await init());
    assert.equal(early.status, 503);
    assert.equal(early.headers.get('retry-after'), '1');
    // A reader makes the capture's open (and so the start) go on.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const listener = await starting;
    try {
      const answer = await fetch(listener.url, await init());
      assert.equal(answer.status, 200);
      const bytes = Buffer.alloc(64 * 1024);
      const read = readSync(reader, bytes);
      const lines = bytes.subarray(0, read).toString('utf8').trim().split('\n');
      assert.equal(lines.length, 1, 'only the delivery answered 200 was captured');
      assert.equal(JSON.parse(lines[0] ?? '{}').verdict.status, 200);
    } finally {
      await listener.close();
      closeSync(reader);
    }
  });
});
