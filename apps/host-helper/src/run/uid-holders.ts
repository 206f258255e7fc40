// What holds a UID on this host, read from /proc: its processes and its SysV IPC objects. Read
// through the runner (HostRunner.holdersOf), so a recording runner stands in for it in unit tests.
import { readdirSync, readFileSync } from 'node:fs';
import { ComputeError } from '@occ-ssh/protocol';
import type { IpcKind } from './commands.js';

export interface UidHolders {
  /** Every process any of whose real, effective, saved and filesystem UIDs is the UID. */
  pids: number[];
  /** SysV IPC objects of the host's IPC namespace the UID owns or created. */
  ipc: { kind: IpcKind; id: number }[];
}

const IPC_KINDS: readonly IpcKind[] = ['shm', 'msg', 'sem'];

/** Whether any of the real, effective, saved and filesystem UIDs on the `Uid:` line of /proc/<pid>/status is `uid`. */
export function statusHasUid(status: string, uid: number): boolean {
  const line = /^Uid:\s+(.*)$/m.exec(status)?.[1];
  return line !== undefined && line.split(/\s+/).some((field) => field === String(uid));
}

/** IDs of the SysV IPC objects in /proc/sysvipc/<kind> that `uid` owns or created. */
export function ipcOwnedBy(text: string, kind: IpcKind, uid: number): number[] {
  const [header, ...rows] = text.split('\n');
  const columns = (header ?? '').trim().split(/\s+/);
  const at = (name: string) => columns.indexOf(name);
  const id = at(kind === 'shm' ? 'shmid' : kind === 'msg' ? 'msqid' : 'semid');
  const owners = [at('uid'), at('cuid')];
  if (id < 0 || owners.includes(-1)) throw new ComputeError('host-requirement', `/proc/sysvipc/${kind} has an unknown layout`);
  return rows
    .map((row) => row.trim().split(/\s+/))
    .filter((fields) => owners.some((column) => fields[column] === String(uid)))
    .map((fields) => Number(fields[id]));
}

export function readUidHolders(uid: number): UidHolders {
  const pids = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return statusHasUid(readFileSync(`/proc/${name}/status`, 'utf8'), uid);
      } catch {
        return false;
      }
    })
    .map(Number);
  const ipc = IPC_KINDS.flatMap((kind) => {
    let text: string;
    try {
      text = readFileSync(`/proc/sysvipc/${kind}`, 'utf8');
    } catch {
      return [];
    }
    return ipcOwnedBy(text, kind, uid).map((id) => ({ kind, id }));
  });
  return { pids, ipc };
}
