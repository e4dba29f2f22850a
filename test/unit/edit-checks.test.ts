import assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { appendCaptureRecord } from '../../src/capture/append-record.js';
import type { CaptureRecord } from '../../src/capture/capture-record.js';
import { editorCommand } from '../../src/cli/edit-in-editor.js';
import { checkEditedBody, checkEditedHeaders } from '../../src/replay/edit-checks.js';
import { jsonSyntaxError } from '../../src/replay/json-syntax.js';
import { tempDir } from '../helpers/cli.js';

const ENTITY = '{"userId":"user_1","type":"ENTITY_UPDATE","entities":["expense"]}';

describe('checkEditedBody: the exact problem, or a webhook body of the spec', () => {
  for (const [text, expected] of [
    [ENTITY, 'ok'],
    ['{"userId":"u","type":"LIFECYCLE_EVENT","event":"INVOICE_VIEWED","eventData":{"a":1}}', 'ok'],
    ['', 'the body is empty'],
    ['  \n', 'the body is empty'],
    ['{"userId":"u",}', 'not JSON: expected a property name in double quotes, found "}" (line 1, column 15)'],
    ['{\n  "userId": "u"\n  "type": "x"\n}', `not JSON: expected ',' or '}', found "\\"" (line 3, column 3)`],
    ['{"userId":"u"} x', 'not JSON: "x" after the end of the JSON value (line 1, column 16)'],
    ['[1,2]', 'not a webhook body (spec 2.1/2.2): the body is not a JSON object'],
    ['{"type":"ENTITY_UPDATE","entities":[]}', 'not a webhook body (spec 2.1/2.2): userId is missing, not a string'],
    [
      '{"userId":"u","type":"ENTITY_UPDATE"}',
      'not a webhook body (spec 2.1/2.2): entities is missing or not an array of strings',
    ],
    [
      '{"userId":"u","type":"LIFECYCLE_EVENT","event":"X"}',
      'not a webhook body (spec 2.1/2.2): eventData is missing or not an object',
    ],
    [
      '{"userId":"u","type":"PING"}',
      'not a webhook body (spec 2.1/2.2): type is "PING"; expected ENTITY_UPDATE or LIFECYCLE_EVENT',
    ],
  ] as const)
    it(JSON.stringify(text).slice(0, 60), () => {
      const result = checkEditedBody(text);
      assert.equal(result.ok ? 'ok' : result.problem, expected);
    });

  it('names outside the catalogue are notes, not problems (the spec lets the lists grow)', () => {
    const result = checkEditedBody('{"userId":"u","type":"ENTITY_UPDATE","entities":["expense","spaceship"]}');
    assert.deepEqual(result.ok && result.notes, ['entity "spaceship" is not in the catalogue']);
  });

  it('bounds the size in UTF-8 bytes, not characters', () => {
    const body = `{"userId":"${'é'.repeat(60)}","type":"ENTITY_UPDATE","entities":[]}`;
    assert.equal(checkEditedBody(body, 170).ok, true);
    const refused = checkEditedBody(body, 150); // 110 characters, 170 bytes
    assert.equal(
      refused.ok ? '' : refused.problem,
      `the body is ${Buffer.byteLength(body)} bytes; at most 150 are sent`,
    );
  });

  it('finds the first error of deep nesting without overflowing the stack', () => {
    assert.deepEqual(jsonSyntaxError('['.repeat(500_000)), {
      at: 500_000,
      problem: 'expected a value, found the end of the text',
    });
    assert.equal(jsonSyntaxError('{"a":[1,-2.5e3,true,null,{"b":"\\u00e9\\n"}]}'), undefined);
  });
});

describe('checkEditedHeaders: never a token of the page, never a header split', () => {
  for (const [headers, expected] of [
    [{ 'content-type': 'application/json', 'X-Trace': 'abc' }, 'ok'],
    [{ constructor: 'x', __proto__: 'y' }, 'ok'],
    [['x'], 'the headers must be a JSON object of name → text'],
    [
      { 'Service-Verification': 'a.b.c' },
      'header "Service-Verification": the verification token is always made fresh by re-signing; remove it',
    ],
    [{ 'ledgerhook-edited-from': 'dlv_x' }, 'header "ledgerhook-edited-from": set by ledgerhook itself; remove it'],
    [{ host: 'evil' }, 'header "host": set by ledgerhook itself; remove it'],
    [{ 'x-a': 'one\r\nx-b: two' }, 'header "x-a": a line break or control character in its value'],
    [{ 'bad name': 'x' }, 'header "bad name": not a header name'],
    [{ 'x-n': 5 }, 'header "x-n": its value must be text in quotes'],
    [{ 'X-A': '1', 'x-a': '2' }, 'header "x-a" is given twice'],
  ] as const)
    it(JSON.stringify(headers), () => {
      // A JSON-parsed object, as the page and the server get it (a "__proto__" key is an own key then).
      const result = checkEditedHeaders(JSON.parse(JSON.stringify(headers)), 'service-verification');
      assert.equal(result.ok ? 'ok' : result.problem, expected);
    });

  it('keeps a header named __proto__ as a header, lower-cased', () => {
    const result = checkEditedHeaders(JSON.parse('{"__proto__":"y","X-A":"1"}'), 'service-verification');
    assert.ok(result.ok);
    assert.deepEqual(Object.entries(result.value), [
      ['__proto__', 'y'],
      ['x-a', '1'],
    ]);
  });
});

describe('editorCommand and appendCaptureRecord', () => {
  for (const [env, platform, expected] of [
    [{ EDITOR: 'nano', VISUAL: 'code --wait' }, 'linux', 'nano'],
    [{ EDITOR: ' ', VISUAL: 'code --wait' }, 'linux', 'code --wait'],
    [{}, 'linux', 'vi'],
    [{}, 'win32', 'notepad'],
  ] as const)
    it(`${JSON.stringify(env)} on ${platform} → ${expected}`, () => {
      assert.equal(editorCommand(env, platform), expected);
    });

  it('closes a torn last line before appending, and creates a missing file private', async () => {
    const dir = tempDir();
    const record = { id: 'dlv_new', editedFrom: 'dlv_old' } as unknown as CaptureRecord;
    const torn = join(dir, 'torn.jsonl');
    writeFileSync(torn, '{"id":"dlv_a"}\n{"id":"dlv_to');
    await appendCaptureRecord(torn, record);
    assert.equal(readFileSync(torn, 'utf8'), `{"id":"dlv_a"}\n{"id":"dlv_to\n${JSON.stringify(record)}\n`);
    const fresh = join(dir, 'fresh.jsonl');
    await appendCaptureRecord(fresh, record);
    await appendCaptureRecord(fresh, record);
    assert.equal(readFileSync(fresh, 'utf8'), `${JSON.stringify(record)}\n`.repeat(2));
    assert.equal(statSync(fresh).mode & 0o777, 0o600);
    chmodSync(fresh, 0o400);
    if (process.getuid?.() !== 0)
      await assert.rejects(appendCaptureRecord(fresh, record), /cannot append to capture file/);
  });
});
