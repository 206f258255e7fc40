// What the step runner receives on stdin, and the one way it runs a local program.
import type { SealedOperation } from '@occ-ssh/helper-call';
import { collect, type ProcessResult } from '@occ-ssh/ssh-client';

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

/** A step's shell or a probe (pgrep, flock, systemctl) never runs near this long; the campaign bounds the whole run too. */
const RUN_TIMEOUT_MS = 300_000;

export const run = (file: string, args: readonly string[]): Promise<ProcessResult> => collect(file, args, { env: ENV, timeoutMs: RUN_TIMEOUT_MS, maxStdoutBytes: 64 * 1024 * 1024 });
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
