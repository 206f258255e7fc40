// The commit a chaos campaign or a benchmark run measured, so a published results file says which code it judged.
import { collect, succeeded } from '@occ-ssh/ssh-client';

export interface MeasuredCommit {
  sha: string;
  /** Uncommitted changes to tracked files were present: the results are not exactly that commit's. */
  dirty: boolean;
}

/** `git rev-parse HEAD` of the checkout the run starts from; undefined outside a git checkout. */
export async function measuredCommit(cwd = process.cwd()): Promise<MeasuredCommit | undefined> {
  const git = async (args: string[]) => {
    const r = await collect('git', args, { cwd, timeoutMs: 60_000 });
    return succeeded(r) ? r.stdout.trim() : undefined;
  };
  const sha = await git(['rev-parse', 'HEAD']);
  const status = sha === undefined ? undefined : await git(['status', '--porcelain', '--untracked-files=no']);
  return sha === undefined || status === undefined ? undefined : { sha, dirty: status !== '' };
}
