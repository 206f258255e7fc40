// The CLI whose reader has gone away (`occ-ssh status --json | head`) does not crash on EPIPE. Progress
// goes to stderr, so the closed pipe is met by the result line: the command ends with its own outcome
// (the host is a loopback listener that never answers: unreachable, 75) and no unhandled error.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { testHostInstallationYaml } from '@occ-ssh/test-support';

const ENTRY = fileURLToPath(new URL('../cli/occ-ssh.ts', import.meta.url));

test('a closed stdout leaves the command its own outcome, without an unhandled error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'occ-ssh-stdout-'));
  const sockets: Socket[] = [];
  const silent = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as { port: number }).port;
  try {
    const identityFile = join(dir, 'id');
    spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', identityFile]);
    const knownHostsFile = join(dir, 'known_hosts');
    writeFileSync(knownHostsFile, `[127.0.0.1]:${port} ${spawnSync('cat', [`${identityFile}.pub`], { encoding: 'utf8' }).stdout}`);
    chmodSync(knownHostsFile, 0o644);
    const config = join(dir, 'installation.yaml');
    writeFileSync(config, testHostInstallationYaml({ stable: { address: '127.0.0.1', port, identityFile, knownHostsFile, nodePath: '/usr/bin/node', fixtureGatewayPath: '/opt/gateway.cjs' } }));

    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, 'status', '--json', '--config', config, '--ledger', join(dir, 'ledger.json')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.doesNotMatch(stderr, /Unhandled 'error' event|EPIPE/);
    assert.equal(code, 75, stderr);
  } finally {
    for (const socket of sockets) socket.destroy();
    silent.close();
  }
});
