import { readFileSync } from 'node:fs';
import { LedgerhookError } from '../errors.js';

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
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new LedgerhookError('ERR_USAGE', `cannot read ${what} ${path}: ${why}`, { cause: error });
  }
}

/** A body given as FILE or `-` (stdin), read as raw bytes. */
export async function readBodyArgument(file: string, stdin: NodeJS.ReadableStream): Promise<Buffer> {
  return file === '-' ? readStream(stdin) : readInputFile(file, 'body file');
}
