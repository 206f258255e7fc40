// Golden host layout of one known Namespace/Agent/AgentRevision triple, and the ID hashes it rests on.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { accountName } from './account.js';
import { agentHash, nsHash, revHash, sha256Hex, shortHash } from './hashes.js';
import { inLoadPath, unitLinkPath, unitWantsLinkPath } from './load-path.js';
import {
  accountMarkerPath,
  accountOfMarkerFile,
  agentDirAt,
  agentLayout,
  agentLayoutAt,
  deletingAgentPath,
  removalLayout,
  removalOfMarkerFile,
  deletingNamespacePath,
  LOCK_FILE,
  namespaceLayout,
  namespaceLayoutAt,
  revisionLayout,
  revisionLayoutAt,
  rootLayout,
  UNIT_PREFIX,
  unitName,
} from './layout.js';

const ROOT = '/var/lib/openclaw-enterprise';
const UNIT_DIR = '/etc/systemd/system';
const NS = 'ns-01HZX3';
const AGENT = 'agent-7f3a';
const REV = 'rev-0001';

// sha256 of the exact UTF-8 IDs, computed once with node:crypto and frozen here.
const NS_SHA256 = 'edd5c19a1cefe3b76edfe6d8784ea401744856703993a43408dcc4d333234eca';
const AGENT_SHA256 = 'fcfbd503951a0f31212420cd9e9282c52725d87100f5e7f2ee7441e066bcb34d';
const REV_SHA256 = 'ad30d4665b020fcf0cb29c0265bfe9d41b214fdd5cd867cd40bca57184342a39';
const NS_HASH = 'edd5c19a1cef';
const AGENT_HASH = 'fcfbd503951a';
const REV_HASH = 'ad30d4665b02';

const independentSha256 = (text: string): string => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

describe('ID hashes', () => {
  it('sha256Hex matches node:crypto and the frozen digests', () => {
    assert.equal(sha256Hex(NS), independentSha256(NS));
    assert.equal(sha256Hex(NS), NS_SHA256);
    assert.equal(sha256Hex(AGENT), AGENT_SHA256);
    assert.equal(sha256Hex(REV), REV_SHA256);
  });

  it('nsHash, agentHash and revHash are the first 12 hex characters of SHA-256 of the exact ID', () => {
    assert.equal(nsHash(NS), NS_HASH);
    assert.equal(agentHash(AGENT), AGENT_HASH);
    assert.equal(revHash(REV), REV_HASH);
    for (const id of [NS, AGENT, REV, 'x', 'a:b@c.d_e-f', '\u00fc\u65e5\u672c']) {
      const expected = independentSha256(id).slice(0, 12);
      assert.equal(shortHash(id), expected, id);
      assert.equal(nsHash(id), expected, id);
      assert.equal(agentHash(id), expected, id);
      assert.equal(revHash(id), expected, id);
      assert.match(shortHash(id), /^[0-9a-f]{12}$/);
    }
  });

  it('hashes UTF-8 bytes, not Latin-1 or UTF-16, and does not normalise', () => {
    const composed = 'ns-\u00fc'; // ü as one code point
    const decomposed = 'ns-u\u0308'; // u + combining diaeresis
    assert.equal(nsHash(composed), independentSha256(composed).slice(0, 12));
    assert.notEqual(nsHash(composed), createHash('sha256').update(Buffer.from(composed, 'latin1')).digest('hex').slice(0, 12));
    assert.notEqual(nsHash(composed), createHash('sha256').update(Buffer.from(composed, 'utf16le')).digest('hex').slice(0, 12));
    assert.notEqual(nsHash(composed), nsHash(decomposed));
  });

  it('the exact ID is hashed: case, whitespace and prefixes change the hash', () => {
    assert.notEqual(nsHash(NS), nsHash(NS.toLowerCase()));
    assert.notEqual(nsHash(NS), nsHash(`${NS} `));
    assert.notEqual(agentHash(AGENT), agentHash(`${AGENT}b`));
  });
});

