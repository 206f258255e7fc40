// One valid marker of each kind, all of one Agent on one host: the shapes a reader of the host can
// expect, shared by the tests of the markers, the tree reader and the helper's plans; and that Agent's
// gateway unit input, shared by the unit renderer's tests.
import { accountName } from './account.js';
import { agentLayout } from './layout.js';
import type { AccountMarker, AgentMarker, NamespaceMarker, RevisionMarker, ServedMarker } from './schemas.js';
import type { UnitInput } from './unit.js';

const ids = { version: 1, driver: 'compute-ssh', namespaceId: 'ns-01HZX3' } as const;
const agentIds = { ...ids, agentId: 'agent-7f3a', servicePrincipalId: 'sp-01' } as const;
const account = 'openclaw-d74736b6a770';
const configurationHash = 'ad30d4665b020fcf0cb29c0265bfe9d41b214fdd5cd867cd40bca57184342a39';

export const EXAMPLE_MARKERS: {
  account: AccountMarker;
  namespace: NamespaceMarker;
  agent: AgentMarker;
  revision: RevisionMarker;
  served: ServedMarker;
} = {
  account: { kind: 'account', ...agentIds, account, state: 'active', uid: 991, gid: 992 },
  namespace: { kind: 'namespace', ...ids, namespaceName: 'team-a' },
  agent: { kind: 'agent', ...agentIds, account, uid: 991, gid: 992, port: 18800 },
  revision: { kind: 'revision', ...agentIds, revisionId: 'rev-0001', revisionNumber: 1, configurationHash, harness: 'openclaw/embedded', auth: 'password' },
  served: { kind: 'served', ...ids, agentId: 'agent-7f3a', revisionId: 'rev-0001', revisionNumber: 1, configurationHash, port: 18800, servedAt: '2025-01-02T03:04:05.678Z' },
};

/** The example Agent's unit input (the password mode, the default root and unit directory), with any field replaced. */
export function exampleUnitInput(overrides: Partial<UnitInput> = {}): UnitInput {
  const root = '/var/lib/openclaw-enterprise';
  return {
    namespaceId: ids.namespaceId,
    agentId: agentIds.agentId,
    account: accountName('openclaw', ids.namespaceId, agentIds.agentId),
    nodePath: '/usr/bin/node',
    openclawPath: '/opt/openclaw/current/dist/index.js',
    port: 18800,
    root,
    layout: agentLayout(root, '/etc/systemd/system', ids.namespaceId, agentIds.agentId),
    managedPassword: true,
    ...overrides,
  };
}
