// Loaded with `--import` by every test runner, the chaos campaign, the benchmarks and the demo:
// any connection to an address outside loopback and the test-host range throws before a packet
// is sent, whether it comes from a socket (ssh2, http) or from an `ssh` child process.
import childProcess from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { dialProblem } from './addresses.js';
import { sshHosts } from './ssh-destination.js';

const INSTALLED = Symbol.for('occ-ssh.netguard');

function refuse(host: string): void {
  const problem = dialProblem(host);
  if (problem) throw new Error(problem);
}

/** net.Socket#connect's overloads: (options[, cb]), (port[, host][, cb]), (path[, cb]). */
function connectHost(args: unknown[]): string | undefined {
  const [first, second] = args;
  // net.connect() hands over its already normalized [options, callback] pair as one array.
  if (Array.isArray(first)) return connectHost(first);
  if (typeof first === 'object' && first !== null) {
    const o = first as { path?: unknown; host?: unknown };
    return o.path !== undefined ? undefined : typeof o.host === 'string' ? o.host : 'localhost';
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) return typeof second === 'string' ? second : 'localhost';
  return undefined;
}

/** Refuses an `ssh` child process whose destination or jump host is not ours, before it starts. */
function checkSpawn(command: unknown, args: unknown): void {
  if (typeof command === 'string' && path.basename(command) === 'ssh' && Array.isArray(args)) {
    for (const host of sshHosts(args as string[], (file) => readFileSync(file, 'utf8'))) refuse(host);
  }
}

function guardSpawn<T extends (...a: never[]) => unknown>(original: T): T {
  const call = original as unknown as (...a: unknown[]) => unknown;
  const wrapper = function (this: unknown, command: unknown, args: unknown, ...rest: unknown[]) {
    checkSpawn(command, args);
    return call.call(this, command, args, ...rest);
  };
  // util.promisify(execFile) uses the original's own promise form: guard that one too.
  const promised = (original as unknown as Record<symbol, ((...a: unknown[]) => unknown) | undefined>)[promisify.custom];
  if (promised) {
    Object.defineProperty(wrapper, promisify.custom, {
      value: (command: unknown, args: unknown, ...rest: unknown[]) => {
        checkSpawn(command, args);
        return promised(command, args, ...rest);
      },
    });
  }
  return wrapper as unknown as T;
}

if (!(globalThis as Record<symbol, unknown>)[INSTALLED]) {
  (globalThis as Record<symbol, unknown>)[INSTALLED] = true;
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const host = connectHost(args);
    if (host !== undefined) refuse(host);
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;
  childProcess.spawn = guardSpawn(childProcess.spawn);
  childProcess.spawnSync = guardSpawn(childProcess.spawnSync);
  childProcess.execFile = guardSpawn(childProcess.execFile);
  childProcess.execFileSync = guardSpawn(childProcess.execFileSync);
  syncBuiltinESMExports();
}
