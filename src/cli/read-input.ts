import { readFileSync } from 'node:fs';
import { LedgerhookError } from '../errors.js';
import { errnoSentence } from '../util/fs-errors.js';

/** Reads a whole stream into one buffer (stdin for `-`). */
export async function readStream(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * Reads a file named on the command line; a missing or unreadable file is a usage error, not a
 * crash. Synchronous on purpose: a CLI reads its inputs before anything else, and this spares a
 * cold `verify` the fs/promises module and a thread-pool round trip.
 */
export async function readInputFile(path: string, what: string): Promise<Buffer> {
  try {
    return readFileSync(path);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : errnoSentence(error);
    throw new LedgerhookError('ERR_USAGE', `cannot read ${what} ${path}: ${why}`, {
      cause: error,
      details: { reason: 'input_unreadable', path },
    });
  }
}

/**
 * A secret as it is kept in a file or piped in: every newline and carriage return at its end is
 * dropped (editors and `echo` add them; no secret ends with one), nothing else. The one rule for
 * `--secret-file` and `config set KEY -`.
 */
export const withoutTrailingLineBreaks = (text: string): string => text.replace(/[\r\n]+$/, '');

/**
 * The body when no FILE was given: stdin when it is piped (`cat body.json | ledgerhook verify ...`),
 * undefined when it is a terminal or brought nothing.
 */
export async function pipedBody(stdin: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<Buffer | undefined> {
  if (stdin.isTTY) return undefined;
  const body = await readStream(stdin);
  return body.length > 0 ? body : undefined;
}

/**
 * A body given as FILE or `-` (stdin), read as raw bytes. Takes the context's stdin getter's owner, not
 * the stream: process.stdin is built on first access (for /dev/null an fs.ReadStream, which loads
 * fs/promises and readline: ~10M instructions of a cold `verify FILE`), so only `-` touches it.
 */
export async function readBodyArgument(
  file: string,
  input: { readonly stdin: NodeJS.ReadableStream },
): Promise<Buffer> {
  return file === '-' ? readStream(input.stdin) : readInputFile(file, 'body file');
}
