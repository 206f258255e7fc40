// Informational: median latency of minimal helper calls through each transport against one real host.
// Timings are printed as test diagnostics and never asserted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestHost } from '@occ-ssh/testhost';
import type { CommandExecutor, ExecuteRequest } from '../transport/executor.js';
import { OpenSshMuxExecutor } from '../transport/openssh-mux.js';
import type { SshClientSettings } from '@occ-ssh/ssh-client';
import { Ssh2PoolExecutor } from '../transport/ssh2-pool.js';
import { SystemSshCommandExecutor } from '../transport/system-ssh.js';

const CALLS = 20;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

describe('transport latency', { timeout: 180_000 }, () => {
  it(`measures ${CALLS} sequential minimal calls per transport`, async (t) => {
    await using host = await startTestHost({ name: 'sshlatency' });
    const settings: SshClientSettings = { identityFile: host.identityFile, knownHostsFile: host.knownHostsFile, connectTimeoutSeconds: 5 };
    const request: ExecuteRequest = {
      host: { name: 'stable', address: host.address, port: host.port, user: 'root' },
      call: { argv: [host.nodePath, '-', Buffer.from('{}').toString('base64')], stdin: Buffer.from('process.exit(0)') },
      timeoutMs: 20_000,
    };
    const executors: Record<string, CommandExecutor> = {
      'system-ssh': new SystemSshCommandExecutor(settings),
      'openssh-mux': new OpenSshMuxExecutor(settings),
      ssh2: new Ssh2PoolExecutor(settings, { maxChannelsPerHost: 4 }),
    };
    const lines: string[] = [];
    const samples = new Map<string, number[]>(Object.keys(executors).map((name) => [name, []]));
    try {
      // Round-robin, so that load elsewhere on the machine weighs on every transport alike.
      for (let index = 0; index < CALLS; index += 1) {
        for (const [name, executor] of Object.entries(executors)) {
          const started = process.hrtime.bigint();
          const result = await executor.execute(request);
          samples.get(name)?.push(Number(process.hrtime.bigint() - started) / 1e6);
          assert.equal(result.exitCode, 0, `${name} call ${index}`);
        }
      }
    } finally {
      await Promise.all(Object.values(executors).map((executor) => executor.close?.()));
    }
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    for (const [name, values] of samples) {
      lines.push(`${name}: median ${ms(median(values))} (first ${ms(values[0] ?? 0)}, min ${ms(Math.min(...values))}, max ${ms(Math.max(...values))})`);
    }
    // The floor every transport shares: starting node on the host.
    const onHost = await host.run(['bash', '-c', `s=$(date +%s%N); for i in $(seq ${CALLS}); do ${host.nodePath} - </dev/null; done; e=$(date +%s%N); echo $(( (e - s) / ${CALLS} / 1000 ))`]);
    lines.push(`node startup on the host: mean ${(Number(onHost.trim()) / 1000).toFixed(1)} ms`);
    for (const line of lines) t.diagnostic(line);
  });
});
