// Every on-host path the driver uses, as pure functions of the root, the unit directory and IDs.
import { agentHash, nsHash, revHash } from './hashes.js';

export const LOCK_FILE = '.compute-lock';
export const UNIT_PREFIX = 'openclaw-enterprise-gateway-';

export function unitName(agentId: string): string {
  return `${UNIT_PREFIX}${agentHash(agentId)}.service`;
}

/** The transient unit native workspace setup runs in: one name per Agent, so systemd refuses a second run while one is active. */
export function setupUnitName(agentId: string): string {
  return `openclaw-enterprise-setup-${agentHash(agentId)}.service`;
}

interface RootLayout {
  root: string;
  lock: string;
  accounts: string;
  namespaces: string;
  /** The port index: every Agent's gateway port, so allocation need not read every marker. */
  ports: string;
}

export function rootLayout(root: string): RootLayout {
  return { root, lock: `${root}/${LOCK_FILE}`, accounts: `${root}/accounts`, namespaces: `${root}/namespaces`, ports: `${root}/ports.json` };
}

/**
 * Where deleted trees wait for their removal: `<root>/.removing`, root 0700, on the root's file system
 * so a tree is renamed there in one step. Nothing of an Agent's can reach inside.
 */
export function removalArea(root: string): string {
  return `${root}/.removing`;
}

/** A removal's names in the area: the tree and, beside it, its marker. */
export function removalLayout(root: string, token: string): { tree: string; marker: string } {
  const tree = `${removalArea(root)}/${token}`;
  return { tree, marker: `${tree}.json` };
}

/** The token of a removal marker's file name (16 hex digits), or null for any other name. */
export function removalOfMarkerFile(file: string): string | null {
  return /^[0-9a-f]{16}\.json$/.test(file) ? file.slice(0, 16) : null;
}

const ACCOUNT_MARKER_SUFFIX = '.json';

export function accountMarkerPath(root: string, account: string): string {
  return `${rootLayout(root).accounts}/${account}${ACCOUNT_MARKER_SUFFIX}`;
}

/** The account an account marker's file name is for, or null for any other file. */
export function accountOfMarkerFile(file: string): string | null {
  return file.endsWith(ACCOUNT_MARKER_SUFFIX) ? file.slice(0, -ACCOUNT_MARKER_SUFFIX.length) : null;
}

interface NamespaceLayout {
  dir: string;
  marker: string;
  agents: string;
}

export function namespaceLayout(root: string, namespaceId: string): NamespaceLayout {
  return namespaceLayoutAt(root, nsHash(namespaceId));
}

/** The layout of `namespaces/<name>`, whatever Namespace its marker turns out to name. */
export function namespaceLayoutAt(root: string, name: string): NamespaceLayout {
  const dir = `${rootLayout(root).namespaces}/${name}`;
  return { dir, marker: `${dir}/namespace.json`, agents: `${dir}/agents` };
}

/** Where a Namespace being deleted is renamed first, so it is never seen half removed under its own name. */
export function deletingNamespacePath(root: string, namespaceId: string): string {
  return `${rootLayout(root).namespaces}/.deleting-${nsHash(namespaceId)}`;
}

/** Where an Agent being deleted is renamed first, beside its live directory: never seen half removed, and no longer holding its port. */
export function deletingAgentPath(root: string, namespaceId: string, agentId: string): string {
  return `${namespaceLayout(root, namespaceId).agents}/.deleting-${agentHash(agentId)}`;
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
  /** The beforeWorkloadStart hooks' placeholders: root 0600, loaded by systemd, never in the world-readable unit. */
  launchEnvFile: string;
  revisions: string;
  current: string;
  served: string;
  /** The in-flight activation's claim: a random token, so a later operation that took over is seen. */
  activation: string;
  unitName: string;
  unitFile: string;
  setupUnitName: string;
}

const AGENT_MARKER = 'agent.json';

/** The directory `agents/<name>` of a Namespace and its marker, before the marker says whose it is. */
export function agentDirAt(agentsDir: string, name: string): { dir: string; marker: string } {
  const dir = `${agentsDir}/${name}`;
  return { dir, marker: `${dir}/${AGENT_MARKER}` };
}

export function agentLayout(root: string, unitDirectory: string, namespaceId: string, agentId: string): AgentLayout {
  return agentLayoutAt(agentDirAt(namespaceLayout(root, namespaceId).agents, agentHash(agentId)).dir, unitDirectory, agentId);
}

/** The paths of the Agent directory `dir` for the Agent its marker names, wherever that directory is. */
export function agentLayoutAt(dir: string, unitDirectory: string, agentId: string): AgentLayout {
  const unit = unitName(agentId);
  return {
    dir,
    marker: `${dir}/${AGENT_MARKER}`,
    home: `${dir}/home`,
    compileCache: `${dir}/home/.node-compile-cache`,
    state: `${dir}/state`,
    passwordFile: `${dir}/gateway-password.env`,
    operatorEnvFile: `${dir}/env`,
    launchEnvFile: `${dir}/launch.env`,
    revisions: `${dir}/revisions`,
    current: `${dir}/current`,
    served: `${dir}/served.json`,
    activation: `${dir}/activation`,
    unitName: unit,
    unitFile: `${unitDirectory}/${unit}`,
    setupUnitName: setupUnitName(agentId),
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
  return revisionLayoutAt(agentDir, revHash(revisionId));
}

/** The layout of `revisions/<name>`, whatever revision its marker turns out to be. */
export function revisionLayoutAt(agentDir: string, name: string): RevisionLayout {
  const dir = `${agentDir}/revisions/${name}`;
  return { dir, currentTarget: `revisions/${name}`, config: `${dir}/openclaw.json`, marker: `${dir}/revision.json` };
}
