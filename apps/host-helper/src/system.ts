// Runs host programs with argument arrays, never a shell, with a bounded time and output.
import { execFile } from 'node:child_process';
import { ComputeError } from '@occ-ssh/protocol';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 1024 * 1024;

/** Runs a command and returns its exit code; throws only when it could not be run at all. */
export function runCommand(file: string, args: readonly string[], timeoutMs = 60_000): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: MAX_OUTPUT, env: commandEnv(), encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(new ComputeError('host-command', `${file} could not be run (${String(error.code ?? error.signal ?? 'error')})`));
        return;
      }
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** Runs a command that must succeed; the failure names the command, never its output. */
export async function mustRun(file: string, args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await runCommand(file, args, timeoutMs);
  if (result.code !== 0) {
    const reason = firstLine(result.stderr);
    throw new ComputeError('host-command', `${file} ${args[0] ?? ''} failed with exit code ${result.code}${reason ? `: ${reason}` : ''}`);
  }
  return result.stdout;
}

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim()) ?? '').trim().slice(0, 300);
}

/** The only PATH host programs are looked up in. */
export const HOST_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** A fixed, minimal environment for programs the helper runs: they never see the caller's variables. */
export const PROGRAM_ENV = { PATH: HOST_PATH, LANG: 'C.UTF-8' } as const;

function commandEnv(): NodeJS.ProcessEnv {
  return {
    ...PROGRAM_ENV,
    SYSTEMD_PAGER: '',
    SYSTEMD_COLORS: '0',
  };
}
