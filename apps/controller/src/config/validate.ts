// Runs the strict schema over `drivers.compute.configuration` and turns zod issues into problems.
import { namespaceName } from '@occ-ssh/protocol';
import { z } from 'zod';
import { isMapping, type InstallationDocument } from './document.js';
import type { KeyPath, Problem } from './errors.js';
import { sshComputeConfigurationSchema } from './schema.js';

/** Where the SSH Compute settings sit in the Installation document. */
export const CONFIGURATION_PATH = ['drivers', 'compute', 'configuration'] as const;

type SshComputeConfigurationData = z.output<typeof sshComputeConfigurationSchema>;

const EXPECTED: Readonly<Record<string, string>> = {
  object: 'expected a mapping',
  record: 'expected a mapping',
  string: 'expected a string',
  number: 'expected an integer',
  int: 'expected an integer',
  boolean: 'expected true or false',
  array: 'expected a list',
};

/** Plain reasons for issues raised by schemas that carry no message of their own. */
const plainReasons: z.core.$ZodErrorMap = (issue) => {
  if (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value')) return 'is required';
  switch (issue.code) {
    case 'invalid_type':
      return EXPECTED[issue.expected] ?? `expected ${issue.expected}`;
    case 'too_small':
      return issue.origin === 'number' ? `expected an integer of at least ${String(issue.minimum)}` : undefined;
    case 'too_big':
      return issue.origin === 'number' ? `expected an integer of at most ${String(issue.maximum)}` : undefined;
    case 'invalid_value':
      return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_key':
      return `is not a Namespace name: ${issue.issues.map((inner) => inner.message).join('; ')}`;
    default:
      return undefined;
  }
};

function toProblems(document: InstallationDocument, issue: z.core.$ZodIssue): Problem[] {
  const path: KeyPath = [...CONFIGURATION_PATH, ...issue.path.map((part) => (typeof part === 'number' ? part : String(part)))];
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => document.problem([...path, key], 'unknown key', { at: 'key' }));
    case 'invalid_key':
      return [document.problem(path, issue.message, { at: 'key' })];
    default:
      return [document.problem(path, issue.message, { show: issue.code === 'invalid_type' ? 'all' : 'scalars' })];
  }
}

export type CheckResult = { readonly ok: true; readonly data: SshComputeConfigurationData } | { readonly ok: false; readonly problems: Problem[] };

/**
 * Security: zod's record drops a `__proto__` key without an issue, which would silently ignore
 * a host entry; it is refused here with the same reason as any other invalid Namespace name.
 */
function prototypeHostKey(document: InstallationDocument, configuration: unknown): Problem[] {
  const hosts = isMapping(configuration) ? configuration['hosts'] : undefined;
  if (!isMapping(hosts) || !Object.hasOwn(hosts, '__proto__')) return [];
  const reason = namespaceName.safeParse('__proto__').error?.issues[0]?.message ?? 'invalid';
  return [document.problem([...CONFIGURATION_PATH, 'hosts', '__proto__'], `is not a Namespace name: ${reason}`, { at: 'key' })];
}

/** Validates the selected SSH Compute configuration; every failing field becomes one problem. */
export function checkConfiguration(document: InstallationDocument, configuration: unknown): CheckResult {
  const result = sshComputeConfigurationSchema.safeParse(configuration, { error: plainReasons });
  const problems = [...prototypeHostKey(document, configuration), ...(result.success ? [] : result.error.issues.flatMap((issue) => toProblems(document, issue)))];
  return result.success && problems.length === 0 ? { ok: true, data: result.data } : { ok: false, problems };
}
