// What the transports' real-host tests share: a stand-in helper, its reports, a foreign host key,
// and one booted test host with the SSH settings and requests that reach it.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import type { ExecuteRequest, ExecuteResult, HostTarget } from '../src/transport/executor.js';
import type { SshClientSettings } from '@occ-ssh/ssh-client';

/** The stand-in helper: CommonJS on stdin, one base64 JSON argument, as the real helper is sent. */
export const PROBE = Buffer.from(`'use strict';
const fs = require('fs');
const arg = JSON.parse(Buffer.from(process.argv[2], 'base64').toString('utf8'));
if (arg.marker) fs.writeFileSync(arg.marker, String(process.pid));
const report = () => process.stdout.write(JSON.stringify({ ok: true, echo: arg.echo, pid: process.pid, ppid: process.ppid }) + '\\n');
switch (arg.mode) {
  case 'sleep': {
    report();
    // A heartbeat, like the helper's: once the session is gone the write fails and the process ends.
    const beat = setInterval(() => process.stdout.write('.\\n'), 200);
    setTimeout(() => { clearInterval(beat); report(); }, arg.ms);
    break;
  }
  case 'exit':
    process.stderr.write('secret-stderr-'.repeat(arg.stderr || 0));
    process.stdout.write('partial\\n');
    process.exitCode = arg.code;
    break;
  case 'kill':
    process.kill(process.pid, 'SIGKILL');
    break;
  case 'flood': {
    const chunk = Buffer.alloc(64 * 1024, 'y');
    let left = arg.chunks;
    const write = () => { while (left > 0) { left -= 1; if (!process.stdout.write(chunk)) return process.stdout.once('drain', write); } };
    write();
    break;
  }
  default:
    report();
}
`);

export interface Report {
  ok: boolean;
  echo?: string;
  pid: number;
  ppid: number;
}

/** The stand-in helper's report lines, without its heartbeats. */
export function reports(result: ExecuteResult): Report[] {
  return result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Report);
}

function sshString(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** A fresh ed25519 public key blob, base64 as known_hosts holds it. */
export function otherEd25519Key(): string {
  const x = Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  return Buffer.concat([sshString('ssh-ed25519'), sshString(x)]).toString('base64');
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface TransportHost {
  host: TestHost;
  /** A private local directory for the test's own files, removed with the host. */
  directory: string;
  target: HostTarget;
  settings: SshClientSettings;
  /** The host's one line in its known_hosts file. */
  hostKeyLine: string;
}

/**
 * Boots a test host before the calling suite's tests and takes it down after them; the fields of
 * what it returns are filled in once the host is up.
 */
export function useTransportHost(name: string, directoryPrefix: string): TransportHost {
  const booted = {} as TransportHost;
  before(async () => {
    const host = await startTestHost({ name });
    Object.assign(booted, {
      host,
      directory: mkdtempSync(join(tmpdir(), directoryPrefix)),
      target: { name: 'stable', address: host.address, port: host.port, user: 'root' },
      settings: { identityFile: host.identityFile, knownHostsFile: host.knownHostsFile, connectTimeoutSeconds: 5 },
      hostKeyLine:
        readFileSync(host.knownHostsFile, 'utf8')
          .split('\n')
          .find((line) => line.trim() !== '') ?? '',
    } satisfies TransportHost);
  });
  after(async () => {
    await booted.host?.down();
    if (booted.directory) rmSync(booted.directory, { recursive: true, force: true });
  });
  return booted;
}

/** Requests and files for the booted host. */
export function transportRequests(booted: TransportHost) {
  return {
    /** Runs the stand-in helper with `arg` as its one base64 JSON argument. */
    request(arg: Record<string, unknown>, overrides: Partial<ExecuteRequest> = {}): ExecuteRequest {
      const { host, target } = booted;
      const encoded = Buffer.from(JSON.stringify(arg)).toString('base64');
      return { host: target, call: { argv: [host.nodePath, '-', encoded], stdin: PROBE }, timeoutMs: 20_000, ...overrides };
    },
    knownHostsFile(name: string, text: string): string {
      const path = join(booted.directory, name);
      writeFileSync(path, text);
      return path;
    },
    /** `sshd: root@notty` session processes, less the one this check itself runs in. */
    async otherSessions(): Promise<number> {
      const out = await booted.host.run(['ps', '-eo', 'args']);
      return out.split('\n').filter((line) => line.trim() === 'sshd: root@notty').length - 1;
    },
  };
}
