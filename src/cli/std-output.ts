import { fstatSync, statSync, writeSync } from 'node:fs';

/**
 * stdout and stderr without building process.stdout/process.stderr until a command needs the stream.
 * Node builds them on first access: for a pipe a net.Socket, which loads net, the TCP,
 * pipe and DNS bindings and perf hooks (~36M instructions under callgrind, as much again as the rest
 * of a cold `verify`). So whether one is a terminal is asked of the descriptor first, and main.ts's
 * own lines (a flag warning, the error line) are written to the descriptor while no stream exists:
 * nothing can be queued ahead of them, so the order of the output is the same either way.
 */

type Fd = 1 | 2;
const built: Record<Fd, boolean> = { 1: false, 2: false };
let onBuild: ((fd: Fd, stream: NodeJS.WriteStream) => void) | undefined;

/** Called once for each stream when it is first built (main.ts: the EPIPE handler of stdout). */
export function whenStreamBuilt(listener: (fd: Fd, stream: NodeJS.WriteStream) => void): void {
  onBuild = listener;
}

/** process.stdout (1) or process.stderr (2), built now if it was not. */
export function stdStream(fd: Fd): NodeJS.WriteStream {
  const stream = fd === 1 ? process.stdout : process.stderr;
  if (!built[fd]) {
    built[fd] = true;
    onBuild?.(fd, stream);
  }
  return stream;
}

/** Whether fd is a terminal: a pipe, a file or /dev/null is not; any other character device asks the stream. */
export function isTerminal(fd: Fd): boolean {
  try {
    const stat = fstatSync(fd);
    if (!stat.isCharacterDevice() || stat.rdev === statSync('/dev/null').rdev) return false;
  } catch {
    // no such descriptor or no /dev/null (Windows): the stream knows
  }
  return Boolean(stdStream(fd).isTTY);
}

/** Writes text to fd: straight to the descriptor while its stream is not built, through the stream after. */
export function writeStd(fd: Fd, text: string): void {
  if (built[fd]) {
    stdStream(fd).write(text);
    return;
  }
  const bytes = Buffer.from(text, 'utf8');
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(fd, bytes, written);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A non-blocking descriptor that is full, or a closed pipe: the stream does what it always did
    // (waits; stdout's EPIPE handler in main.ts ends the process quietly).
    if (code === 'EAGAIN' || code === 'EPIPE') stdStream(fd).write(bytes.subarray(written));
    else onWriteFailure?.(fd, error as Error);
  }
}

let onWriteFailure: ((fd: Fd, error: Error) => void) | undefined;

/**
 * Called when a write to stdout or stderr fails for good (a full disk, `> /dev/full`, an I/O error):
 * main.ts's session says it in one line and ends with a usage exit, where the error would have
 * escaped as a stack trace. Writes to the stream go the same way (session.ts: its 'error' event).
 */
export function whenWriteFails(listener: (fd: Fd, error: Error) => void): void {
  onWriteFailure = listener;
}

/** The error a built stdout stream failed with, if it did (a file stream throws it to the writer too). */
export function streamFailure(fd: Fd): Error | undefined {
  if (!built[fd]) return undefined;
  const { errored } = stdStream(fd) as NodeJS.WriteStream & { errored?: Error | null };
  return errored && (errored as NodeJS.ErrnoException).code !== 'EPIPE' ? errored : undefined;
}
