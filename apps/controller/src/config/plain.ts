// The parsed `drivers.compute.configuration` object OCC hands a driver package, validated with
// the same strict schema and the same key-path problems as the YAML Installation (without lines).
import { configurationError, describeValue, type KeyPath, type Problem } from './errors.js';
import { deepFreeze } from './load.js';
import type { SshComputeConfiguration } from './schema.js';
import { valueAt, type InstallationDocument, type ProblemOptions } from './document.js';
import { CONFIGURATION_PATH, checkConfiguration, type CheckResult } from './validate.js';

/** Wraps plain data as a document rooted at the Installation, so problems name the full key path. */
function plainDocument(value: unknown): InstallationDocument {
  return {
    value,
    problem(path: KeyPath, reason: string, options: ProblemOptions = {}): Problem {
      const show = (options.at ?? 'value') === 'key' ? 'none' : (options.show ?? 'scalars');
      const current = show === 'none' ? undefined : valueAt(value, path);
      const scalar = current === null || (typeof current !== 'object' && current !== undefined);
      const shown = scalar || show === 'all' ? describeValue(current) : undefined;
      return { path, reason, ...(shown === undefined ? {} : { shown }) };
    },
  };
}

/** Checks an already-parsed configuration object as if it sat at drivers.compute.configuration. */
function checkPlainConfiguration(configuration: unknown): CheckResult {
  const root = { drivers: { compute: { configuration } } } satisfies Record<(typeof CONFIGURATION_PATH)[0], unknown>;
  return checkConfiguration(plainDocument(root), configuration);
}

/** The validated, defaulted and frozen configuration; throws one permanent `configuration` error listing every problem. */
export function parseConfiguration(configuration: unknown): SshComputeConfiguration {
  const checked = checkPlainConfiguration(configuration);
  if (!checked.ok) throw configurationError(checked.problems);
  return deepFreeze(checked.data);
}
