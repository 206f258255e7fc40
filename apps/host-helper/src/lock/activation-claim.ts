// Activation waits for readiness without the host lock; this is how it knows, once it has the lock
// again, that no later operation on the Agent took over meanwhile.
import { randomBytes } from 'node:crypto';
import type { AgentLayout, AgentMarker, RevisionLayout } from '@occ-ssh/markers';
import { ComputeError, type AgentOwner } from '@occ-ssh/protocol';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { readAgent, readCurrent, readRevision, verifyUnitFile } from '../fs/ownership.js';
import { ROOT_FILE, readOwnedFile } from '../fs/safe-read.js';

/** What one activation set under the lock before it let go of it. */
interface ActivationClaim {
  token: string;
  agent: AgentMarker;
  revision: RevisionLayout;
  configurationHash: string;
  unitText: string;
}

/** Writes a fresh token at the Agent's `activation` path: any later activation overwrites it with its own. */
export function stakeToken(path: string): string {
  const token = randomBytes(16).toString('hex');
  writeFileAtomic(path, `${token}\n`, ROOT_FILE);
  return token;
}

/**
 * Under the lock again: `current`, the unit file, the Agent and revision markers and the token must
 * all still be what this activation set. A stop, retire, delete or newer activation of the Agent in
 * between changed one of them, and the later operation wins: this one ends with a retryable conflict
 * and writes nothing. A marker that became unreadable is named the same way; the retry reports it.
 */
export function verifyClaim(layout: AgentLayout, owner: AgentOwner, claim: ActivationClaim): void {
  const changed = (what: string) =>
    new ComputeError('conflict', `${what} changed while activation waited for readiness without the host lock; a later operation on the Agent took over`, { path: layout.dir });
  let changedPath: string | undefined;
  try {
    const token = readOwnedFile(layout.activation, ROOT_FILE)?.toString('utf8').trim();
    if (!sameAgent(readAgent(layout, owner), claim.agent)) changedPath = layout.marker;
    else if (readRevision(claim.revision, owner)?.configurationHash !== claim.configurationHash) changedPath = claim.revision.marker;
    else if (readCurrent(layout) !== claim.revision.currentTarget) changedPath = layout.current;
    else if (verifyUnitFile(layout, owner) !== claim.unitText) changedPath = layout.unitFile;
    else if (token !== claim.token) changedPath = `${layout.activation} (another activation of the same revision)`;
  } catch (error) {
    const path = error instanceof ComputeError ? error.details.path : undefined;
    throw changed(path ?? layout.dir);
  }
  if (changedPath) throw changed(changedPath);
}

function sameAgent(now: AgentMarker | null, then: AgentMarker): boolean {
  return now !== null && now.uid === then.uid && now.gid === then.gid && now.port === then.port && now.account === then.account;
}
