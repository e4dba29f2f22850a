import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { signWebhook } from '@ledgerhook/webhooks';
import { runCli, tempDir } from '../helpers/cli.js';

const SECRET = 'whsec_duplicate_headers';

describe('"as captured" means every header copy, in order', () => {
  it('a delivery refused for a duplicated verification header is replayed with both copies', async () => {
    const body = '{"userId":"u","type":"ENTITY_UPDATE","entities":["expense"]}';
    const genuine = await signWebhook(body, SECRET);
    const other = await signWebhook(body, 'another-secret');
    const dir = tempDir();
    const capture = join(dir, 'c.jsonl');
    writeFileSync(
      capture,
      `${JSON.stringify({
        id: 'dlv_dup',
        receivedAt: new Date().toISOString(),
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', 'service-verification': [other, genuine] },
        headerName: 'service-verification',
        body: Buffer.from(body).toString('base64'),
        bodyBytes: body.length,
        verdict: { valid: false, status: 400, code: 'malformed_token' },
      })}\n`,
    );
    // An independent receiver that logs the raw header lines it got.
    const seen: string[][] = [];
    const receiver = createServer((request, response) => {
      seen.push(request.rawHeaders);
      request.resume();
      request.on('end', () => response.writeHead(400).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
    try {
      const replayed = await runCli(['replay', capture, '--to', url, '--include-refused', '--secret', SECRET]);
      assert.equal(seen.length, 1, replayed.stdout + replayed.stderr);
      const raw = seen[0]!;
      const values = raw.filter(
        (_, index) => index % 2 === 1 && raw[index - 1]!.toLowerCase() === 'service-verification',
      );
      assert.deepEqual(values, [other, genuine]);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
