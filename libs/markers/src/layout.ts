// Every on-host path the driver uses, as pure functions of the root, the unit directory and IDs.
import { agentHash, nsHash, revHash } from './hashes.js';

export const LOCK_FILE = '.compute-lock';
export const UNIT_PREFIX = 'openclaw-enterprise-gateway-';

export function unitName(agentId: string): string {
  return `${UNIT_PREFIX}${agentHash(agentId)}.service`;
}

interface RootLayout {
  root: string;
  lock: string;
  accounts: string;
  namespaces: string;
}

export function rootLayout(root: string): RootLayout {
  return { root, lock: `${root}/${LOCK_FILE}`, accounts: `${root}/accounts`, namespaces: `${root}/namespaces` };
}

export function accountMarkerPath(root: string, account: string): string {
  return `${root}/accounts/${account}.json`;
}

interface NamespaceLayout {
  dir: string;
  marker: string;
  agents: string;
}

export function namespaceLayout(root: string, namespaceId: string): NamespaceLayout {
  const dir = `${root}/namespaces/${nsHash(namespaceId)}`;
  return { dir, marker: `${dir}/namespace.json`, agents: `${dir}/agents` };
}

export interface AgentLayout {
  dir: string;
  marker: string;
  home: string;
  /** NODE_COMPILE_CACHE: under home/, so the gateway creates and owns it and it outlives restarts. */
  compileCache: string;
  state: string;
  passwordFile: string;
  operatorEnvFile: string;
  revisions: string;
  current: string;
  served: string;
  /** The in-flight activation's claim: a random token, so a later operation that took over is seen. */
  activation: string;
  unitName: string;
  unitFile: string;
}

export function agentLayout(root: string, unitDirectory: string, namespaceId: string, agentId: string): AgentLayout {
  const dir = `${namespaceLayout(root, namespaceId).agents}/${agentHash(agentId)}`;
  const unit = unitName(agentId);
  return {
    dir,
    marker: `${dir}/agent.json`,
    home: `${dir}/home`,
    compileCache: `${dir}/home/.node-compile-cache`,
    state: `${dir}/state`,
    passwordFile: `${dir}/gateway-password.env`,
    operatorEnvFile: `${dir}/env`,
    revisions: `${dir}/revisions`,
    current: `${dir}/current`,
    served: `${dir}/served.json`,
    activation: `${dir}/activation`,
    unitName: unit,
    unitFile: `${unitDirectory}/${unit}`,
  };
}

export interface RevisionLayout {
  dir: string;
  /** What `current` points at: relative, so the tree can be inspected from anywhere. */
  currentTarget: string;
  config: string;
  marker: string;
}

export function revisionLayout(agentDir: string, revisionId: string): RevisionLayout {
  const name = revHash(revisionId);
  const dir = `${agentDir}/revisions/${name}`;
  return { dir, currentTarget: `revisions/${name}`, config: `${dir}/openclaw.json`, marker: `${dir}/revision.json` };
}
