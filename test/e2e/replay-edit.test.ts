import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { shellQuote } from '../../src/util/shell-quote.js';
import { CAPTURE_SECRET, captureRecord, FORGED_BODY, VALID_BODY } from '../helpers/capture-file.js';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { startSpecReceiver } from '../helpers/spec-receiver.js';

/**
 * The "editor": a node script that rewrites the file the way a person would, by EDIT_MODE, and notes
 * the file's path and mode so that the test can check it was private and removed afterwards.
 */
const EDITOR_SCRIPT = `
import { readFileSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
const file = process.argv[2];
appendFileSync(process.env.EDIT_LOG, JSON.stringify({ file, mode: statSync(file).mode & 0o777, args: process.argv.length - 2 }) + '\\n');
const text = readFileSync(file, 'utf8');
const mode = process.env.EDIT_MODE;
if (mode === 'amount') {
  const body = JSON.parse(text);
  body.eventData = { amount: 42, note: 'edited' };
  writeFileSync(file, JSON.stringify(body, null, 2) + '\\n');
} else if (mode === 'not-json') writeFileSync(file, '{"userId": "user_1",\\n  "type": }');
else if (mode === 'bad-shape') writeFileSync(file, '{"userId":"user_1","type":"ENTITY_UPDATE"}');
else if (mode === 'newline') writeFileSync(file, text + '\\n');
else if (mode === 'fail') process.exit(1);
`;

