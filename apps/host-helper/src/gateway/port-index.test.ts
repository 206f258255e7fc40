// The port index on this machine: trusted only while the tree holds exactly the directories it
// recorded with the change times it read, and never written for a tree a plan did not leave.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { rootLayout } from '@occ-ssh/markers';
import { guardChanges } from '../run/change-guard.js';
import { indexedPorts, recordPorts, withAgent, withNamespace, type PortRecord } from './port-index.js';

const base = mkdtempSync('/var/lib/occ-port-index-');
after(() => spawnSync('rm', ['-rf', '--one-file-system', '--', base]));
guardChanges(() => undefined);

let count = 0;
/** A fresh root with the Agent directories `ports` names (no markers: the index never reads them). */
function tree(ports: PortRecord): string {
  const root = `${base}/${(count += 1)}`;
  mkdirSync(`${root}/namespaces`, { recursive: true });
  for (const [ns, agents] of Object.entries(ports)) {
    mkdirSync(`${root}/namespaces/${ns}/agents`, { recursive: true });
    for (const agent of Object.keys(agents)) mkdirSync(`${root}/namespaces/${ns}/agents/${agent}`);
  }
  return root;
}

const PORTS: PortRecord = { aaaaaaaaaaaa: { '000000000001': 18800, '000000000002': 18801 }, bbbbbbbbbbbb: {} };
// Another helper's change comes at least a process start after the index was written; the
// coarsest change-time clock ticks every few milliseconds.
const anotherRun = () => sleep(20);

describe('the port index', () => {
  it('is written root 0600 and read back while the tree is unchanged, changes inside an Agent directory included', () => {
    const root = tree(PORTS);
    recordPorts(root, PORTS);
    const stat = statSync(rootLayout(root).ports);
    assert.deepEqual({ uid: stat.uid, mode: stat.mode & 0o7777 }, { uid: 0, mode: 0o600 });
    assert.equal(JSON.parse(readFileSync(rootLayout(root).ports, 'utf8')).kind, 'ports');
    writeFileSync(`${root}/namespaces/aaaaaaaaaaaa/agents/000000000001/served.json`, '{}');
    assert.deepEqual(indexedPorts(root), PORTS);
  });

  it('is not trusted once an Agent directory is added, removed, or removed and made again under the same name', async () => {
    const changes: [string, (agents: string) => void][] = [
      ['added', (agents) => mkdirSync(`${agents}/000000000003`)],
      ['renamed away', (agents) => renameSync(`${agents}/000000000002`, `${agents}/.deleting-000000000002`)],
      ['made again', (agents) => (rmSync(`${agents}/000000000002`, { recursive: true }), mkdirSync(`${agents}/000000000002`))],
      ['a Namespace added', (agents) => mkdirSync(`${agents}/../../cccccccccccc`)],
    ];
    for (const [what, change] of changes) {
      const root = tree(PORTS);
      recordPorts(root, PORTS);
      assert.deepEqual(indexedPorts(root), PORTS, `${what}: trusted before the change`);
      await anotherRun();
      change(`${root}/namespaces/aaaaaaaaaaaa/agents`);
      assert.equal(indexedPorts(root), null, `${what}: not trusted after it`);
    }
  });

  it('is not trusted when absent, malformed, recording one port twice or a port out of range', () => {
    const root = tree(PORTS);
    assert.equal(indexedPorts(root), null);
    const { ports } = rootLayout(root);
    writeFileSync(ports, '{"kind":', { mode: 0o600 });
    assert.equal(indexedPorts(root), null);
    const twice = { ...PORTS, aaaaaaaaaaaa: { '000000000001': 18800, '000000000002': 18800 } };
    recordPorts(root, twice);
    assert.ok(existsSync(ports));
    assert.equal(indexedPorts(root), null);
    for (const port of [0, 65536, 18800.5, '18802', null]) {
      recordPorts(root, { ...PORTS, aaaaaaaaaaaa: { '000000000001': 18800, '000000000002': port as number } });
      assert.equal(indexedPorts(root), null, String(port));
    }
    recordPorts(root, PORTS);
    assert.deepEqual(indexedPorts(root), PORTS);
  });

  it('is removed rather than written when the tree does not hold exactly what the plan left', () => {
    const root = tree(PORTS);
    recordPorts(root, PORTS);
    recordPorts(root, withAgent(PORTS, `${root}/namespaces/aaaaaaaaaaaa/agents/000000000009`, 18802));
    assert.equal(existsSync(rootLayout(root).ports), false);
    assert.equal(indexedPorts(root), null);
  });

  it('adds and drops Agents and Namespaces by their directories', () => {
    const agent = '/r/namespaces/aaaaaaaaaaaa/agents/000000000003';
    assert.deepEqual(withAgent(PORTS, agent, 18802).aaaaaaaaaaaa, { '000000000001': 18800, '000000000002': 18801, '000000000003': 18802 });
    assert.deepEqual(withAgent(PORTS, '/r/namespaces/aaaaaaaaaaaa/agents/000000000001', null).aaaaaaaaaaaa, { '000000000002': 18801 });
    assert.deepEqual(withNamespace(PORTS, '/r/namespaces/aaaaaaaaaaaa', false), { bbbbbbbbbbbb: {} });
    assert.deepEqual(withNamespace(PORTS, '/r/namespaces/cccccccccccc', true), { ...PORTS, cccccccccccc: {} });
    assert.deepEqual(PORTS.aaaaaaaaaaaa, { '000000000001': 18800, '000000000002': 18801 }, 'the record given is not changed');
  });
});
