// Waits until a booted host's sshd accepts the harness key, failing fast if the container died.
import { connect } from 'node:net';
import { sleep } from './process-identity.js';
import { sshExec, type SshTarget } from './ssh.js';

/** A TCP probe for the SSH banner costs a few ms; a full ssh login is only tried once it answers. */
function sshBanner(address: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('data', (b: Buffer) => done(b.toString('latin1').startsWith('SSH-')));
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}

/** Idle, a host answers in about a second; with dozens of busy containers on two cores, 35 s was seen. */
export async function waitForSsh(target: SshTarget, stillBooting: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (!stillBooting()) throw new Error(`container exited before sshd answered${last ? `: ${last}` : ''}`);
    if (await sshBanner(target.address, target.port)) {
      const r = await sshExec(target, ['true'], { timeoutMs: 10_000 });
      if (r.code === 0) return;
      last = r.stderr.trim();
    }
    await sleep(100);
  }
  throw new Error(`sshd on ${target.address} did not accept the key within ${timeoutMs} ms${last ? `: ${last}` : ''}`);
}
