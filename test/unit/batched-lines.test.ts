/**
 * Printed lines held for a write (listen, mock, worker) come out before anything main.ts writes on
 * an error or a forced exit: flushHeldLines writes every writer's held lines at once.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { batchedLineWriter, flushHeldLines } from '../../src/cli/batched-lines.js';

describe('batched lines', () => {
  it('holds lines for one write, and flushHeldLines writes them at once, in order', () => {
    const stream = new PassThrough();
    const written: string[] = [];
    stream.on('data', (chunk: Buffer) => written.push(chunk.toString()));
    const out = batchedLineWriter(stream);
    out.write('one');
    out.write('two');
    assert.deepEqual(written, [], 'held, not yet written');
    flushHeldLines();
    stream.end();
    assert.equal(written.join(''), 'one\ntwo\n');
    flushHeldLines(); // nothing held: writes nothing more
    assert.equal(written.join(''), 'one\ntwo\n');
  });
});
