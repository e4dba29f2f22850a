import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readItems } from '../../src/store/file/read-items.js';
import { tempDir } from '../helpers/cli.js';

async function read(text: string): Promise<unknown[]> {
  const file = join(tempDir(), 'items.json');
  writeFileSync(file, text);
  const items: unknown[] = [];
  for await (const item of readItems(file)) items.push(item);
  return items;
}

describe('readItems', () => {
  const good: Array<[string, string, unknown[]]> = [
    ['an empty array', '[\n]\n', []],
    ['one item', '[\n{"id":1}\n]\n', [{ id: 1 }]],
    ['several items', '[\n{"id":1},\n{"id":"b","x":[1,2]}\n]\n', [{ id: 1 }, { id: 'b', x: [1, 2] }]],
    ['CRLF line ends', '[\r\n{"id":1},\r\n{"id":2}\r\n]\r\n', [{ id: 1 }, { id: 2 }]],
    ['no final newline', '[\n{"id":1}\n]', [{ id: 1 }]],
  ];
  for (const [name, text, expected] of good)
    it(`reads ${name}`, async () => assert.deepEqual(await read(text), expected));

  const damaged: Array<[string, string, RegExp]> = [
    ['a 0-byte file', '', /empty/],
    ['an array cut at a line boundary', '[\n{"id":1},\n{"id":2},\n', /ends before its closing/],
    ['a line that is {}', '[\n{"id":1},\n{},\n{"id":3}\n]\n', /line 3 is not an item with an id/],
    ['a line that is null', '[\n{"id":1},\nnull,\n{"id":3}\n]\n', /line 3 is not an item with an id/],
    ['a cut line', '[\n{"id":1},\n{"id":\n]\n', /line 3 is not JSON/],
    ['a pretty-printed array', '[\n  {\n    "id": 1\n  }\n]\n', /line 2 is not JSON/],
    ['text after the array', '[\n{"id":1}\n]\nxx\n', /after the closing/],
    ['no opening bracket', '{"id":1}\n', /opening \[/],
  ];
  for (const [name, text, pattern] of damaged)
    it(`reports ${name} as damage`, async () =>
      assert.rejects(read(text), (error: Error & { details?: { reason?: string } }) => {
        assert.equal(error.details?.reason, 'data_file_damaged');
        assert.match(error.message, pattern);
        return true;
      }));
});
