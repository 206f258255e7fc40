// Finds the Compute selection in an Installation and decides whether it is ours to validate.
import { DRIVER_ID } from '@occ-ssh/protocol';
import { PACKAGE_NAME } from '../version.js';
import { isMapping, type InstallationDocument } from './document.js';
import { truncate, type Problem } from './errors.js';

const COMPUTE_KEYS = new Set(['id', 'package', 'configuration']);

export interface Selection {
  /** The raw `drivers.compute.configuration` when `compute-ssh` is selected; undefined otherwise. */
  readonly configuration?: unknown;
  readonly problems: Problem[];
}

/** Why a Compute id other than `compute-ssh` is not served by this package. */
function foreignCompute(id: string): string {
  const quoted = truncate(JSON.stringify(id));
  return id.includes('/') || id.includes('@')
    ? `${quoted} names a Compute driver package, which this package does not provide (SSH Compute is selected with "${DRIVER_ID}")`
    : `${quoted} selects Kubernetes Compute, which this package does not provide`;
}

/**
 * Selects `drivers.compute` for SSH Compute. Other top-level keys and other drivers belong to
 * OCC and are not validated here, except a Sandbox driver, which SSH Compute refuses to compose with.
 */
export function selectSshCompute(document: InstallationDocument): Selection {
  const root = document.value;
  if (root === null || root === undefined) {
    return { problems: [document.problem([], 'is empty; expected a mapping that selects drivers.compute', { show: 'none' })] };
  }
  if (!isMapping(root)) return { problems: [document.problem([], 'expected a mapping', { show: 'all' })] };
  const drivers = root['drivers'];
  if (drivers === undefined) {
    return { problems: [document.problem(['drivers', 'compute'], `is required: select SSH Compute with id "${DRIVER_ID}"`)] };
  }
  if (!isMapping(drivers)) return { problems: [document.problem(['drivers'], 'expected a mapping', { show: 'all' })] };

  const problems: Problem[] = [];
  if (drivers['sandbox'] !== undefined && drivers['sandbox'] !== null) {
    problems.push(document.problem(['drivers', 'sandbox'], 'SSH Compute does not compose with a Sandbox driver', { at: 'key' }));
  }
  const compute = drivers['compute'];
  if (compute === undefined) {
    problems.push(document.problem(['drivers', 'compute'], `is required: select SSH Compute with id "${DRIVER_ID}"`));
    return { problems };
  }
  if (!isMapping(compute)) {
    problems.push(document.problem(['drivers', 'compute'], 'expected a mapping', { show: 'all' }));
    return { problems };
  }
  for (const key of Object.keys(compute).filter((name) => !COMPUTE_KEYS.has(name))) {
    problems.push(document.problem(['drivers', 'compute', key], 'unknown key', { at: 'key' }));
  }
  const id = compute['id'];
  if (typeof id !== 'string') {
    const reason = id === undefined ? `is required: select SSH Compute with "${DRIVER_ID}"` : 'expected a string';
    problems.push(document.problem(['drivers', 'compute', 'id'], reason, { show: 'all' }));
    return { problems };
  }
  // Selected as a package, any id is OCC's selection id; without one, only compute-ssh is ours.
  const pkg = compute['package'];
  if (pkg !== undefined && pkg !== PACKAGE_NAME) {
    problems.push(document.problem(['drivers', 'compute', 'package'], `names another driver package; this one is "${PACKAGE_NAME}"`, { show: 'all' }));
    return { problems };
  }
  if (pkg === undefined && id !== DRIVER_ID) {
    problems.push(document.problem(['drivers', 'compute', 'id'], foreignCompute(id), { at: 'key' }));
    return { problems };
  }
  const configuration = compute['configuration'];
  if (configuration === undefined) {
    problems.push(document.problem(['drivers', 'compute', 'configuration'], 'is required'));
    return { problems };
  }
  return { configuration, problems };
}