describe('replay --edit (end to end: an independent receiver, a node script as the editor)', () => {
  const dir = tempDir();
  const script = join(dir, 'fake editor.mjs');
  const log = join(dir, 'edits.log');
  let file: string;
  let receiver: Awaited<ReturnType<typeof startSpecReceiver>>;
  const original = () => readFileSync(file, 'utf8');
  /**
   * replay --edit with the fake editor. The editor setting is a shell command (run with `sh -c`), so
   * EDIT_MODE and EDIT_LOG are given in it, as a user could: the editor gets them whether replay runs
   * as the built bin (the first test) or in-process (the others: same definitions and command module).
   */
  const edit = (mode: string, args: string[] = ['--id', 'dlv_valid'], { spawned = false } = {}) =>
    (spawned ? runCli : runInProcess)(['replay', file, '--to', receiver.url, '--edit', ...args], {
      env: {
        LEDGERHOOK_WEBHOOK_SECRET: CAPTURE_SECRET,
        // A path with a space, quoted as a person would write it in EDITOR.
        EDITOR: `EDIT_MODE=${shellQuote(mode)} EDIT_LOG=${shellQuote(log)} ${shellQuote(process.execPath)} ${shellQuote(script)}`,
        VISUAL: undefined,
      },
    });

  before(async () => {
    writeFileSync(script, EDITOR_SCRIPT);
    receiver = await startSpecReceiver({ secret: CAPTURE_SECRET });
    file = join(dir, 'deliveries.jsonl');
    const records = [
      await captureRecord(VALID_BODY, { id: 'dlv_valid' }),
      await captureRecord(FORGED_BODY, { id: 'dlv_forged', secret: 'not-the-secret', valid: false }),
      // Refused at receipt (by a listener with another secret, say), yet its token verifies now.
      await captureRecord(FORGED_BODY, { id: 'dlv_late', valid: false }),
    ];
    writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  });
  after(() => receiver.close());

  it('sends the edited body re-signed; the independent receiver accepts it; the capture links it to its original', async () => {
    const before = original();
    const result = await edit('amount', undefined, { spawned: true });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /edited from dlv_valid, re-signed → 200/);
    // The receiver (spec 5.2, no ledgerhook code) verified the fresh token over the new body.
    assert.equal(receiver.received.length, 1);
    const [got] = receiver.received;
    assert.equal(got?.status, 200, got?.reason);
    assert.deepEqual(JSON.parse(got?.body.toString('utf8') ?? ''), {
      ...JSON.parse(VALID_BODY),
      eventData: { amount: 42, note: 'edited' },
    });
    assert.equal(got?.headers['ledgerhook-edited-from'], 'dlv_valid');
    const originalToken = JSON.parse(before.split('\n')[0] ?? '').headers['service-verification'];
    assert.notEqual(got?.headers['service-verification'], originalToken);

    // Appended to the capture file (the lines before untouched), linked to its original.
    const after = original();
    assert.ok(after.startsWith(before));
    const record = JSON.parse(after.slice(before.length));
    assert.equal(record.editedFrom, 'dlv_valid');
    assert.equal(Buffer.from(record.body, 'base64').toString('utf8'), got?.body.toString('utf8'));
    assert.equal(record.forward.status, 200);
    const show = await runInProcess(['captures', 'show', `${file}#${record.id}`, '--json']);
    assert.equal(JSON.parse(show.stdout).editedFrom, 'dlv_valid');
    const list = await runInProcess(['captures', 'list', file, '--json']);
    assert.deepEqual(
      JSON.parse(list.stdout).deliveries.map((d: { editedFrom?: string }) => d.editedFrom ?? null),
      [null, null, null, 'dlv_valid'],
    );
    assert.match(
      (await runInProcess(['captures', 'list', file])).stdout,
      /LIFECYCLE_EVENT INVOICE_VIEWED \(edited from dlv_valid\)/,
    );
    const human = await runInProcess(['captures', 'show', `${file}#${record.id}`]);
    assert.match(human.stdout, /^edited {3}from dlv_valid, re-signed/m);

    // The editor got a private file (0600) as one argument, and it is gone.
    const seen = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      seen.map((s) => [s.mode, s.args]),
      [[0o600, 1]],
    );
    assert.equal(existsSync(seen[0].file), false);
  });

  for (const [mode, problem] of [
    ['not-json', /not JSON: .*\(line 2, column \d+\)/],
    ['bad-shape', /not a webhook body \(spec 2\.1\/2\.2\): entities is missing/],
    ['fail', /the editor .* exited with 1: nothing was sent/],
  ] as const)
    it(`an edit that is ${mode} is refused with one line and exit 2; nothing is sent or recorded`, async () => {
      const sent = receiver.received.length;
      const before = original();
      const result = await edit(mode);
      assert.equal(result.code, 2, result.stderr);
      assertOneLineError(result);
      assert.match(result.stderr, problem);
      assert.equal(receiver.received.length, sent);
      assert.equal(original(), before);
    });

  it('an unchanged body (an editor adding only a final newline) says so and sends nothing', async () => {
    const sent = receiver.received.length;
    const before = original();
    const result = await edit('newline', ['--index', '0', '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), {
      ok: true,
      url: receiver.url,
      editedFrom: 'dlv_valid',
      unchanged: true,
      sent: false,
    });
    assert.equal(receiver.received.length, sent);
    assert.equal(original(), before);
  });

  it('edits one delivery only, never re-signs a refused one unasked, and never goes with --as-captured', async () => {
    const sent = receiver.received.length;
    for (const [args, message] of [
      [['--last', '2'], /--edit edits one delivery and the selection holds 2/],
      [['--id', 'dlv_forged', '--include-refused'], /refused: bad_signature: an edit is re-signed/],
      [['--id', 'dlv_valid', '--as-captured'], /does not go with --as-captured/],
    ] as const) {
      const result = await edit('amount', [...args]);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assertOneLineError(result);
      assert.match(result.stderr, message);
    }
    assert.equal(receiver.received.length, sent);

    // Asked for in full, a forgery is still never edited: its original token does not verify now.
    const forged = await edit('amount', ['--id', 'dlv_forged', '--include-refused', '--resign-refused']);
    assert.equal(forged.code, 1, forged.stderr);
    assertOneLineError(forged);
    assert.match(forged.stderr, /original token does not verify with the secret now \(bad_signature/);
    assert.equal(receiver.received.length, sent);

    // A refused delivery whose token verifies now is, asked in full; its line keeps the original's
    // verdict, so a later plain replay does not re-sign it without the same flags.
    const asked = await edit('amount', ['--id', 'dlv_late', '--include-refused', '--resign-refused']);
    assert.equal(asked.code, 0, asked.stderr);
    const edited = JSON.parse(original().trim().split('\n').at(-1) ?? '{}');
    assert.deepEqual([edited.editedFrom, edited.verdict.valid], ['dlv_late', false]);
    const plain = await runInProcess(['replay', file, '--to', receiver.url, '--id', edited.id, '--dry-run'], {
      env: { LEDGERHOOK_WEBHOOK_SECRET: CAPTURE_SECRET },
    });
    assert.notEqual(plain.code, 0);
    assert.match(plain.stderr, /nothing to replay: the selection holds only 1 refused/);
  });
});
