// prepare-revision: the Agent's account, port, directories and immutable snapshot.
// Leaves the unit, `current` and the running gateway untouched, so a failed OCC commit cuts nothing over.
import { sha256Hex, type RevisionMarker } from '@occ-ssh/markers';
import { ComputeError, type OperationArgs, type OperationResult } from '@occ-ssh/protocol';
import { ensureAccount } from '../accounts.js';
import { agentPaths, namespacePaths, revisionPaths, type OpContext } from '../context.js';
import { ROOT_PRIVATE_DIR, ensureDir, listDir, ownershipError, sweepTemps, writeFileAtomic } from '../fsx.js';
import { writeMarker } from '../marker-io.js';
import { agentOwnerFields, readAgent, readRevision, readRevisionDir, verifyNamespace, verifySnapshot } from '../ownership.js';
import { ensurePasswordFile } from '../password.js';
import { allocatePort } from '../ports.js';
import { isSuperseded } from '../revision-order.js';

type Args = OperationArgs<'prepare-revision'>;

export async function prepareRevision(ctx: OpContext, args: Args): Promise<OperationResult<'prepare-revision'>> {
  const { owner, revision, configuration } = args;
  if (sha256Hex(configuration.document) !== configuration.hash) {
    throw new ComputeError('configuration', 'configuration document does not match its hash');
  }
  verifyNamespace(namespacePaths(ctx, owner.namespace.id).marker, owner.namespace);
  const layout = agentPaths(ctx, owner);
  const existingAgent = readAgent(layout, owner);
  if (!existingAgent) refuseForeignLeftovers(layout.dir);

  const account = await ensureAccount(ctx, owner, layout.home);
  ctx.session.checkpoint();
  ensureDir(layout.dir, ROOT_PRIVATE_DIR);
  sweepTemps(layout.dir);
  let port = existingAgent?.port;
  if (existingAgent && (existingAgent.uid !== account.uid || existingAgent.gid !== account.gid || existingAgent.account !== account.name)) {
    throw ownershipError(layout.marker, 'Agent marker records a different account than the live one');
  }
  if (port === undefined) {
    port = allocatePort(ctx);
    ctx.session.checkpoint();
    writeMarker(layout.marker, { kind: 'agent', version: 1, ...agentOwnerFields(owner), account: account.name, uid: account.uid, gid: account.gid, port });
  }
  const agentDirOwner = { uid: account.uid, gid: account.gid, mode: 0o700 };
  ensureDir(layout.home, agentDirOwner, { repairMode: true });
  ensureDir(layout.state, agentDirOwner, { repairMode: true });
  ensureDir(layout.revisions, ROOT_PRIVATE_DIR);

  const result = { port, account };
  refuseSameNumber(args, layout);
  if (isSuperseded(layout, owner, revision)) return { ...result, ready: false, reason: 'superseded', snapshot: 'skipped' };
  if (configuration.auth !== 'trusted-proxy') {
    ctx.session.checkpoint();
    ensurePasswordFile(layout.passwordFile);
  }
  return { ...result, ready: true, snapshot: stageSnapshot(ctx, args, layout, account.gid) };
}

/** An Agent directory without its marker is only accepted when an interrupted prepare left it empty. */
function refuseForeignLeftovers(dir: string): void {
  const leftovers = listDir(dir).filter((name) => !name.startsWith('.'));
  if (leftovers.length > 0) throw ownershipError(dir, 'Agent directory exists without its Agent marker; refusing to adopt it');
}

/** The same number under a different revision ID is an ownership conflict. */
function refuseSameNumber(args: Args, layout: ReturnType<typeof agentPaths>): void {
  for (const name of listDir(layout.revisions)) {
    if (name.startsWith('.')) continue;
    const { marker } = readRevisionDir(layout, name, args.owner);
    if (marker && marker.revisionNumber === args.revision.number && marker.revisionId !== args.revision.id) {
      throw ownershipError(`${layout.revisions}/${name}/revision.json`, `revision number ${args.revision.number} is already staged under a different revision ID`);
    }
  }
}

/** Writes openclaw.json, then revision.json last: the marker is the commit point of a snapshot. */
function stageSnapshot(ctx: OpContext, args: Args, layout: ReturnType<typeof agentPaths>, gid: number): 'created' | 'verified' {
  const paths = revisionPaths(layout, args.revision);
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
  const existing = readRevision(paths, args.owner, args.revision);
  if (existing) {
    if (existing.configurationHash !== want.configurationHash || existing.auth !== want.auth) {
      throw ownershipError(paths.marker, 'revision is already staged with a different configuration');
    }
    verifySnapshot(paths, existing, gid);
    return 'verified';
  }
  ctx.session.checkpoint();
  ensureDir(paths.dir, ROOT_PRIVATE_DIR);
  sweepTemps(paths.dir);
  writeFileAtomic(paths.config, args.configuration.document, { uid: 0, gid, mode: 0o640 });
  ctx.session.checkpoint();
  writeMarker(paths.marker, want);
  return 'created';
}
