import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

/** A recording directory with a header and nothing else (what `record` leaves when nothing came). */
function emptyRecording(): string {
  const dir = join(tempDir(), 'recording');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'recording.jsonl'),
    `${JSON.stringify({ kind: 'recording', format: 1, startedAt: '2026-01-01T00:00:00.000Z', baseUrl: 'https://s.example/rest/v5', basePath: '/rest/v5', redaction: { keyId: 'k', fields: [] } })}\n`,
  );
  return dir;
}

describe('record, recordings and mock --from refuse what cannot work, in one line', () => {
  const sandboxSecret = 'whsec_the_stored_sandbox_secret';
  const config = tempDir('ledgerhook-config-');
  writeFileSync(
    join(config, 'settings.json'),
    JSON.stringify({ environments: { sandbox: { webhookSecret: sandboxSecret } } }),
  );
  const recording = emptyRecording();
  const cases: Array<[string, string[], RegExp]> = [
    [
      '--forward-to without a listener',
      ['record', '--base-url', 'http://127.0.0.1:9/rest/v5', '--out', tempDir(), '--forward-to', ':3000'],
      /--forward-to goes with --listen-port/,
    ],
    [
      'a base URL with credentials',
      ['record', '--base-url', 'https://u:p@sandbox.example/rest/v5', '--out', join(tempDir(), 'r')],
      /must not carry credentials/,
    ],
    [
      'a redaction rule on what paging rests on',
      ['record', '--base-url', 'http://127.0.0.1:9/rest/v5', '--out', join(tempDir(), 'r'), '--redact', 'id'],
      /id is kept so that paging still works.*JSON paths/,
    ],
    [
      'an existing recording',
      ['record', '--base-url', 'http://127.0.0.1:9/rest/v5', '--out', recording, '--port', '0'],
      /cannot start a recording in .*recording\.jsonl.*give --out a new directory/,
    ],
    [
      'a directory that holds no recording',
      ['mock', '--from', tempDir()],
      /is not a recording ledgerhook can read: it holds no recording\.jsonl; give --from a directory written by/,
    ],
    ['--speed without --from', ['mock', '--speed', '10'], /--speed and --faults go with --from DIR/],
    ['--faults of another kind', ['mock', '--from', recording, '--faults', 'random'], /Allowed choices are recorded/],
    [
      'a replay signed with a sandbox secret',
      ['mock', '--from', recording, '--env', 'sandbox'],
      /local development secret only/,
    ],
    [
      'the stored sandbox secret given by hand',
      ['mock', '--from', recording, '--port', '0', '--webhook-url', ':9', '--secret', sandboxSecret],
      /is the stored sandbox webhook secret/,
    ],
    ['--churn over a recording', ['mock', '--from', recording, '--churn', '1'], /with --from the recording is served/],
    ['recordings show of a capture file', ['recordings', 'show', tempDir()], /holds no recording\.jsonl/],
    [
      'listen --redact with nothing to redact',
      ['listen', '--redact', 'defaults', '--port', '0'],
      /--redact goes with --capture FILE, --ui or --print-body/,
    ],
  ];
  for (const [what, args, message] of cases)
    it(what, async () => {
      const result = await runInProcess(args, { env: { LEDGERHOOK_CONFIG_DIR: config } });
      assert.equal(result.code, 2, result.stderr);
      assertOneLineError(result);
      assert.match(result.stderr, message);
    });

  it('end to end: the one line, exit 2, and nothing written into the recording that was there', async () => {
    const result = await runCli([
      'record',
      '--base-url',
      'http://127.0.0.1:9/rest/v5',
      '--out',
      recording,
      '--port',
      '0',
    ]);
    assert.equal(result.code, 2);
    assertOneLineError(result);
    assert.deepEqual(readdirSync(recording), ['recording.jsonl']);
  });
});