describe('host layout of ns-01HZX3 / agent-7f3a / rev-0001', () => {
  const agentDir = `${ROOT}/namespaces/${NS_HASH}/agents/${AGENT_HASH}`;

  it('root, lock, accounts, namespaces and the port index', () => {
    assert.deepEqual(rootLayout(ROOT), {
      root: '/var/lib/openclaw-enterprise',
      lock: '/var/lib/openclaw-enterprise/.compute-lock',
      accounts: '/var/lib/openclaw-enterprise/accounts',
      namespaces: '/var/lib/openclaw-enterprise/namespaces',
      ports: '/var/lib/openclaw-enterprise/ports.json',
    });
    assert.equal(LOCK_FILE, '.compute-lock');
  });

  it('<root>/accounts/<account>.json for the Agent private account', () => {
    const account = accountName('openclaw', NS, AGENT);
    assert.equal(account, 'openclaw-d74736b6a770');
    assert.equal(accountMarkerPath(ROOT, account), '/var/lib/openclaw-enterprise/accounts/openclaw-d74736b6a770.json');
  });

  it('<root>/namespaces/<nsHash>/namespace.json', () => {
    assert.deepEqual(namespaceLayout(ROOT, NS), {
      dir: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef',
      marker: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/namespace.json',
      agents: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents',
    });
  });

  it('every Agent path and the unit file', () => {
    assert.deepEqual(agentLayout(ROOT, UNIT_DIR, NS, AGENT), {
      dir: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a',
      marker: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/agent.json',
      home: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/home',
      compileCache: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/home/.node-compile-cache',
      state: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/state',
      passwordFile: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/gateway-password.env',
      operatorEnvFile: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/env',
      launchEnvFile: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/launch.env',
      revisions: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/revisions',
      current: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/current',
      served: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/served.json',
      activation: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/activation',
      unitName: 'openclaw-enterprise-gateway-fcfbd503951a.service',
      unitFile: '/etc/systemd/system/openclaw-enterprise-gateway-fcfbd503951a.service',
      setupUnitName: 'openclaw-enterprise-setup-fcfbd503951a.service',
    });
    assert.equal(agentLayout(ROOT, UNIT_DIR, NS, AGENT).dir, agentDir);
  });

  it('revision snapshot, marker and the relative current target', () => {
    assert.deepEqual(revisionLayout(agentDir, REV), {
      dir: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/revisions/ad30d4665b02',
      currentTarget: 'revisions/ad30d4665b02',
      config: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/revisions/ad30d4665b02/openclaw.json',
      marker: '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/fcfbd503951a/revisions/ad30d4665b02/revision.json',
    });
  });

  it('the same paths from the directory names a listing finds, and the deleting name', () => {
    assert.deepEqual(namespaceLayoutAt(ROOT, NS_HASH), namespaceLayout(ROOT, NS));
    assert.deepEqual(agentDirAt(namespaceLayout(ROOT, NS).agents, AGENT_HASH), { dir: agentDir, marker: `${agentDir}/agent.json` });
    assert.deepEqual(agentLayoutAt(agentDir, UNIT_DIR, AGENT), agentLayout(ROOT, UNIT_DIR, NS, AGENT));
    assert.deepEqual(revisionLayoutAt(agentDir, REV_HASH), revisionLayout(agentDir, REV));
    assert.equal(deletingNamespacePath(ROOT, NS), '/var/lib/openclaw-enterprise/namespaces/.deleting-edd5c19a1cef');
    assert.equal(deletingAgentPath(ROOT, NS, AGENT), '/var/lib/openclaw-enterprise/namespaces/edd5c19a1cef/agents/.deleting-fcfbd503951a');
    assert.deepEqual(removalLayout(ROOT, '0123456789abcdef'), { tree: `${ROOT}/.removing/0123456789abcdef`, marker: `${ROOT}/.removing/0123456789abcdef.json` });
    assert.equal(removalOfMarkerFile('0123456789abcdef.json'), '0123456789abcdef');
    for (const other of ['0123456789abcdef', '.0123456789abcdef.json.tmp-1', '0123456789ABCDEF.json', '0123456789abcdef0.json']) assert.equal(removalOfMarkerFile(other), null);
    assert.equal(accountOfMarkerFile('openclaw-d74736b6a770.json'), 'openclaw-d74736b6a770');
    assert.equal(accountOfMarkerFile('openclaw-d74736b6a770.json.tmp-1'), null);
  });

  it('unit name is openclaw-enterprise-gateway-<agentHash>.service', () => {
    assert.equal(UNIT_PREFIX, 'openclaw-enterprise-gateway-');
    assert.equal(unitName(AGENT), 'openclaw-enterprise-gateway-fcfbd503951a.service');
  });

  it('the layout depends on the exact IDs only through their hashes', () => {
    const other = agentLayout(ROOT, UNIT_DIR, 'ns-01HZX4', AGENT);
    assert.notEqual(other.dir, agentDir);
    // The same Agent ID in another Namespace has a different directory but the same unit name:
    // the unit name is keyed by the Agent hash alone.
    assert.equal(other.unitName, 'openclaw-enterprise-gateway-fcfbd503951a.service');
    assert.equal(revisionLayout(agentDir, 'rev-0002').currentTarget, 'revisions/d87b8f76768c');
  });

  it('another root and unit directory move every path with them', () => {
    const layout = agentLayout('/srv/occ', '/run/systemd/system', NS, AGENT);
    assert.equal(layout.dir, '/srv/occ/namespaces/edd5c19a1cef/agents/fcfbd503951a');
    assert.equal(layout.unitFile, '/run/systemd/system/openclaw-enterprise-gateway-fcfbd503951a.service');
    assert.equal(rootLayout('/srv/occ').lock, '/srv/occ/.compute-lock');
  });
});

describe('unit load path', () => {
  it('links a unit only when its directory is outside the load path, always from /etc/systemd/system', () => {
    const unit = 'openclaw-enterprise-gateway-fcfbd503951a.service';
    for (const dir of ['/etc/systemd/system', '/usr/local/lib/systemd/system', '/run/systemd/system']) {
      assert.equal(inLoadPath(dir), true, dir);
      assert.equal(unitLinkPath(dir, unit), null, dir);
    }
    // systemd finds units by name in the load-path directories themselves, not below them.
    for (const dir of ['/srv/occ-units', '/etc/systemd/system/occ', '/etc/systemd']) {
      assert.equal(inLoadPath(dir), false, dir);
      assert.equal(unitLinkPath(dir, unit), `/etc/systemd/system/${unit}`, dir);
    }
    assert.equal(unitWantsLinkPath(unit), `/etc/systemd/system/multi-user.target.wants/${unit}`);
  });
});
