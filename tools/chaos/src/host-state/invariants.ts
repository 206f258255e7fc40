// The host invariants every interruption must preserve, judged on one Listing. Pure.
// A violation breaks a promise; a pending item is a documented intermediate state (an
// unfinished deletion, an account still being created) that the next retry must clear.
import { nsHash } from '@occ-ssh/markers';
import type { Listing } from '../host/listing.js';
import { checkAgent } from './agent-invariants.js';
import { checkAccounts, checkDistinct, checkUnits } from './host-wide-invariants.js';
import { newJudge, type InvariantSettings, type Verdict } from './judge.js';

export type { InvariantSettings, Rule, Verdict, Violation } from './judge.js';

export function checkInvariants(listing: Listing, settings: InvariantSettings): Verdict {
  const j = newJudge(listing, settings);
  const { model, add, pending, markerOk } = j;
  const root = listing.root;

  if (listing.quiet.timedOut) add('helper-running', root, `a helper was still running after ${listing.quiet.waitedMs} ms: ${listing.quiet.helpers.join('; ')}`);
  if (!listing.lock.free) add('lock', `${root}/.compute-lock`, 'flock --nonblock could not take the lock once no helper was left');
  for (const temp of model.temps) add('temp-file', temp, 'temporary file left behind');

  for (const ns of model.namespaces.values()) {
    const nsPath = `${root}/namespaces/${ns.dirName}`;
    if (!ns.marker) {
      if (ns.agents.size > 0) add('marker', `${nsPath}/namespace.json`, 'Namespace directory holds Agents but has no Namespace marker');
      else pending.push(`${nsPath}: Namespace directory without its marker yet`);
    } else if (markerOk(ns.marker, `${nsPath}/namespace.json`) && nsHash(ns.marker.marker.namespaceId) !== ns.dirName) {
      add('marker-owner', `${nsPath}/namespace.json`, `namespaceId ${ns.marker.marker.namespaceId} does not hash to the directory name`);
    }
    const namespaceId = ns.marker?.marker?.namespaceId;
    for (const agent of ns.agents.values()) checkAgent(j, agent, namespaceId, `${nsPath}/agents/${agent.dirName}`);
  }
  for (const name of model.deleting) pending.push(`${root}/namespaces/${name}: ${name.includes('/agents/') ? 'Agent' : 'Namespace'} removal not finished`);
  for (const { path } of model.removals) pending.push(`${root}/${path}: removal not finished`);

  checkAccounts(model, listing, settings, add, pending);
  checkUnits(model, listing, add);
  checkDistinct(model, add, root);
  return { violations: j.violations, pending };
}
