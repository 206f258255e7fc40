// Waiting for a quiet host: no helper left (what `pgrep -f '^<node> - '` finds) and no other ssh
// session (a killed client's session may still start one), then the host lock is free.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { CollectOptions, Params } from './params.js';
import { run, sleep } from './params.js';

function ppidOf(pid: number | string): number {
  return Number(
    readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ')[1],
  );
}

/** This runner and its ancestors (the ssh session it came in on), which never count as busy. */
function ancestors(): Set<number> {
  const mine = new Set<number>();
  let pid = process.pid;
  while (pid > 1 && !mine.has(pid)) {
    mine.add(pid);
    try {
      pid = ppidOf(pid);
    } catch {
      break;
    }
  }
  return mine;
}

// Helpers are '<node> - <argument>' (what pgrep -f '^<node> - ' finds); sessions are sshd children.
function busy(p: Params, mine: Set<number>): { helpers: string[]; sessions: number } {
  const helpers: string[] = [];
  let sessions = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name) || mine.has(Number(name))) continue;
    let cmd: string;
    let ppid: number;
    try {
      cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      ppid = ppidOf(name);
    } catch {
      continue;
    }
    if (cmd.startsWith(`${p.nodePath} - `)) helpers.push(`${name} ${cmd.slice(0, 80)}`);
    else if (/^sshd(-session)?: /.test(cmd) && ppid !== 1 && !/listener/.test(cmd)) sessions += 1;
  }
  return { helpers, sessions };
}

export async function quiet(p: Params, o: CollectOptions): Promise<{ waitedMs: number; timedOut: boolean; helpers: string[] }> {
  const started = Date.now();
  const mine = ancestors();
  let calm = 0;
  let last = { helpers: [] as string[], sessions: 0 };
  while (Date.now() - started < o.waitMs) {
    last = busy(p, mine);
    calm = last.helpers.length === 0 && (last.sessions === 0 || !o.waitSessions) ? calm + 1 : 0;
    // Confirmed the way an operator would: pgrep -f '^<node> - ' finds nothing (exit 1).
    if (calm >= 2 && (await run('pgrep', ['-f', `^${p.nodePath} - `])).exitCode !== 1) calm = 0;
    if (calm >= 2 || !o.wait) return { waitedMs: Date.now() - started, timedOut: false, helpers: [] };
    await sleep(100);
  }
  return { waitedMs: Date.now() - started, timedOut: true, helpers: last.helpers };
}

export async function lock(p: Params): Promise<{ free: boolean; waitedMs: number }> {
  const started = Date.now();
  const path = `${p.root}/.compute-lock`;
  if (!existsSync(path)) return { free: true, waitedMs: 0 };
  for (let i = 0; i < 30; i++) {
    if ((await run('flock', ['--nonblock', path, 'true'])).exitCode === 0) return { free: true, waitedMs: Date.now() - started };
    await sleep(100);
  }
  return { free: false, waitedMs: Date.now() - started };
}
