// Every process's argv, on the host and locally, sampled while an operation runs: a secret on an argv
// is readable by every account.
import { setTimeout as sleep } from 'node:timers/promises';
import { collect } from '@occ-ssh/ssh-client';
import type { HostLink } from '../host/ssh.js';

/** Samples `ps -eo args` (host over the shared connection, and locally) until `done` settles. */
export async function sampleArgv<T>(link: HostLink, run: () => Promise<T>, into: { host: string[]; local: string[] }): Promise<T> {
  let finished = false;
  const pending = run().finally(() => (finished = true));
  const host = (async () => {
    while (!finished) {
      const out = await link.exec(['ps', '-eo', 'args', '--no-headers', '-ww']);
      into.host.push(out.stdout);
      await sleep(100);
    }
  })();
  const local = (async () => {
    while (!finished) {
      into.local.push((await collect('ps', ['-eo', 'args', '--no-headers', '-ww'], { timeoutMs: 30_000 })).stdout);
      await sleep(200);
    }
  })();
  try {
    return await pending;
  } finally {
    await Promise.all([host, local]);
  }
}
