import { createReadStream } from 'node:fs';

/**
 * The lines of a UTF-8 file, streamed (a trailing '\r' is dropped, like readline's crlfDelay).
 * Built on the stream's own async iterator rather than readline's: on Node 20, readline's `for await`
 * could wait forever when its consumer paused between lines (a merge awaiting a write), with no
 * handle left to wake it. A stream iterator only ever reads when asked.
 */
export async function* readLines(path: string, options: { bytes?: number } = {}): AsyncGenerator<string> {
  let rest = '';
  // `bytes`: only the file's first bytes (a staging file is read up to its checkpoint, not past it).
  const range = options.bytes === undefined ? {} : { end: options.bytes - 1 };
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024, ...range })) {
    const text = rest + (chunk as string);
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) yield line.endsWith('\r') ? line.slice(0, -1) : line;
  }
  if (rest !== '') yield rest.endsWith('\r') ? rest.slice(0, -1) : rest;
}
