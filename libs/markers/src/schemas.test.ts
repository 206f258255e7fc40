// Marker schemas: one valid example of each kind, and the refusals that keep foreign markers out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accountMarker, type AgentMarker, agentMarker, MARKER_VERSION, markerText, namespaceMarker, portIndex, revisionMarker, servedMarker } from './schemas.js';
import { EXAMPLE_MARKERS } from './examples.js';

const { account, namespace, agent, revision, served } = EXAMPLE_MARKERS;
const HASH = revision.configurationHash;

const kinds = [
  ['account', accountMarker, account],
  ['namespace', namespaceMarker, namespace],
  ['agent', agentMarker, agent],
  ['revision', revisionMarker, revision],
  ['served', servedMarker, served],
] as const;

describe('marker schemas', () => {
  it('MARKER_VERSION is 1', () => {
    assert.equal(MARKER_VERSION, 1);
  });

  for (const [kind, schema, example] of kinds) {
    describe(`${kind} marker`, () => {
      it('parses a valid example unchanged', () => {
        assert.deepEqual(schema.parse(example), example);
      });

      it('round-trips through markerText', () => {
        assert.deepEqual(schema.parse(JSON.parse(markerText(example))), example);
      });

      it('refuses an unknown key', () => {
        assert.equal(schema.safeParse({ ...example, adopted: true }).success, false);
      });

      it('refuses a wrong or missing driver', () => {
        assert.equal(schema.safeParse({ ...example, driver: 'compute-k8s' }).success, false);
        assert.equal(schema.safeParse({ ...example, driver: 'occ/ssh' }).success, false);
        const { driver: _driver, ...rest } = example;
        assert.equal(schema.safeParse(rest).success, false);
      });

      it('refuses a wrong version', () => {
        for (const version of [0, 2, '1', null]) {
          assert.equal(schema.safeParse({ ...example, version }).success, false, String(version));
        }
      });

      it('refuses another kind', () => {
        const other = kind === 'agent' ? 'revision' : 'agent';
        assert.equal(schema.safeParse({ ...example, kind: other }).success, false);
      });

      it('refuses an ID with a newline or slash', () => {
        assert.equal(schema.safeParse({ ...example, namespaceId: 'ns-01HZX3\nX' }).success, false);
        assert.equal(schema.safeParse({ ...example, namespaceId: 'ns/01HZX3' }).success, false);
      });
    });
  }

  it('account marker: creating may omit uid/gid, active must record both', () => {
    const { uid: _uid, gid: _gid, ...creating } = account;
    assert.equal(accountMarker.safeParse({ ...creating, state: 'creating' }).success, true);
    assert.equal(accountMarker.safeParse({ ...creating, state: 'active' }).success, false);
    assert.equal(accountMarker.safeParse({ ...account, gid: undefined }).success, false);
    assert.equal(accountMarker.safeParse({ ...account, state: 'deleted' }).success, false);
  });

  it('agent marker: uid/gid positive, port in 1024..65535', () => {
    assert.equal(agentMarker.safeParse({ ...agent, uid: 0 }).success, false);
    assert.equal(agentMarker.safeParse({ ...agent, gid: 0 }).success, false);
    assert.equal(agentMarker.safeParse({ ...agent, port: 1023 }).success, false);
    assert.equal(agentMarker.safeParse({ ...agent, port: 65536 }).success, false);
  });

  it('revision marker: only openclaw/embedded, a known auth mode and a SHA-256 hash', () => {
    assert.equal(revisionMarker.safeParse({ ...revision, harness: 'openclaw/dedicated' }).success, false);
    assert.equal(revisionMarker.safeParse({ ...revision, auth: 'none' }).success, false);
    assert.equal(revisionMarker.safeParse({ ...revision, configurationHash: HASH.toUpperCase() }).success, false);
    assert.equal(revisionMarker.safeParse({ ...revision, revisionNumber: 0 }).success, false);
    for (const auth of ['password', 'trusted-proxy', 'trusted-proxy-password'] as const) {
      assert.equal(revisionMarker.safeParse({ ...revision, auth }).success, true, auth);
    }
  });

  it('served marker: servedAt must be an ISO date-time', () => {
    assert.equal(servedMarker.safeParse({ ...served, servedAt: 'yesterday' }).success, false);
  });

  it('port index: change times as decimal nanoseconds or null (the ports are checked by their reader)', () => {
    const index = (changed: unknown) => ({ kind: 'ports', version: 1, driver: 'compute-ssh', changed: null, namespaces: { edd5c19a1cef: { changed, agents: { fcfbd503951a: 18800 } } } });
    assert.ok(portIndex.safeParse(index('1733400000123456789')).success);
    assert.ok(portIndex.safeParse(index(null)).success);
    for (const changed of ['-1', '1.5', 17334000001]) assert.equal(portIndex.safeParse(index(changed)).success, false, String(changed));
  });

  it('namespace marker: the name is a DNS label', () => {
    assert.equal(namespaceMarker.safeParse({ ...namespace, namespaceName: 'Team-A' }).success, false);
    assert.equal(namespaceMarker.safeParse({ ...namespace, namespaceName: 'team_a' }).success, false);
  });
});

describe('markerText', () => {
  it('sorts keys, indents by two spaces and ends with one newline', () => {
    assert.equal(markerText(namespace), '{\n  "driver": "compute-ssh",\n  "kind": "namespace",\n  "namespaceId": "ns-01HZX3",\n  "namespaceName": "team-a",\n  "version": 1\n}\n');
  });

  it('is independent of the key order of its input', () => {
    const reversed = Object.fromEntries(Object.entries(agent).reverse()) as AgentMarker;
    assert.equal(markerText(reversed), markerText(agent));
    const keys = Object.keys(JSON.parse(markerText(reversed)) as object);
    assert.deepEqual(keys, [...keys].sort());
  });

  it('every kind ends with exactly one newline', () => {
    for (const [, , example] of kinds) {
      const text = markerText(example);
      assert.ok(text.endsWith('}\n') && !text.endsWith('\n\n'));
    }
  });
});
