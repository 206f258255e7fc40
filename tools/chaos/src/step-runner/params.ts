// What the step runner receives on stdin, and the one way it runs a local program.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import type { SealedOperation } from '@occ-ssh/helper-call';

export interface CollectOptions {
  /** Wait for helpers to end first; the wait is bounded by waitMs. */
  wait: boolean;
  /** Also wait for every other ssh session to end. */
  waitSessions: boolean;
  waitMs: number;
}

type Step = { collect: CollectOptions } | { helper: SealedOperation } | { sh: string };

export interface Params {
  root: string;
  unitDir: string;
  /** The runtime user: Agent accounts are named `<user>-...`. */
  user: string;
  nodePath: string;
  /** The built helper, base64, when a step runs it. */
  artifact: string | null;
  steps: Step[];
}

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const ENV = { PATH, LANG: 'C.UTF-8', SYSTEMD_PAGER: '', SYSTEMD_COLORS: '0' };

export const run = (file: string, args: readonly string[]): SpawnSyncReturns<string> => spawnSync(file, args, { encoding: 'utf8', env: ENV });
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
