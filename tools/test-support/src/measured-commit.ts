// The commit a chaos campaign or a benchmark run measured, so a published results file says which code it judged.
import { execFileSync } from 'node:child_process';

export interface MeasuredCommit {
  sha: string;
  /** Uncommitted changes to tracked files were present: the results are not exactly that commit's. */
  dirty: boolean;
}

/** `git rev-parse HEAD` of the checkout the run starts from; undefined outside a git checkout. */
export function measuredCommit(cwd = process.cwd()): MeasuredCommit | undefined {
  try {
    const git = (args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { sha: git(['rev-parse', 'HEAD']), dirty: git(['status', '--porcelain', '--untracked-files=no']) !== '' };
  } catch {
    return undefined;
  }
}
