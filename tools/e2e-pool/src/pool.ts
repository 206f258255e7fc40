// Runs jobs at most `concurrency` at a time, in the order given, and returns every outcome in that order.

export async function runPool<J, R>(jobs: readonly J[], concurrency: number, run: (job: J) => Promise<R>): Promise<R[]> {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a whole number of at least 1: ${concurrency}`);
  const results: R[] = new Array<R>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await run(jobs[index] as J);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  return results;
}
