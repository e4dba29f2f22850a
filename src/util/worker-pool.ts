/**
 * Runs `task(index)` for every index below `count` with at most `concurrency` running at once,
 * in index order. Stops handing out new indexes once `shouldStop()` is true; a task that throws
 * rejects the whole run (callers catch what they want to keep going past).
 */
export async function runPool(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
  shouldStop: () => boolean = () => false,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count && !shouldStop()) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
}
