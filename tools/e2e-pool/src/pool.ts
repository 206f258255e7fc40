// Runs jobs at most `concurrency` at a time and returns every outcome in the order given. Each free
// slot takes the first job, in that order, whose key no running job shares: the same test file on
// two host images boots hosts of the same names, so the two runs of it never overlap.
export async function runPool<J, R>(jobs: readonly J[], concurrency: number, run: (job: J) => Promise<R>, keyOf?: (job: J) => string): Promise<R[]> {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a whole number of at least 1: ${concurrency}`);
  const results: R[] = new Array<R>(jobs.length);
  const pending = jobs.map((_, index) => index);
  const running = new Set<string>();
  let waiting: (() => void)[] = [];
  const take = (): number | undefined => {
    const at = pending.findIndex((index) => keyOf === undefined || !running.has(keyOf(jobs[index] as J)));
    return at < 0 ? undefined : pending.splice(at, 1)[0];
  };
  const worker = async () => {
    while (pending.length > 0) {
      const index = take();
      if (index === undefined) {
        // Every job left shares a key with a running one: wait for a job to end.
        await new Promise<void>((resolve) => waiting.push(resolve));
        continue;
      }
      const key = keyOf?.(jobs[index] as J);
      if (key !== undefined) running.add(key);
      try {
        results[index] = await run(jobs[index] as J);
      } finally {
        if (key !== undefined) running.delete(key);
        const wake = waiting;
        waiting = [];
        for (const resolve of wake) resolve();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  return results;
}
