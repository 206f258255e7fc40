// Gives each host its own network namespace with one veth pair: a private /30, no route out.
import { existsSync } from 'node:fs';
import { mustRun, runSync } from './command.js';
import { addressesFor, hostObjects } from './paths.js';

/**
 * The ip commands for a host, split by where they run: on the machine, and inside the host's
 * namespace. `replace` rather than `add`, so the address steps re-apply cleanly on reboot.
 */
function addressCommands(name: string, index: number): { machine: string[][]; inside: string[][] } {
  const { veth } = hostObjects(name);
  const a = addressesFor(index);
  return {
    machine: [
      ['addr', 'replace', `${a.machine}/30`, 'dev', veth],
      ['link', 'set', veth, 'up'],
    ],
    inside: [
      ['addr', 'replace', `${a.host}/30`, 'dev', 'host0'],
      ['link', 'set', 'host0', 'up'],
      ['link', 'set', 'lo', 'up'],
    ],
  };
}

export function networkCommands(name: string, index: number): { machine: string[][]; inside: string[][] } {
  const { netns, veth } = hostObjects(name);
  const { machine, inside } = addressCommands(name, index);
  return {
    machine: [['netns', 'add', netns], ['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'host0', 'netns', netns], ...machine],
    inside,
  };
}

/** One `ip -batch` per side instead of a process per command: boot time is dominated by small spawns. */
async function apply(name: string, cmds: { machine: string[][]; inside: string[][] }): Promise<void> {
  const script = (lines: string[][]) => `${lines.map((l) => l.join(' ')).join('\n')}\n`;
  await mustRun('ip', ['-batch', '-'], { input: script(cmds.machine) });
  await mustRun('ip', ['-n', hostObjects(name).netns, '-batch', '-'], { input: script(cmds.inside) });
}

export async function createNetwork(name: string, index: number): Promise<void> {
  await apply(name, networkCommands(name, index));
}

export async function reapplyAddresses(name: string, index: number): Promise<void> {
  await apply(name, addressCommands(name, index));
}

/** True if any interface on the machine already has an address in slot I's /30 (e.g. a foreign leftover). */
export function subnetInUse(index: number): boolean {
  const { machine } = addressesFor(index);
  return runSync('ip', ['-o', '-4', 'addr', 'show', 'to', `${machine}/30`]).stdout.trim() !== '';
}

export const netnsExists = (netns: string) => existsSync(`/run/netns/${netns}`);
export const linkExists = (link: string) => existsSync(`/sys/class/net/${link}`);

/** Deleting the netns takes the host0 end with it, and a veth pair dies with either end. */
export function deleteNetworkSync(name: string): string[] {
  const { netns, veth } = hostObjects(name);
  const problems: string[] = [];
  if (netnsExists(netns)) {
    const r = runSync('ip', ['netns', 'del', netns]);
    if (r.code !== 0) problems.push(`ip netns del ${netns}: ${r.stderr.trim()}`);
  }
  if (linkExists(veth)) {
    const r = runSync('ip', ['link', 'del', veth]);
    if (r.code !== 0 && linkExists(veth)) problems.push(`ip link del ${veth}: ${r.stderr.trim()}`);
  }
  return problems;
}
