// Runs jobs at most `concurrency` at a time and returns every outcome in the order given. Each free
// slot takes the first job, in that order, that the rules let start: none whose key a running job
// shares (the same test file on two host images boots hosts of the same names, so the two runs of it
// never overlap), and none `canStart` refuses given the jobs running. A refusal may lift without a job
// ending (a gate opened by another process), so a slot with nothing to take looks again every second.
export interface PoolRules<J> {
  keyOf?: (job: J) => string;
  canStart?: (job: J, running: readonly J[]) => boolean;
}

const RECHECK_MS = 1000;

export async function runPool<J, R>(jobs: readonly J[], concurrency: number, run: (job: J) => Promise<R>, rules: PoolRules<J> = {}): Promise<R[]> {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a whole number of at least 1: ${concurrency}`);
  const { keyOf, canStart } = rules;
  const results: R[] = new Array<R>(jobs.length);
  const pending = jobs.map((_, index) => index);
  const running = new Map<number, J>();
  let waiting: (() => void)[] = [];
  const startable = (job: J) => {
    const others = [...running.values()];
    return (keyOf === undefined || !others.some((other) => keyOf(other) === keyOf(job))) && (canStart === undefined || canStart(job, others));
  };
  const take = (): number | undefined => {
    const at = pending.findIndex((index) => startable(jobs[index] as J));
    return at < 0 ? undefined : pending.splice(at, 1)[0];
  };
  const worker = async () => {
    while (pending.length > 0) {
      const index = take();
      if (index === undefined) {
        // Nothing left may start now: wait for a job to end, or for the rules to change.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, RECHECK_MS);
          waiting.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        continue;
      }
      running.set(index, jobs[index] as J);
      try {
        results[index] = await run(jobs[index] as J);
      } finally {
        running.delete(index);
        const wake = waiting;
        waiting = [];
        for (const resolve of wake) resolve();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  return results;
}
