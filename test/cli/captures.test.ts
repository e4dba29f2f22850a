import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readCaptures, selectCaptures } from '../../src/capture/read-captures.js';
import { captureSelector } from '../../src/cli/commands/captures/capture-selector.js';
import { assertOneLineError, runCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { CAPTURE_SECRET, FORGED_BODY, VALID_BODY, captureRecord, writeMixedCapture } from '../helpers/capture-file.js';

/**
 * Four runs spawn the built CLI, end to end: `captures list` (table and torn-line warning), `captures show --secret`,
 * `captures show --raw` (exact bytes on a real stdout) and a missing file (exit 2, one line). The other runs are
 * flag variants of the same two commands and run in-process (runInProcess: same definitions, command modules and
 * exit-code mapping), at a few ms each instead of ~0.25 s of CPU per spawn.
 */
describe('captures list and show', () => {
  it('lists valid and refused deliveries and warns about a torn last line', async () => {
    const { file } = await writeMixedCapture();
    // The built bin for this one; the other runs in-process (same definitions, command modules, error mapping).
    const result = await runCli(['captures', 'list', file]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^#\s+ID\s+RECEIVED\s+VERDICT\s+TYPE\/EVENT\s+USER\s+SIZE$/);
    assert.match(lines[1]!, /^0\s+dlv_valid .* valid 200\s+LIFECYCLE_EVENT INVOICE_VIEWED\s+user_1\s+84 B$/);
    assert.match(lines[2]!, /^1\s+dlv_forged .* bad_signature 400\s+ENTITY_UPDATE expense\s+user_2\s+65 B$/);
    assert.equal(lines.at(-1), `2 deliveries of 2 in ${file}`);
    assert.match(result.stderr, /line 3 is incomplete/);
  });

  it('takes the selectors replay takes, and --json is one document', async () => {
    const { file } = await writeMixedCapture();
    // The selector table runs in-process through the functions `captures list` calls (read, check, select):
    // a spawn per selector proved nothing more. The two command lines below keep the flags and the --json document
    // (in-process: the spawned `captures list` above proves the command end to end).
    const { records, warnings } = await readCaptures(file);
    assert.equal(warnings.length, 1);
    const cases: Array<{ flags: Parameters<typeof captureSelector>[0]; ids: string[] }> = [
      { flags: { type: 'entity_update' }, ids: ['dlv_forged'] },
      { flags: { event: 'INVOICE_VIEWED' }, ids: ['dlv_valid'] },
      { flags: { user: 'user_2' }, ids: ['dlv_forged'] },
      { flags: { last: 1 }, ids: ['dlv_forged'] },
      { flags: { index: 0 }, ids: ['dlv_valid'] },
      { flags: { id: 'dlv_forged' }, ids: ['dlv_forged'] },
      { flags: { user: 'nobody' }, ids: [] },
    ];
    for (const { flags, ids } of cases) {
      const chosen = selectCaptures(records, captureSelector(flags, records));
      assert.deepEqual(
        chosen.map((record) => record.id),
        ids,
        JSON.stringify(flags),
      );
    }
    for (const [args, ids] of [
      [['--type', 'entity_update'], ['dlv_forged']],
      [['--index', '0', '--event', 'invoice_viewed'], ['dlv_valid']],
    ] as const) {
      const result = await runInProcess(['captures', 'list', file, '--json', ...args]);
      assert.equal(result.code, 0, result.stderr);
      const document = JSON.parse(result.stdout);
      assert.deepEqual(
        document.deliveries.map((d: { id: string }) => d.id),
        ids,
        args.join(' '),
      );
      assert.equal(document.count, ids.length);
      assert.equal(document.warnings.length, 1);
    }
  });

  it('a captured custom event is chosen by its name with a dash or an underscore, by replay and captures list alike', async () => {
    const records = [
      await captureRecord('{"userId":"u","type":"LIFECYCLE_EVENT","event":"payroll-synced","eventData":{}}', {
        id: 'dlv_dashed',
      }),
      await captureRecord(VALID_BODY, { id: 'dlv_catalogue' }),
      // A hostile name in the file: matched like any other, but never offered as a suggestion.
      await captureRecord('{"userId":"u","type":"LIFECYCLE_EVENT","event":"PAYROLL_SYNCE\\u001b[2J","eventData":{}}', {
        id: 'dlv_hostile',
      }),
    ];
    const file = join(tempDir(), 'custom.jsonl');
    writeFileSync(file, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
    for (const event of ['payroll-synced', 'PAYROLL_SYNCED', 'Payroll_Synced']) {
      assert.deepEqual(
        selectCaptures(records, captureSelector({ event }, records)).map((record) => record.id),
        ['dlv_dashed'],
        event,
      );
      const listed = await runInProcess(['captures', 'list', file, '--event', event, '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(
        JSON.parse(listed.stdout).deliveries.map((d: { id: string }) => d.id),
        ['dlv_dashed'],
      );
      const replayed = await runInProcess([
        'replay',
        file,
        '--to',
        'http://127.0.0.1:1/',
        '--as-captured',
        '--dry-run',
        '--json',
        '--event',
        event,
      ]);
      assert.equal(replayed.code, 0, replayed.stderr);
      assert.deepEqual(
        JSON.parse(replayed.stdout).deliveries.map((d: { id: string }) => d.id),
        ['dlv_dashed'],
      );
    }
    assert.deepEqual(
      selectCaptures(records, captureSelector({ event: 'invoice-viewed', type: 'lifecycle-event' }, records)).map(
        (record) => record.id,
      ),
      ['dlv_catalogue'],
    );
    // One check, one wording, from both commands. A name from the file is suggested only when plain, and
    // only by replay, which holds the file: captures list streams it, so its suggestions are the catalogue's.
    for (const command of [
      ['replay', file, '--to', 'http://127.0.0.1:1/', '--as-captured'],
      ['captures', 'list', file],
    ]) {
      const type = await runInProcess([...command, '--type', 'ENTITY_UPDAT']);
      assert.equal(type.code, 2);
      assert.match(
        type.stderr,
        /^error: unknown webhook type "ENTITY_UPDAT" \(did you mean ENTITY_UPDATE\?\); use ENTITY_UPDATE or LIFECYCLE_EVENT$/m,
      );
      const event = await runInProcess([...command, '--event', 'PAYROLL_SYNCE']);
      assert.equal(event.code, 2);
      assert.match(
        event.stderr,
        command[0] === 'replay'
          ? /^error: unknown event "PAYROLL_SYNCE" \(did you mean payroll-synced\?\); `ledgerhook events` lists them$/m
          : /^error: unknown event "PAYROLL_SYNCE"; `ledgerhook events` lists them$/m,
      );
    }
    const hostile = await runInProcess(['replay', file, '--to', 'http://127.0.0.1:1/', '--event', 'PAYROLL_SYNCE[2J']);
    assert.equal(hostile.code, 2);
    assert.ok(!hostile.stderr.includes('\u001b'), 'no escape from the file reaches the terminal');
  });

  it('shows one delivery: headers, decoded token, checklist with a secret, pretty body', async () => {
    const { file } = await writeMixedCapture();
    const forged = await runInProcess(['captures', 'show', `${file}#dlv_forged`, '--secret', CAPTURE_SECRET]);
    assert.equal(forged.code, 0, forged.stderr);
    assert.match(forged.stdout, /refused: bad_signature/);
    assert.match(forged.stdout, /✖ signature\s+does not verify/);
    assert.match(forged.stdout, /✔ integrity/);
    assert.match(forged.stdout, /iat 2026-11-18T\d\d:\d\d:\d\d\.000Z \(1s old when received\)/);
    assert.match(forged.stdout, /service-verification: eyJ/);
    assert.match(forged.stdout, /"entities": \[\n\s+"expense"\n\s+\]/);
    const valid = await runInProcess(['captures', 'show', `${file}:0`]);
    assert.equal(valid.code, 0, valid.stderr);
    assert.match(valid.stdout, /verdict\s+valid; answered 200/);
    assert.match(valid.stdout, /no secret here/);
    const json = await runInProcess(['captures', 'show', `${file}:1`, '--json', '--secret', CAPTURE_SECRET]);
    const detail = JSON.parse(json.stdout);
    assert.equal(detail.id, 'dlv_forged');
    assert.equal(detail.checks.find((c: { name: string }) => c.name === 'signature').status, 'fail');
    assert.equal(JSON.stringify(detail).includes(CAPTURE_SECRET), false);
  });

  it('--raw writes the exact body bytes; the default delivery is the last', async () => {
    const { file } = await writeMixedCapture();
    const last = await runInProcess(['captures', 'show', file, '--raw']);
    assert.equal(last.stdout, FORGED_BODY);
    const first = await runInProcess(['captures', 'show', `${file}:0`, '--raw']);
    assert.equal(first.stdout, VALID_BODY);
  });

  it('shows that a refused body was cut, with the digest of the whole body', async () => {
    const head = '{"userId":"u","type":"ENTITY_UPDATE","entities":["exp';
    const record = await captureRecord(head, {
      id: 'dlv_cut',
      valid: false,
      extra: { bodyTruncated: true, bodyBytes: 5_000_000, bodySha256: 'ab'.repeat(32) },
    });
    const file = join(tempDir(), 'cut.jsonl');
    writeFileSync(file, `${JSON.stringify(record)}\n`);
    const listed = await runInProcess(['captures', 'list', file]);
    assert.match(listed.stdout, /5000000 B \(cut\)/);
    const shown = await runInProcess(['captures', 'show', file]);
    assert.match(
      shown.stdout,
      new RegExp(`${head.length} of 5000000 bytes captured \\(cut\\), SHA-256 ${'ab'.repeat(32)}`),
    );
    const raw = await runInProcess(['captures', 'show', file, '--raw']);
    assert.equal(raw.stdout, head);
    assert.match(raw.stderr, /only the first/);
  });

  it('escapes control characters of a hostile body in the terminal', async () => {
    // A userId with an escape (JSON-escaped in the body) and a non-JSON body with a raw one.
    const json = '{"userId":"\\u001b[2Jevil","type":"ENTITY_UPDATE","entities":[]}';
    const file = join(tempDir(), 'ansi.jsonl');
    const records = [
      await captureRecord(json, { id: 'dlv_ansi', extra: { userId: '\u001b[2Jevil' } }),
      await captureRecord('raw \u001b[31m red', { id: 'dlv_raw' }),
    ];
    writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
    for (const args of [
      ['list', file],
      ['show', `${file}:0`],
      ['show', `${file}:1`],
    ]) {
      const result = await runInProcess(['captures', ...args]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.includes('\u001b'), false, args.join(' '));
      assert.match(result.stdout, /\\u001b\[(2Jevil|31m red)/);
    }
  });

  it('bad input is one line on stderr with exit 2', async () => {
    const { file } = await writeMixedCapture();
    for (const args of [
      ['show', `${file}#dlv_nope`],
      ['show', `${file}:9`],
      ['list', join(tempDir(), 'missing.jsonl')],
    ]) {
      const result = await runInProcess(['captures', ...args]);
      assert.equal(result.code, 2, args.join(' '));
      const errors = result.stderr.split('\n').filter((line) => line.startsWith('error:'));
      assert.equal(errors.length, 1, result.stderr);
      assert.doesNotMatch(result.stderr, /\n\s+at /);
    }
    const missing = await runInProcess(['captures', 'list', join(tempDir(), 'missing.jsonl')]);
    assertOneLineError(missing);
  });
});
