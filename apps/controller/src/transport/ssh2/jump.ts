// The bastion hop of an ssh2 connection: a direct-tcpip channel to the target through the jump host.
import type { Duplex } from 'node:stream';
import type { Client } from 'ssh2';
import type { JumpHostSettings, SshClientSettings, SshDestination } from '@occ-ssh/ssh-client';
import type { ClientFiles } from './client-files.js';
import { connectConfig, type Ssh2Client } from './connect-config.js';
import { classify, forwardFailure, type ConnectionFailure } from './failures.js';

/** What the hop reports back to the connection it serves. */
export interface JumpOwner {
  /** Records why the connection failed (the first reason wins). */
  fail(reason: ConnectionFailure): void;
  /** Ends the connection, and with it the bastion's. */
  end(): void;
  /** Takes the bastion's client before it connects, so that end() can close it at any point. */
  adopt(client: Client): void;
}

/**
 * Connects to the bastion with the same identity, known_hosts and strictness as any host, and
 * opens a direct-tcpip channel to the target through it; the target's SSH session runs inside.
 */
export async function openJump(ClientClass: Ssh2Client, settings: SshClientSettings, files: ClientFiles, jump: JumpHostSettings, target: SshDestination, owner: JumpOwner): Promise<Duplex> {
  const config = connectConfig(settings, files, jump, () => owner.fail('host-key'));
  const fail = (reason: ConnectionFailure, error: Error) => {
    owner.fail(reason);
    owner.end();
    return error;
  };
  if (!config) throw fail('host-key', new Error('no known host key for the jump host'));
  const client = new ClientClass();
  owner.adopt(client);
  await new Promise<void>((resolve, reject) => {
    client.once('ready', () => resolve());
    client.on('error', (error: Error & { level?: string; code?: string }) => reject(fail(classify(error), error)));
    client.once('close', () => {
      owner.end();
      reject(new Error('jump host connection closed'));
    });
    try {
      client.connect(config);
    } catch (error) {
      reject(fail('identity-file', error as Error));
    }
  });
  return new Promise<Duplex>((resolve, reject) => {
    client.forwardOut('127.0.0.1', 0, target.address, target.port, (error, stream) => {
      if (error) reject(fail(forwardFailure(error), error));
      else resolve(stream);
    });
  });
}
