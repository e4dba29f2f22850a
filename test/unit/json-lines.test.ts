/**
 * The one JSON Lines reader of files others may have written (captures, recordings, the forwards a
 * capture still owes): bounded lines, each skipped line counted and said once, in the words of what
 * is read, and a hostile file's flood of bad lines held as a hundred warnings and a count.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MAX_CAPTURE_LINE_BYTES } from '../../src/capture/capture-lines.js';
import { MAX_LINE_WARNINGS, skippedLines } from '../../src/capture/json-lines.js';
import { readPendingForwards } from '../../src/capture/pending-forwards.js';
import { readCaptures } from '../../src/capture/read-captures.js';
import { forwardPrinter } from '../../src/cli/commands/listen/listen-routes.js';
import type { CliContext } from '../../src/cli/context.js';
import { readRecording } from '../../src/record/read-recording.js';
import { captureRecord, VALID_BODY } from '../helpers/capture-file.js';
import { tempDir } from '../helpers/cli.js';

const HEADER = {
  kind: 'recording',
  format: 1,
  startedAt: '2026-01-01T00:00:00.000Z',
  baseUrl: 'https://sandbox.example/rest/v5',
  basePath: '/rest/v5',
  redaction: { keyId: 'abc', fields: [] },
};

/** After a good first line: blank, a hole of zero bytes, over the bound, not JSON, and a torn last line. */
const DAMAGE = ['', '\0'.repeat(64), 'x'.repeat(MAX_CAPTURE_LINE_BYTES + 1), 'not json', '{"kind":"exch'];

describe('one JSON Lines reader for captures, recordings and owed forwards', () => {
  it('the same damage is said the same way, each line once, in the words of each file', async () => {
    const capture = join(tempDir(), 'capture.jsonl');
    writeFileSync(capture, [JSON.stringify(await captureRecord(VALID_BODY, { id: 'dlv_1' })), ...DAMAGE].join('\n'));
    const read = await readCaptures(capture);
    assert.deepEqual(read.warnings, [
      `line 4 is longer than ${MAX_CAPTURE_LINE_BYTES} bytes (${MAX_CAPTURE_LINE_BYTES + 1}); skipped`,
      'line 5 is not JSON; skipped',
      'line 6 is incomplete (the writer was stopped mid-line); skipped',
    ]);
    assert.equal(read.skipped, 3);

    const owed = skippedLines('', 'the writer');
    await readPendingForwards(capture, owed);
    assert.deepEqual(owed.warnings, read.warnings, 'the owed forwards are read by the same rule');
    assert.equal(owed.count, 3);

    const dir = join(tempDir(), 'recording');
    mkdirSync(dir);
    writeFileSync(join(dir, 'recording.jsonl'), [JSON.stringify(HEADER), ...DAMAGE].join('\n'));
    const recording = await readRecording(dir, { maxBytes: 2 * MAX_CAPTURE_LINE_BYTES });
    assert.deepEqual(recording.warnings, [
      `recording.jsonl line 4 is longer than ${MAX_CAPTURE_LINE_BYTES} bytes (${MAX_CAPTURE_LINE_BYTES + 1}); skipped`,
      'recording.jsonl line 5 is not JSON; skipped',
      'recording.jsonl line 6 is incomplete (the recorder was stopped mid-line); skipped',
    ]);
  });

  it('a flood of bad lines: every one counted, a hundred said, then one line for the rest', async () => {
    const capture = join(tempDir(), 'flood.jsonl');
    const bad = MAX_LINE_WARNINGS + 50;
    writeFileSync(
      capture,
      `${'{}\n'.repeat(bad)}${JSON.stringify(await captureRecord(VALID_BODY, { id: 'dlv_1' }))}\n`,
    );
    const read = await readCaptures(capture);
    assert.equal(read.total, 1);
    assert.equal(read.skipped, bad);
    assert.equal(read.warnings.length, MAX_LINE_WARNINGS + 1);
    assert.equal(read.warnings[0], 'line 1 is JSON but not a captured delivery; skipped');
    assert.equal(read.warnings.at(-1), '50 more lines skipped');
  });
});

describe('listen --retry says the lines of its capture file it could not read, once, at start', () => {
  const event = { type: 'forwards-resumed', resumed: 0, waiting: 0, dropped: 0, unverified: 0, skipped: 2 } as const;
  function printed(json: boolean) {
    const stderr: string[] = [];
    const stdout: string[] = [];
    const ctx = {
      color: { yellow: String, red: String, green: String, dim: String },
      stderr: { write: (text: string) => stderr.push(text) },
    } as unknown as CliContext;
    forwardPrinter({ ...(json ? { json: true as const } : {}), capture: 'cap.jsonl' }, ctx, {
      write: (line) => stdout.push(line),
      flush: () => {},
    })(event);
    return { stderr: stderr.join(''), stdout: stdout.join('') };
  }

  it('on its own when nothing is owed; in --json as skipped', () => {
    assert.equal(
      printed(false).stderr,
      '2 lines of the capture file cap.jsonl not read (not JSON, cut, or too long)\n',
    );
    assert.equal(JSON.parse(printed(true).stdout).skipped, 2);
  });
});
