// The setup-workspace plan, exactly: a first delivery, a delivery without documents, a recorded setup;
// the stock rule and the conflict rules, pure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentLayout, sha256Hex } from '@occ-ssh/markers';
import { ComputeError, exampleArgs } from '@occ-ssh/protocol';
import { refuseConflicts, replaceableDigests } from '../workspace/documents.js';
import { stockText } from '../workspace/native-setup.js';
import { planSetupWorkspace, type SetupState } from './setup-workspace.js';

const args = exampleArgs('setup-workspace');
const layout = agentLayout('/var/lib/openclaw-enterprise', '/etc/systemd/system', 'ns-01HZX3', 'agent-7f3a');
const MARKER = `${layout.dir}/workspace-setup.json`;
const WORKSPACE = `${layout.state}/workspace`;
const account = { uid: 991, gid: 992 };
const target = { nodePath: '/usr/bin/node', account, dir: WORKSPACE };
const run = { nodePath: '/usr/bin/node', openclawPath: '/opt/openclaw/openclaw.mjs', layout, account, configuration: '{}', port: 18800, root: '/var/lib/openclaw-enterprise' };
const STOCK = 'b'.repeat(64);

function state(overrides: Partial<SetupState> = {}): SetupState {
  return { markerPath: MARKER, recorded: false, build: { version: '2026.9.6', stock: { 'SOUL.md': STOCK } }, target, run, account: 'occ-a-0123456789ab', ...overrides };
}

describe('planSetupWorkspace', () => {
  it('a first delivery: native setup, the documents, native setup again and the check without the lock, then the marker last under it', () => {
    const { content } = args.setup.documents[0]!;
    const plan = planSetupWorkspace(state(), args);
    assert.deepEqual(plan.result, { workspace: 'applied', openclawVersion: '2026.9.6' });
    assert.deepEqual(
      plan.unlocked.map((step) => step.op),
      ['native-setup', 'write-workspace', 'native-setup', 'verify-workspace'],
    );
    assert.deepEqual(
      plan.steps.map((step) => step.op),
      ['sweep-temps', 'write-file'],
    );
    assert.deepEqual(plan.unlocked[1], { op: 'write-workspace', target, documents: args.setup.documents, replaceable: { 'SOUL.md': [STOCK, sha256Hex(content)] } });
    assert.deepEqual(plan.unlocked[3], { op: 'verify-workspace', target, digests: { 'SOUL.md': sha256Hex(content) } });
    assert.deepEqual(plan.steps[0], { op: 'sweep-temps', dir: layout.dir, prefix: '.workspace-setup.json' });
    const last = plan.steps[1]!;
    assert.ok(last.op === 'write-file');
    assert.equal(last.path, MARKER);
    assert.deepEqual(last.owner, { uid: 0, gid: 0, mode: 0o600 });
    assert.deepEqual(JSON.parse(last.content), {
      kind: 'workspace-setup',
      version: 1,
      driver: 'compute-ssh',
      namespaceId: 'ns-01HZX3',
      agentId: 'agent-7f3a',
      servicePrincipalId: 'sp-01',
      setupId: 'setup-1',
      documents: { 'SOUL.md': sha256Hex(content) },
      openclawVersion: '2026.9.6',
    });
    assert.doesNotMatch(last.content, /Calm and exact/, 'the marker records digests, never text');
  });

  it('without documents: one native setup, then the marker', () => {
    const plan = planSetupWorkspace(state(), { ...args, setup: { ...args.setup, documents: [] } });
    assert.deepEqual(
      [...plan.unlocked, ...plan.steps].map((step) => step.op),
      ['native-setup', 'sweep-temps', 'write-file'],
    );
  });

  it('a setup the marker records: nothing to do', () => {
    assert.deepEqual(planSetupWorkspace(state({ recorded: true }), args), { unlocked: [], steps: [], result: { workspace: 'verified', openclawVersion: '2026.9.6' } });
  });
});

describe('workspace rules', () => {
  it('stock is the template without its front matter, as native setup writes it', () => {
    assert.equal(stockText('---\nsummary: "x"\nread_when:\n  - y\n---\n\n# SOUL.md - Who You Are\n\nBody\n'), '# SOUL.md - Who You Are\n\nBody\n');
    assert.equal(stockText('# No front matter\n'), '# No front matter\n');
  });

  it('replaces only absent, stock or submitted documents; refuses a link, a non-file and a foreign text, naming the path', () => {
    const replaceable = replaceableDigests([{ name: 'SOUL.md', content: 'mine' }], { 'SOUL.md': STOCK });
    const ok = [{ kind: 'absent' }, { kind: 'file', sha256: STOCK }, { kind: 'file', sha256: sha256Hex('mine') }] as const;
    for (const entry of ok) assert.doesNotThrow(() => refuseConflicts(WORKSPACE, { dir: 'dir', files: { 'SOUL.md': entry } }, replaceable));
    assert.doesNotThrow(() => refuseConflicts(WORKSPACE, { dir: 'absent', files: {} }, replaceable));
    const refused = (inspection: Parameters<typeof refuseConflicts>[1]) => {
      try {
        refuseConflicts(WORKSPACE, inspection, replaceable);
      } catch (error) {
        assert.ok(error instanceof ComputeError);
        assert.equal(error.code, 'ownership');
        return error.details.path;
      }
      assert.fail('expected a refusal');
    };
    assert.equal(refused({ dir: 'other', files: {} }), WORKSPACE);
    assert.equal(refused({ dir: 'dir', files: { 'SOUL.md': { kind: 'other' } } }), `${WORKSPACE}/SOUL.md`);
    assert.equal(refused({ dir: 'dir', files: { 'SOUL.md': { kind: 'file', sha256: 'c'.repeat(64) } } }), `${WORKSPACE}/SOUL.md`);
  });
});
