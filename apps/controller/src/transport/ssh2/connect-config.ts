// The strict ssh2 client options for one server, and the optional ssh2 module itself.
import { ComputeError } from '@occ-ssh/protocol';
import type { Client, ConnectConfig, ServerHostKeyAlgorithm } from 'ssh2';
import { hostKeyAccepted, knownHostKeyTypes, type HostKeyType } from '../known-hosts.js';
import type { SshClientSettings, SshDestination } from '@occ-ssh/ssh-client';
import type { ClientFiles } from './client-files.js';

/** ServerAliveInterval=15 and ServerAliveCountMax=3, as the system client uses. */
const KEEPALIVE_INTERVAL_MS = 15_000;
const KEEPALIVE_COUNT_MAX = 3;

/** Host key algorithms offered for each trusted key type; SHA-1 `ssh-rsa` signatures are not offered, as in OpenSSH 8.8+. */
const HOST_KEY_ALGORITHMS: Record<HostKeyType, ServerHostKeyAlgorithm[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256'],
};

/** The strict client options for one SSH server, or undefined when known_hosts names no key for it. */
export function connectConfig(settings: SshClientSettings, files: ClientFiles, server: SshDestination, refused: () => void): ConnectConfig | undefined {
  const { address, port, user } = server;
  const algorithms = knownHostKeyTypes(files.knownHosts, address, port).flatMap((type) => HOST_KEY_ALGORITHMS[type]);
  if (algorithms.length === 0) return undefined;
  return {
    host: address,
    port,
    username: user,
    privateKey: files.privateKey,
    // Only publickey with the configured identity: no "none", agent, password or keyboard-interactive.
    authHandler: ['publickey'],
    tryKeyboard: false,
    agentForward: false,
    hostVerifier: (key: Buffer): boolean => {
      const accepted = hostKeyAccepted(files.knownHosts, address, port, key);
      if (!accepted) refused();
      return accepted;
    },
    algorithms: { serverHostKey: algorithms },
    readyTimeout: settings.connectTimeoutSeconds * 1000,
    keepaliveInterval: KEEPALIVE_INTERVAL_MS,
    keepaliveCountMax: KEEPALIVE_COUNT_MAX,
  };
}

export type Ssh2Client = new () => Client;

/** ssh2 is an optional dependency: loaded on the first call of this transport, never by the others. */
let loaded: Ssh2Client | undefined;

export async function loadSsh2(): Promise<Ssh2Client> {
  if (loaded) return loaded;
  try {
    const imported = (await import('ssh2')) as { Client?: Ssh2Client; default?: { Client: Ssh2Client } };
    loaded = imported.Client ?? imported.default!.Client;
    return loaded;
  } catch (cause) {
    throw new ComputeError(
      'configuration',
      'drivers.compute.configuration.transport: ssh2 needs the optional dependency "ssh2" installed beside this package',
      { key: 'drivers.compute.configuration.transport' },
      { cause },
    );
  }
}
