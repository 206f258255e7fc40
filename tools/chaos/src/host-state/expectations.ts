// What "converged" means after each mutating operation succeeded: the intended host state,
// judged on the Listing taken before the trial and the one taken after the retry. Pure.
import { canonicalJson, nsHash, sha256Hex, workspaceSetupMarker } from '@occ-ssh/markers';
import type { AgentOwner, MutatingOperation, OperationArgs } from '@occ-ssh/protocol';
import { agentDeleted, namespaceDeleted, namespaceEnsured } from './converged-removals.js';
import { revisionActivated, revisionPrepared, revisionStoppedOrRetired } from './converged-revisions.js';
import type { Listing } from '../host/listing.js';
import { buildModel, type HostModel } from './model.js';
import { agentOf, type Views } from './views.js';

export type { MutatingOperation } from '@occ-ssh/protocol';

export type MutatingArgs = {
  [O in MutatingOperation]: { operation: O; args: OperationArgs<O> };
}[MutatingOperation];

/** What each mutating operation's intended state is, as a check of the views before and after. */
const CONVERGED: { [O in MutatingOperation]: (args: OperationArgs<O>, views: Views) => string[] } = {
  'ensure-namespace': namespaceEnsured,
  'prepare-revision': revisionPrepared,
  'activate-revision': revisionActivated,
  'stop-revision': revisionStoppedOrRetired,
  'retire-revision': revisionStoppedOrRetired,
  'delete-agent': agentDeleted,
  'delete-namespace': namespaceDeleted,
  'setup-workspace': (args, { now, after }) => setupProblems(args, now, after),
};

/** The problems that keep `after` from being the intended state of `op`; empty when converged. */
export function convergenceProblems(op: MutatingArgs, before: Listing, after: Listing): string[] {
  const views: Views = { operation: op.operation, before, after, was: buildModel(before), now: buildModel(after) };
  const check = CONVERGED[op.operation] as (args: OperationArgs<MutatingOperation>, views: Views) => string[];
  return [...new Set(check(op.args, views))];
}

/**
 * setup-workspace converged: the marker records exactly this setup, every document is the submitted
 * text, no native-setup unit is left running or failed, and no scratch or temp file is left in state/
 * or the Agent directory. (That activation then succeeds is the lanes' next step.)
 */
function setupProblems(args: OperationArgs<'setup-workspace'>, now: HostModel, after: Listing): string[] {
  const problems: string[] = [];
  const agent = agentOf(now, args.owner);
  if (!agent) return ['the Agent directory is missing'];
  const dir = `namespaces/${nsHash(args.owner.namespace.id)}/agents/${agent.dirName}`;
  const text = now.byPath.get(`${dir}/workspace-setup.json`)?.text;
  const parsed = text === undefined ? undefined : parseMarker(text);
  const digests = Object.fromEntries(args.setup.documents.map((document) => [document.name, sha256Hex(document.content)]));
  if (text === undefined) problems.push('the workspace setup marker is missing');
  else if (!parsed) problems.push('the workspace setup marker does not parse');
  else {
    if (parsed.namespaceId !== args.owner.namespace.id || parsed.agentId !== args.owner.agent.id) problems.push('the workspace setup marker names another Agent');
    if (parsed.setupId !== args.setup.id) problems.push(`the workspace setup marker records ${parsed.setupId}, not ${args.setup.id}`);
    if (canonicalJson(parsed.documents) !== canonicalJson(digests)) problems.push('the workspace setup marker records other document digests');
  }
  for (const [name, digest] of Object.entries(digests)) {
    const entry = now.byPath.get(`${dir}/state/workspace/${name}`);
    if (entry?.type !== 'file' || entry.sha256 !== digest) problems.push(`${name} is not the submitted text`);
  }
  for (const unit of after.setupUnits) {
    if (unit.activeState !== 'inactive') problems.push(`native-setup unit ${unit.name} is ${unit.activeState}`);
  }
  for (const entry of after.entries) {
    if (!entry.path.startsWith(`${dir}/`)) continue;
    const rest = entry.path.slice(dir.length + 1);
    if (rest === 'state/.occ-workspace-setup' || rest.startsWith('state/.occ-workspace-setup/')) problems.push(`the scratch configuration is left: ${rest}`);
    else if (/^state\/workspace\/\.[^/]*\.occ-/.test(rest)) problems.push(`a document temp is left: ${rest}`);
    else if (rest.startsWith('.workspace-setup.json')) problems.push(`a marker temp is left: ${rest}`);
  }
  return problems;
}

function parseMarker(text: string) {
  try {
    const parsed = workspaceSetupMarker.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The gateway port of an Agent in a listing, if it has one. */
export function portOf(listing: Listing, owner: AgentOwner): number | undefined {
  return agentOf(buildModel(listing), owner)?.marker?.marker?.port;
}
