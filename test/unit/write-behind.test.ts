/**
 * A file written behind the caller is flushed to the disk behind it too: an fdatasync once
 * `syncEvery` bytes more are written, one at a time and never waited for by the writes; the commit's
 * fsync waits for it, and its failure fails the commit (else an fsync after it could report success).
 */
import assert from 'node:assert/strict';
import type { FileHandle } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { WriteBehind } from '../../src/store/file/write-behind.js';

/** A file handle that records what is asked of it; its fdatasyncs end when the test says. */
function fakeHandle() {
  const calls: string[] = [];
  const datasyncs: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  let written = 0;
  const handle = {
    write: async (bytes: Buffer) => {
      calls.push(`write ${bytes.length}`);
      written += bytes.length;
      return { bytesWritten: bytes.length, buffer: bytes };
    },
    writev: async (buffers: Buffer[]) => {
      const length = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
      calls.push(`write ${length}`);
      written += length;
      return { bytesWritten: length, buffers };
    },
    datasync: () => {
      calls.push(`datasync at ${written}`);
      return new Promise<void>((resolve, reject) => datasyncs.push({ resolve, reject }));
    },
    sync: async () => void calls.push('sync'),
    close: async () => void calls.push('close'),
  };
  return { handle: handle as unknown as FileHandle, calls, datasyncs };
}

describe('WriteBehind with syncEvery', () => {
  it('starts an fdatasync once that many bytes more are written, one at a time, without holding the writes', async () => {
    const { handle, calls, datasyncs } = fakeHandle();
    const out = new WriteBehind(handle, 0, undefined, 100);
    out.add(Buffer.alloc(60));
    await out.flush();
    assert.deepEqual(calls, ['write 60']);
    out.add(Buffer.alloc(60));
    await out.flush();
    assert.deepEqual(calls, ['write 60', 'write 60', 'datasync at 120']);
    // Written on while it runs: no second one until it ends.
    out.add(Buffer.alloc(150));
    await out.flush();
    assert.deepEqual(calls.slice(2), ['datasync at 120', 'write 150']);
    datasyncs[0]?.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    out.add(Buffer.alloc(10));
    await out.flush();
    assert.deepEqual(calls.slice(3), ['write 150', 'write 10', 'datasync at 280']);
    // The commit's fsync and the one in flight, both waited for.
    let synced = false;
    const sync = out.sync().then(() => {
      synced = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(synced, false, 'waits for the fdatasync in flight');
    datasyncs[1]?.resolve();
    await sync;
    assert.equal(calls.at(-1), 'sync');
  });

  it('a failed fdatasync fails sync, even when the fsync after it succeeds', async () => {
    const { handle, datasyncs } = fakeHandle();
    const out = new WriteBehind(handle, 0, undefined, 10);
    out.add(Buffer.alloc(20));
    await out.flush();
    datasyncs[0]?.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await assert.rejects(out.sync(), /EIO/);
  });

  it('close waits for an fdatasync in flight (its failure ignored: the file is given up)', async () => {
    const { handle, calls, datasyncs } = fakeHandle();
    const out = new WriteBehind(handle, 0, undefined, 10);
    out.add(Buffer.alloc(20));
    await out.flush();
    const closing = out.close();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(calls.includes('close'), false);
    datasyncs[0]?.reject(new Error('EIO'));
    await closing;
    assert.equal(calls.at(-1), 'close');
  });

  it('lends buffers to fill, and lends one again once its write is done, not before', async () => {
    const { handle } = fakeHandle();
    const out = new WriteBehind(handle);
    const first = out.borrow(1000);
    first.fill(1);
    out.add(first);
    const second = out.borrow(1000);
    assert.notEqual(second.buffer, first.buffer, 'still to be written: not lent again');
    second.fill(2);
    out.add(second);
    await out.flush();
    const third = out.borrow(900);
    assert.equal(third.length, 900);
    assert.ok([first.buffer, second.buffer].includes(third.buffer), 'written: lent again');
    // Larger than any written: a new one.
    assert.equal(out.borrow(1024 * 1024).length, 1024 * 1024);
    // Memory kept to lend again is bounded (4 MB): a page of 5 MB is left to the collector once written.
    const huge = out.borrow(5 * 1024 * 1024);
    out.add(huge);
    await out.flush();
    assert.notEqual(out.borrow(5 * 1024 * 1024).buffer, huge.buffer);
  });

  it('without syncEvery, never an fdatasync', async () => {
    const { handle, calls } = fakeHandle();
    const out = new WriteBehind(handle);
    out.add(Buffer.alloc(3 * 1024 * 1024));
    await out.flush();
    await out.sync();
    assert.deepEqual(calls, [`write ${3 * 1024 * 1024}`, 'sync']);
  });
});
