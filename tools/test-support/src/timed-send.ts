// A helper call's ssh client that notes when each heartbeat line arrives, for tests that bound the
// silence between them (deletion of huge trees must keep heartbeats flowing).
import { spawn } from 'node:child_process';
import { heartbeatReader } from '@occ-ssh/helper-call';
import type { CallOptions, RemoteHost } from './remote.js';
import { sshCallArgv } from './ssh-call.js';

/** Pushes the arrival time of each heartbeat line to `arrivals`, and the client's exit time last. */
export function sendTimed(host: RemoteHost, arrivals: number[]): NonNullable<CallOptions['send']> {
  return (command, input) =>
    new Promise((resolve, reject) => {
      const started = Date.now();
      const child = spawn('ssh', sshCallArgv(host, command), { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } });
      let stdout = '';
      let stderr = '';
      const heartbeats = heartbeatReader(() => arrivals.push(Date.now()));
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        heartbeats(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => {
        arrivals.push(Date.now());
        resolve({ code, stdout, stderr, killed: false, ms: Date.now() - started });
      });
      child.stdin.end(input);
    });
}
