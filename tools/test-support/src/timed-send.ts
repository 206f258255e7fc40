// A helper call's ssh client that notes when each heartbeat line arrives, for tests that bound the
// silence between them (deletion of huge trees must keep heartbeats flowing).
import { heartbeatReader } from '@occ-ssh/helper-call';
import { collect, sshEnv } from '@occ-ssh/ssh-client';
import type { CallOptions, RemoteHost } from './remote.js';
import { sshCallArgv } from './ssh-call.js';

/** Pushes the arrival time of each heartbeat line to `arrivals`, and the client's exit time last. */
export function sendTimed(host: RemoteHost, arrivals: number[]): NonNullable<CallOptions['send']> {
  return async (command, input) => {
    const started = Date.now();
    const r = await collect('ssh', sshCallArgv(host, command), {
      stdin: input,
      timeoutMs: 600_000,
      maxStdoutBytes: 64 * 1024 * 1024,
      env: sshEnv(),
      onStdout: heartbeatReader(() => arrivals.push(Date.now())),
    });
    arrivals.push(Date.now());
    return { ...r, code: r.exitCode, stderr: r.stderrHead, killed: false, ms: Date.now() - started };
  };
}
