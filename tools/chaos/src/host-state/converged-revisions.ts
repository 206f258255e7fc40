// What converged means after each revision operation, judged on the models before the trial and after the retry. Pure.
import { revHash, unitName } from '@occ-ssh/markers';
import type { OperationArgs } from '@occ-ssh/protocol';
import { currentRevision } from './model.js';
import { agentOf, type Views } from './views.js';

/** The Agent, its account and the revision are staged; nothing that serves changed. */
export function revisionPrepared(args: OperationArgs<'prepare-revision'>, { was, now, after }: Views): string[] {
  const problems: string[] = [];
  const { owner, revision, configuration } = args;
  const agent = agentOf(now, owner);
  const marker = agent?.marker?.marker;
  if (!agent || !marker) {
    problems.push('Agent marker is missing');
    return problems;
  }
  if (marker.servicePrincipalId !== owner.servicePrincipal.id) problems.push('Agent marker names another ServicePrincipal');
  const account = now.accounts.get(marker.account)?.marker;
  if (account?.state !== 'active') problems.push('account marker is not active');
  if (!after.users.some((user) => user.name === marker.account && user.uid === marker.uid)) problems.push('account user is missing');
  if (agent.home?.type !== 'dir' || agent.state?.type !== 'dir') problems.push('home/ or state/ is missing');
  if (configuration.auth !== 'trusted-proxy' && agent.password?.type !== 'file') problems.push('managed password file is missing');
  const staged = agent.revisions.get(revHash(revision.id));
  const rm = staged?.marker?.marker;
  if (!rm) problems.push('revision marker is missing');
  else {
    if (rm.revisionId !== revision.id || rm.revisionNumber !== revision.number || rm.configurationHash !== configuration.hash) problems.push('revision marker records another revision');
    if (staged.config?.sha256 !== configuration.hash) problems.push('snapshot bytes differ from the document');
  }
  // Preparation never cuts over: current, served.json and the unit are what they were.
  const previous = agentOf(was, owner);
  if ((previous ? currentRevision(previous) : null) !== currentRevision(agent)) problems.push('prepare changed current');
  if ((previous?.served?.entry.text ?? null) !== (agent.served?.entry.text ?? null)) problems.push('prepare changed served.json');
  const unit = unitName(owner.agent.id);
  if (was.units.has(unit) !== now.units.has(unit)) problems.push('prepare created or removed the unit file');
  return problems;
}

/** current, served.json, the unit and /readyz all name the revision. */
export function revisionActivated(args: OperationArgs<'activate-revision'>, { now, after }: Views): string[] {
  const problems: string[] = [];
  const { owner, revision } = args;
  const agent = agentOf(now, owner);
  const marker = agent?.marker?.marker;
  if (!agent || !marker) {
    problems.push('Agent marker is missing');
    return problems;
  }
  if (currentRevision(agent) !== revHash(revision.id)) problems.push(`current does not point at ${revision.id}`);
  const served = agent.served?.marker;
  if (!served || served.revisionId !== revision.id || served.configurationHash !== args.configurationHash) problems.push(`served.json does not name ${revision.id}`);
  const unit = now.units.get(unitName(owner.agent.id));
  if (!unit) problems.push('unit file is missing');
  else {
    if (unit.activeState !== 'active') problems.push(`unit is ${unit.activeState}, not active`);
    if (unit.unitFileState !== 'enabled') problems.push(`unit is ${unit.unitFileState}, not enabled`);
  }
  if (after.ready[String(marker.port)] !== true) problems.push(`/readyz on port ${marker.port} did not answer 200`);
  return problems;
}

/** The revision no longer serves (when it was current); retire removed it and nothing else. */
export function revisionStoppedOrRetired(args: OperationArgs<'stop-revision' | 'retire-revision'>, { was, now, operation }: Views): string[] {
  const problems: string[] = [];
  const { owner, revision } = args;
  const previous = agentOf(was, owner);
  const agent = agentOf(now, owner);
  if (!previous?.marker?.marker) return problems; // nothing to stop or retire: the helper answers without effects
  const target = revHash(revision.id);
  const wasCurrent = currentRevision(previous) === target || (operation === 'stop-revision' && currentRevision(previous) === null);
  if (!agent) {
    problems.push('the Agent disappeared');
    return problems;
  }
  if (wasCurrent) {
    if (agent.current) problems.push('current is still present');
    if (agent.served) problems.push('served.json is still present');
    const unit = now.units.get(unitName(owner.agent.id));
    if (unit && (unit.activeState === 'active' || unit.activeState === 'activating' || unit.unitFileState === 'enabled')) problems.push(`unit is still ${unit.activeState}/${unit.unitFileState}`);
  } else if (currentRevision(previous) !== currentRevision(agent)) problems.push('the current pointer of another revision changed');
  if (operation === 'retire-revision') {
    if (agent.revisions.has(target)) problems.push('the retired revision directory is still present');
    for (const name of previous.revisions.keys())
      if (name !== target && previous.revisions.get(name)?.marker && !agent.revisions.get(name)?.marker) problems.push(`another revision ${name} was removed`);
  } else if (previous.revisions.get(target)?.marker && !agent.revisions.get(target)?.marker) problems.push('stop removed the snapshot');
  if (agent.home?.type !== 'dir' || agent.state?.type !== 'dir') problems.push('home/ or state/ was removed');
  return problems;
}
