// The tree reader over an in-memory host: entries, their layouts, and what is skipped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXAMPLE_MARKERS } from './examples.js';
import { accountEntries, agentEntries, namespaceEntries, revisionEntries, type TreeReader } from './tree.js';

const ROOT = '/var/lib/openclaw-enterprise';
const UNIT_DIR = '/etc/systemd/system';
const NS = `${ROOT}/namespaces/edd5c19a1cef`;
const AGENT = `${NS}/agents/fcfbd503951a`;
const { account, agent, revision } = EXAMPLE_MARKERS;
const namespace = EXAMPLE_MARKERS.namespace;

/** Files by path; a directory is every prefix of a file's path. */
function memoryReader(files: Record<string, unknown>): TreeReader {
  return {
    list: (dir) =>
      [
        ...new Set(
          Object.keys(files)
            .filter((path) => path.startsWith(`${dir}/`))
            .map((path) => path.slice(dir.length + 1).split('/')[0]!),
        ),
      ].sort(),
    marker: (path, schema) => (path in files ? schema.parse(files[path]) : null),
  };
}

describe('the on-host tree reader', () => {
  const reader = memoryReader({
    [`${ROOT}/accounts/openclaw-d74736b6a770.json`]: account,
    [`${ROOT}/accounts/.openclaw-d74736b6a770.json.tmp-0a1b`]: 'temp',
    [`${ROOT}/accounts/README`]: 'not a marker',
    [`${NS}/namespace.json`]: namespace,
    [`${ROOT}/namespaces/.deleting-0123456789ab/namespace.json`]: 'renamed away',
    [`${AGENT}/agent.json`]: agent,
    [`${AGENT}/revisions/ad30d4665b02/revision.json`]: revision,
    [`${AGENT}/revisions/d87b8f76768c/openclaw.json`]: '{}',
    [`${NS}/agents/0123456789ab/home/x`]: 'an Agent directory without its marker',
  });

  it('lists account markers with the account their file is named for, skipping temps and other files', () => {
    assert.deepEqual(accountEntries(ROOT, reader), [{ path: `${ROOT}/accounts/openclaw-d74736b6a770.json`, fileAccount: 'openclaw-d74736b6a770', marker: account }]);
  });

  it('lists Namespaces with their layout and marker, never a tree renamed away for deletion', () => {
    const [entry, ...rest] = namespaceEntries(ROOT, reader);
    assert.deepEqual(rest, []);
    assert.deepEqual(entry?.layout, { dir: NS, marker: `${NS}/namespace.json`, agents: `${NS}/agents` });
    assert.equal(entry?.marker?.namespaceName, 'team-a');
  });

  it('lists Agent directories with the layout their marker gives, and those without a marker', () => {
    const [stray, found] = agentEntries(ROOT, UNIT_DIR, `${NS}/agents`, reader);
    assert.deepEqual(stray, { dir: `${NS}/agents/0123456789ab`, markerPath: `${NS}/agents/0123456789ab/agent.json`, marker: null, layout: null });
    assert.equal(found?.dir, AGENT);
    assert.equal(found?.layout?.dir, AGENT, 'the marker is stored in its own directory');
    assert.equal(found?.layout?.unitFile, `${UNIT_DIR}/openclaw-enterprise-gateway-fcfbd503951a.service`);
  });

  it("tells a marker stored under another Agent's directory by its layout", () => {
    const moved = memoryReader({ [`${NS}/agents/0123456789ab/agent.json`]: agent });
    const [entry] = agentEntries(ROOT, UNIT_DIR, `${NS}/agents`, moved);
    assert.notEqual(entry?.layout?.dir, entry?.dir);
  });

  it('lists stored revisions by directory, with or without a marker', () => {
    const found = revisionEntries({ dir: AGENT, revisions: `${AGENT}/revisions` }, reader);
    assert.deepEqual(
      found.map((entry) => [entry.name, entry.layout.marker, entry.marker?.revisionId ?? null]),
      [
        ['ad30d4665b02', `${AGENT}/revisions/ad30d4665b02/revision.json`, 'rev-0001'],
        ['d87b8f76768c', `${AGENT}/revisions/d87b8f76768c/revision.json`, null],
      ],
    );
    assert.equal(found[0]?.layout.currentTarget, 'revisions/ad30d4665b02');
  });

  it("lets the reader's refusal through: a malformed marker is not skipped", () => {
    const bad = memoryReader({ [`${ROOT}/accounts/x.json`]: { kind: 'account' } });
    assert.throws(() => accountEntries(ROOT, bad));
  });
});
