// Runs one job through the ssh-client collector and keeps its whole output, so a failure reads
// the same as when the file runs alone.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { collect } from '@occ-ssh/ssh-client';
import { cpuAccount } from './cpu-account.js';
import type { Job } from './jobs.js';
import { parseCounts, type Counts } from './summary.js';

/** No real-host file takes near this long; one that does is stopped (SIGTERM: its hosts go with it) and fails. */
const FILE_TIMEOUT_MS = 40 * 60_000;
/** node:test's report of one file, failures and host logs included, stays far below this. */
const KEPT_BYTES = 64 * 1024 * 1024;

export interface FileOutcome {
  job: Job;
  ok: boolean;
  seconds: number;
  /** CPU seconds of the file and its hosts, where the machine lets them be measured. */
  cpuSeconds?: number;
  counts: Counts | undefined;
  /** Why it failed, in a few words: failing tests, exit status, timeout. */
  problem?: string;
  output: string;
  logFile: string;
}

const logFileOf = (logDir: string, label: string) => path.join(logDir, `${label.replaceAll('/', '__').replace(/[^\w.-]+/g, '_')}.log`);

function problemOf(exitCode: number | null, signal: string | null, timedOut: boolean, counts: Counts | undefined): string | undefined {
  if (timedOut) return `stopped after ${FILE_TIMEOUT_MS / 60_000} minutes`;
  if (counts && (counts.fail > 0 || counts.cancelled > 0)) return `${counts.fail} failed, ${counts.cancelled} cancelled`;
  if (exitCode !== 0) return signal ? `ended by ${signal}` : `exit ${exitCode}`;
  if (!counts || counts.tests === 0) return 'no test ran';
  return undefined;
}

/** The environment, less what would make a child node:test report to a parent test runner instead of printing. */
function childEnv(job: Job): NodeJS.ProcessEnv {
  const env = { ...process.env, ...job.env };
  delete env['NODE_TEST_CONTEXT'];
  return env;
}

export async function runFile(root: string, job: Job, logDir: string): Promise<FileOutcome> {
  const started = Date.now();
  const account = cpuAccount(job.label, process.execPath, job.argv);
  const result = await collect(account?.command ?? process.execPath, account?.args ?? job.argv, {
    cwd: path.join(root, job.project),
    env: childEnv(job),
    timeoutMs: FILE_TIMEOUT_MS,
    // A file's hosts come down on SIGTERM; that takes seconds per host, not three.
    killGraceMs: 60_000,
    maxStdoutBytes: KEPT_BYTES,
    stderrKeptBytes: KEPT_BYTES,
    stopOnOverflow: false,
  });
  const seconds = (Date.now() - started) / 1000;
  const cpuSeconds = account?.seconds();
  account?.remove();
  const counts = parseCounts(result.stdout);
  const output = `${result.stdout}${result.stderrHead ? `\n--- stderr ---\n${result.stderrHead}` : ''}`;
  const logFile = logFileOf(logDir, job.label);
  mkdirSync(logDir, { recursive: true });
  writeFileSync(logFile, output);
  const problem = result.spawnFailed ? `could not start node (${result.spawnError ?? '?'})` : problemOf(result.exitCode, result.signal, result.timedOut, counts);
  return { job, ok: problem === undefined, seconds, counts, output, logFile, ...(cpuSeconds === undefined ? {} : { cpuSeconds }), ...(problem === undefined ? {} : { problem }) };
}
