// prepare-revision: the Agent's account, port, directories and immutable snapshot.
// Leaves the unit, `current` and the running gateway untouched, so a failed OCC commit cuts nothing over.
// Everything it relies on is verified before its first change.
import { sha256Hex, type AgentMarker, type RevisionMarker } from '@occ-ssh/markers';
import { ComputeError, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { ensureAccount, verifyAccount, type Account } from '../accounts.js';
import { createDirAtomic, ensureDir, parentOf, sweepTemps, TEMP_MARK, writeFileAtomic } from '../atomic-write.js';
import { agentPaths, namespacePaths, revisionPaths, type OpContext } from '../context.js';
import { writeMarker } from '../marker-io.js';
import { agentOwnerFields, readAgent, readRevision, readRevisionDir, verifyNamespace, verifySnapshot, verifyUnitFile } from '../ownership.js';
import { ensurePasswordFile, requirePasswordFile } from '../password.js';
import { allocatePort } from '../ports.js';
import { isSuperseded } from '../revision-order.js';
import { ROOT_PRIVATE_DIR, listDir, lstatOrNull, ownershipError } from '../safe-read.js';

type Args = OperationArgs<'prepare-revision'>;
type Layout = ReturnType<typeof agentPaths>;

export async function prepareRevision(ctx: OpContext, args: Args): Promise<OperationResult<'prepare-revision'>> {
  const { owner, revision, configuration } = args;
  if (sha256Hex(configuration.document) !== configuration.hash) {
    throw new ComputeError('configuration', 'configuration document does not match its hash');
  }
  verifyNamespace(namespacePaths(ctx, owner.namespace.id).marker, owner.namespace);
  const layout = agentPaths(ctx, owner);
  const existingAgent = readAgent(layout, owner);
  if (!existingAgent) refuseForeignLeftovers(layout.dir);
  verifyUnitFile(layout, owner);
  const { account, port } = existingAgent ? await knownAgent(ctx, args, layout, existingAgent) : await newAgent(ctx, args, layout);

  const result = { port, account };
  const paths = revisionPaths(layout, revision);
  const staged = verifyStaged(args, layout, paths, account.gid);
  if (isSuperseded(layout, owner, revision)) return { ...result, ready: false, reason: 'superseded', snapshot: 'skipped' };
  requirePasswordFile(layout.passwordFile); // one that exists must be root's 0600 before anything changes

  sweepTemps(layout.dir);
  const agentDirOwner = { uid: account.uid, gid: account.gid, mode: 0o700 };
  ensureDir(layout.home, agentDirOwner, { repairMode: true });
  ensureDir(layout.state, agentDirOwner, { repairMode: true });
  ensureDir(layout.revisions, ROOT_PRIVATE_DIR);
  if (configuration.auth !== 'trusted-proxy') {
    ensurePasswordFile(layout.passwordFile);
  }
  return { ...result, ready: true, snapshot: staged ? 'verified' : stageSnapshot(ctx, args, paths, account.gid) };
}

/** Security: an Agent with a marker must still have exactly the account it recorded; none is created for it. */
async function knownAgent(ctx: OpContext, args: Args, layout: Layout, agent: AgentMarker): Promise<{ account: Account; port: number }> {
  ensureDir(layout.dir, ROOT_PRIVATE_DIR);
  const account = await verifyAccount(ctx, args.owner);
  if (agent.uid !== account.uid || agent.gid !== account.gid || agent.account !== account.name) {
    throw ownershipError(layout.marker, 'Agent marker records a different account than the live one');
  }
  return { account, port: agent.port };
}

/** A new Agent: the port is chosen before any change, then the account and the directory with its marker. */
async function newAgent(ctx: OpContext, args: Args, layout: Layout): Promise<{ account: Account; port: number }> {
  const port = allocatePort(ctx, layout.dir);
  const account = await ensureAccount(ctx, args.owner, layout.home);
  sweepTemps(parentOf(layout.dir), `.${layout.dir.slice(parentOf(layout.dir).length + 1)}`);
  sweepTemps(layout.dir);
  const marker: AgentMarker = { kind: 'agent', version: 1, ...agentOwnerFields(args.owner), account: account.name, uid: account.uid, gid: account.gid, port };
  createDirAtomic(layout.dir, ROOT_PRIVATE_DIR, (dir) => writeMarker(`${dir}${layout.marker.slice(layout.dir.length)}`, marker));
  return { account, port };
}

/** An Agent directory without its marker is only accepted empty but for temp files (an interrupted prepare of an older helper). */
function refuseForeignLeftovers(dir: string): void {
  const stat = lstatOrNull(dir);
  if (stat && !stat.isDirectory()) throw ownershipError(dir, 'expected a directory; refusing to follow or replace it');
  const leftovers = listDir(dir).filter((name) => !(name.startsWith('.') && name.includes(TEMP_MARK)));
  if (leftovers.length > 0) throw ownershipError(dir, 'Agent directory exists without its Agent marker; refusing to adopt it');
}

/**
 * Checks every staged snapshot of the Agent: each must be its own, and the same number under a
 * different revision ID is an ownership conflict. True when this exact revision is staged intact.
 */
function verifyStaged(args: Args, layout: Layout, paths: ReturnType<typeof revisionPaths>, gid: number): boolean {
  for (const name of listDir(layout.revisions)) {
    if (name.startsWith('.')) continue;
    const { marker } = readRevisionDir(layout, name, args.owner);
    if (marker && marker.revisionNumber === args.revision.number && marker.revisionId !== args.revision.id) {
      throw ownershipError(`${layout.revisions}/${name}/revision.json`, `revision number ${args.revision.number} is already staged under a different revision ID`);
    }
  }
  const existing = readRevision(paths, args.owner, args.revision);
  if (!existing) return false;
  if (existing.configurationHash !== args.configuration.hash || existing.auth !== args.configuration.auth) {
    throw ownershipError(paths.marker, 'revision is already staged with a different configuration');
  }
  verifySnapshot(paths, existing, gid);
  return true;
}

/** Writes openclaw.json, then revision.json last: the marker is the commit point of a snapshot. */
function stageSnapshot(ctx: OpContext, args: Args, paths: ReturnType<typeof revisionPaths>, gid: number): 'created' {
  const want: RevisionMarker = {
    kind: 'revision',
    version: 1,
    ...agentOwnerFields(args.owner),
    revisionId: args.revision.id,
    revisionNumber: args.revision.number,
    configurationHash: args.configuration.hash,
    harness: args.harness,
    auth: args.configuration.auth,
  };
  ensureDir(paths.dir, ROOT_PRIVATE_DIR);
  sweepTemps(paths.dir);
  writeFileAtomic(paths.config, args.configuration.document, { uid: 0, gid, mode: 0o640 });
  writeMarker(paths.marker, want);
  return 'created';
}
