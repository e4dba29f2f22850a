/** Every writer's flush: what main.ts writes (an error line, the --json outcome) or an exit comes after held lines. */
const held = new Set<() => void>();

/** Writes every line still held, in the order each writer got them. */
export function flushHeldLines(): void {
  for (const flush of held) flush();
}

/** Lines are held at most this long before they are written. */
const FLUSH_AFTER_MS = 10;
/** ...or until this many are held (memory stays bounded under any load). */
const FLUSH_AT_LINES = 512;

/**
 * Gathers lines into one write: a listener under load prints a line per delivery, and one write per
 * line costs a system call each. Lines are held for up to 10 ms (invisible to a person watching, and
 * a pipe's reader gets them as promptly), which gathers a write's worth of lines even when only a
 * few deliveries arrive per turn of the event loop (per turn cost a write every turn under load).
 */
export function batchedLineWriter(stream: NodeJS.WritableStream): { write(line: string): void; flush(): void } {
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const text = `${pending.join('\n')}\n`;
    pending = [];
    stream.write(text);
  };
  held.add(flush);
  return {
    write(line) {
      pending.push(line);
      if (pending.length >= FLUSH_AT_LINES) flush();
      else timer ??= setTimeout(flush, FLUSH_AFTER_MS);
    },
    flush,
  };
}
