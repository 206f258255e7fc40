// The host's state as facts: every path under the root (never following a link), leftover temp
// files, gateway units with their systemd states, native-setup units, and the Agent accounts.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import type { AccountEntry, Entry, EntryType, UnitInfo } from '../host/listing.js';
import { run, type Params } from './params.js';

function kind(st: Stats): EntryType {
  return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
}

/** The workspace documents whose digests the setup-workspace expectation compares. */
const WORKSPACE_DOCUMENTS = ['AGENTS.md', 'SOUL.md', 'IDENTITY.md', 'USER.md'];

/** Marker texts are read outside the Agents' private home/ and state/ directories only. */
export function walk(base: string, rel: string, out: Entry[], privateDepth: number): void {
  let names: string[];
  try {
    names = readdirSync(base + (rel ? `/${rel}` : '')).sort();
  } catch {
    return;
  }
  for (const name of names) {
    const r = rel ? `${rel}/${name}` : name;
    const full = `${base}/${r}`;
    let st: Stats;
    try {
      st = lstatSync(full);
    } catch {
      continue;
    }
    const e: Entry = { path: r, type: kind(st), uid: st.uid, gid: st.gid, mode: st.mode & 0o7777, size: st.size };
    if (e.type === 'link') {
      try {
        e.target = readlinkSync(full);
      } catch {
        // gone or unreadable meanwhile: the entry is recorded without it
      }
    }
    const inside = privateDepth > 0 || name === 'home' || name === 'state';
    if (e.type === 'file' && !inside && name.endsWith('.json') && st.size < 200000) {
      try {
        e.text = readFileSync(full, 'utf8');
      } catch {
        // gone or unreadable meanwhile: the entry is recorded without it
      }
    }
    if (e.type === 'file' && (name === 'openclaw.json' || (WORKSPACE_DOCUMENTS.includes(name) && rel.endsWith('/state/workspace')))) {
      try {
        e.sha256 = createHash('sha256').update(readFileSync(full)).digest('hex');
      } catch {
        // gone or unreadable meanwhile: the entry is recorded without it
      }
    }
    out.push(e);
    if (e.type === 'dir' && out.length < 20000) walk(base, r, out, inside ? privateDepth + 1 : 0);
  }
}

export function temps(dir: string, out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const full = `${dir}/${name}`;
    if (name.includes('.tmp-')) out.push(full);
    try {
      if (lstatSync(full).isDirectory()) temps(full, out);
    } catch {
      // removed meanwhile: nothing below it to list
    }
  }
}

export async function units(p: Params): Promise<UnitInfo[]> {
  let names: string[] = [];
  try {
    names = readdirSync(p.unitDir)
      .filter((n) => n.startsWith('openclaw-enterprise-gateway-') && n.endsWith('.service'))
      .sort();
  } catch {
    // no unit directory: no units
  }
  const states: Record<string, Record<string, string>> = {};
  if (names.length > 0) {
    const out = (await run('systemctl', ['show', '--property=Id,ActiveState,UnitFileState', ...names])).stdout;
    for (const block of out.split('\n\n')) {
      const f = Object.fromEntries(
        block
          .split('\n')
          .filter(Boolean)
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      ) as Record<string, string>;
      if (f['Id']) states[f['Id']] = f;
    }
  }
  return names.map((name) => {
    const full = `${p.unitDir}/${name}`;
    const st = lstatSync(full);
    let head = '';
    if (st.isFile()) head = readFileSync(full, 'utf8').split('\n').slice(0, 3).join('\n');
    const s = states[name] ?? {};
    return { name, type: kind(st), uid: st.uid, head, activeState: s['ActiveState'] || 'unknown', unitFileState: s['UnitFileState'] || 'unknown' };
  });
}

/** Native setup's transient units systemd still knows (a failed one stays listed until reset). */
export async function setupUnits(): Promise<{ name: string; activeState: string }[]> {
  const out = (await run('systemctl', ['list-units', '--all', '--plain', '--no-legend', '--type=service', 'openclaw-enterprise-setup-*'])).stdout;
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[0]?.endsWith('.service'))
    .map((f) => ({ name: f[0]!, activeState: f[2] ?? 'unknown' }));
}

// The account databases of the host (files: the test hosts use no other NSS source).
export function users(p: Params): AccountEntry[] {
  return rows(p, '/etc/passwd').map((f) => ({ name: f[0]!, uid: Number(f[2]), gid: Number(f[3]) }));
}

export function groups(p: Params): { name: string; gid: number }[] {
  return rows(p, '/etc/group').map((f) => ({ name: f[0]!, gid: Number(f[2]) }));
}

function rows(p: Params, file: string): string[][] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(`${p.user}-`))
    .map((l) => l.split(':'));
}
