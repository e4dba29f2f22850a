import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inspectorActions } from '../../src/inspector/inspector-actions.js';
import { fromCaptureRecord } from '../../src/inspector/inspector-delivery.js';
import { CAPTURE_SECRET, captureRecord } from '../helpers/capture-file.js';
import { BIN, runCli, tempDir } from '../helpers/cli.js';

/** What the receiver got: the exact body bytes and the headers. */
interface Received {
  body: Buffer;
  headers: IncomingHttpHeaders;
}

/** HS256 check written with node:crypto: the signature and the body hash claim. */
function verifies(token: string, body: Buffer, secret: string): boolean {
  const [header = '', claims = '', signature = ''] = token.split('.');
  const expected = createHmac('sha256', secret).update(`${header}.${claims}`).digest('base64url');
  const parsed = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8'));
  return expected === signature && parsed.request_body_sha256 === createHash('sha256').update(body).digest('base64');
}

function tokenFor(body: Buffer, secret: string): string {
  const claims = { iat: 1_795_000_000, request_body_sha256: createHash('sha256').update(body).digest('base64') };
  const input = `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** Runs the copied command as a user pasting it would: bash, `ledgerhook` on PATH, the secret in the env. */
function runInBash(command: string, binDir: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, PATH: `${binDir}:${process.env.PATH}`, LEDGERHOOK_WEBHOOK_SECRET: CAPTURE_SECRET };
    execFile('bash', ['-c', command], { env, cwd: binDir }, (error, _stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    );
  });
}

describe('printed curl commands, run in bash', () => {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.end('ok');
    });
  });
  const dir = tempDir();
  let url = '';
  const actions = inspectorActions({ secret: CAPTURE_SECRET });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const shim = join(dir, 'ledgerhook');
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(shim, 0o755);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cases: { name: string; body: Buffer; headerName?: string; valid: boolean }[] = [
    // With `--data-binary "$BODY"`, curl would upload the file named after the @ instead.
    { name: 'a body starting with @ is sent as text, not as a file', body: Buffer.from('@/etc/hostname'), valid: true },
    {
      name: 'bytes that are not UTF-8, ending in newlines, arrive byte for byte',
      body: Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d, 0x0a, 0x0a]),
      valid: true,
    },
    {
      name: 'a hostile header name from a capture file stays a word: nothing runs',
      body: Buffer.from('{"userId":"u","type":"ENTITY_UPDATE","entities":["expense"]}\n'),
      // Backquote, $ and ' are all legal in an HTTP header name; inside double quotes they would run.
      headerName: "x-`touch$IFS'PWNED'`",
      valid: true,
    },
    {
      name: 'a refused delivery goes out with its original token, never re-signed',
      body: Buffer.from('{"userId":"it\'s $(id)"}'),
      valid: false,
    },
  ];

  for (const [index, { name, body, headerName, valid }] of cases.entries()) {
    it(name, async () => {
      const name = headerName ?? 'service-verification';
      const originalToken = tokenFor(body, valid ? CAPTURE_SECRET : 'forged');
      const record = await captureRecord('{}', { id: `dlv_${index}`, valid });
      record.body = body.toString('base64');
      record.bodyBytes = body.length;
      record.headerName = name;
      record.headers = { 'content-type': 'application/json', [name]: originalToken };
      const command = await actions.curl(fromCaptureRecord(record, index), url);
      assert.equal(command.includes(CAPTURE_SECRET), false);

      const before = received.length;
      const run = await runInBash(command, dir);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(received.length, before + 1);
      const got = received.at(-1) as Received;
      assert.deepEqual(got.body, body);
      const sent = got.headers[name.toLowerCase()];
      assert.equal(typeof sent, 'string');
      if (valid) {
        assert.notEqual(sent, originalToken, 're-signed with a fresh iat');
        assert.ok(verifies(sent as string, body, CAPTURE_SECRET));
      } else {
        assert.equal(sent, originalToken);
      }
      assert.equal(existsSync(join(dir, 'PWNED')), false);
    });
  }

  it('a re-signed curl carries the verification prefix the inspector was given', async () => {
    const body = Buffer.from('{"userId":"u","type":"ENTITY_UPDATE","entities":["expense"]}');
    const record = await captureRecord('{}', { id: 'dlv_prefixed', valid: true });
    record.body = body.toString('base64');
    record.bodyBytes = body.length;
    record.headerName = 'service-verification';
    record.headers = {
      'content-type': 'application/json',
      'service-verification': `Bearer ${tokenFor(body, CAPTURE_SECRET)}`,
    };
    const prefixed = inspectorActions({ secret: CAPTURE_SECRET, verificationPrefix: 'Bearer ' });
    const run = await runInBash(await prefixed.curl(fromCaptureRecord(record, 0), url), dir);
    assert.equal(run.code, 0, run.stderr);
    const sent = String(received.at(-1)?.headers['service-verification']);
    assert.match(sent, /^Bearer eyJ/);
    assert.ok(verifies(sent.slice('Bearer '.length), body, CAPTURE_SECRET));
  });

  it('sign --format curl: a body from stdin starting with @ is sent as it is, not as a file', async () => {
    const body = '@/etc/hostname';
    const printed = await runCli(['sign', '-', '--secret', CAPTURE_SECRET, '--format', 'curl', '--url', url], {
      input: body,
    });
    assert.equal(printed.code, 0, printed.stderr);
    const run = await runInBash(printed.stdout, dir);
    assert.equal(run.code, 0, run.stderr);
    const got = received.at(-1) as Received;
    assert.equal(got.body.toString('utf8'), body);
    assert.ok(verifies(got.headers['service-verification'] as string, got.body, CAPTURE_SECRET));
  });
});
