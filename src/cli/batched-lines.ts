/**
 * Gathers lines written in the same turn of the event loop into one write: a listener under
 * load prints a line per delivery, and one write per line costs a system call each.
 */
export function batchedLineWriter(stream: NodeJS.WritableStream): { write(line: string): void; flush(): void } {
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = `${pending.join('\n')}\n`;
    pending = [];
    stream.write(text);
  };
  return {
    write(line) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
