import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CAPTURE_SECRET, VALID_BODY, captureRecord } from '../helpers/capture-file.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const ESC = '\u001b';
const CSI = '\u009b';
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Signed correctly but with a hostile `alg`: the algorithm check quotes it back. */
function hostileToken(body: string): string {
  const header = { alg: `none${ESC}[2J${CSI}31m`, typ: 'JWT' };
  const claims = { iat: 1_795_000_000, request_body_sha256: createHash('sha256').update(body).digest('base64') };
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${createHmac('sha256', CAPTURE_SECRET).update(input).digest('base64url')}`;
}

/** A capture file someone handed over: every text field carries terminal escapes. */
function writeHostileCapture(): string {
  const body = '{"userId":"u","type":"ENTITY_UPDATE","entities":["expense"]}';
  const record = {
    id: `dlv_${ESC}]0;owned${ESC}\\`,
    receivedAt: `2026-11-22T07:00:00Z${ESC}[31m`,
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/json', 'service-verification': hostileToken(body) },
    headerName: 'service-verification',
    body: Buffer.from(body).toString('base64'),
    bodyBytes: Buffer.byteLength(body),
    verdict: { valid: false, code: `bad${ESC}[5m`, message: `refused${CSI}2J`, status: 400 },
    forward: { url: `http://app${ESC}[1m/`, error: `gone${ESC}[7m` },
  };
  const file = join(tempDir(), 'hostile.jsonl');
  writeFileSync(file, `${JSON.stringify(record)}\n`);
  return file;
}

describe('captured values never reach the terminal as control characters', () => {
  const file = writeHostileCapture();
  const runs: { name: string; args: string[] }[] = [
    { name: 'captures list', args: ['captures', 'list', file] },
    { name: 'captures show', args: ['captures', 'show', `${file}:0`, '--secret', CAPTURE_SECRET] },
    { name: 'verify --delivery', args: ['verify', '--delivery', `${file}:0`, '--secret', CAPTURE_SECRET] },
    {
      name: 'replay',
      args: [
        'replay',
        file,
        '--to',
        'http://127.0.0.1:1/',
        '--as-captured',
        '--include-refused',
        '--include-unverified',
      ],
    },
  ];
  for (const { name, args } of runs) {
    it(name, async () => {
      // captures list from the built bin (its real stdout); the others in-process, where the same
      // command modules write what they print.
      const result = await (name === 'captures list' ? runCli : runInProcess)(args);
      assert.ok(result.stdout.length > 0, result.stderr);
      for (const [stream, text] of [
        ['stdout', result.stdout],
        ['stderr', result.stderr],
      ] as const)
        assert.equal(RAW_CONTROL.exec(text), null, `${stream} holds a raw control character:\n${text}`);
      assert.match(result.stdout, /\\u001b/);
      assert.doesNotMatch(result.stdout, /NaN/);
    });
  }

  it('captures show names the hostile algorithm, escaped, and dates iat without an age it cannot know', async () => {
    const result = await runInProcess(['captures', 'show', file, '--secret', CAPTURE_SECRET]);
    assert.match(result.stdout, /algorithm {2}alg none\\u001b\[2J\\u009b31m; only HS256 is accepted/);
    assert.match(result.stdout, /^ {9}iat 2026-11-18T\d\d:\d\d:\d\d\.000Z$/m);
  });
});

describe('names in a capture file that are not strings select nothing and break nothing', () => {
  it('a record whose type and event are null or a number: captures list and replay answer as for any other name', async () => {
    const file = join(tempDir(), 'names.jsonl');
    const lines = [
      await captureRecord(VALID_BODY, { id: 'dlv_null', extra: { type: null, event: null } }),
      await captureRecord(VALID_BODY, { id: 'dlv_number', extra: { type: 7, event: 7 } }),
    ];
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const list = await runInProcess(['captures', 'list', file, '--event', 'INVOICE_PAID']);
    assert.equal(list.code, 0, list.stderr);
    assert.doesNotMatch(list.stderr, /internal error/);
    const replay = await runInProcess([
      'replay',
      file,
      '--event',
      'my-custom',
      '--to',
      'http://127.0.0.1:9/',
      '--dry-run',
    ]);
    assert.equal(replay.code, 2, replay.stderr);
    assert.match(replay.stderr, /unknown event "my-custom"/);
  });
});
