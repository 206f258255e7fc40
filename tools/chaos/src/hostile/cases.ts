// Every hostile case, in the order the section runs them (a case's index names its Namespace and Agent).
import { ACCOUNT_CASES } from './account-cases.js';
import { AGENT_STATE_CASES } from './agent-state-cases.js';
import type { HostileCase } from './case.js';
import { LINK_CASES } from './link-cases.js';
import { MARKER_CASES } from './marker-cases.js';

export const CASES: readonly HostileCase[] = [...MARKER_CASES, ...ACCOUNT_CASES, ...AGENT_STATE_CASES, ...LINK_CASES];
