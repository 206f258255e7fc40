// Loads the trusted Installation document and returns the frozen SSH Compute configuration.
import { readFileSync } from 'node:fs';
import { readDocument } from './document.js';
import { configurationError, unreadableFileError } from './errors.js';
import type { SshComputeConfiguration } from './schema.js';
import { selectSshCompute } from './select.js';
import { checkConfiguration } from './validate.js';

/** The Installation as text (with the file it came from, for error details) or as a file to read. */
export type InstallationSource = { readonly text: string; readonly path?: string } | { readonly path: string };

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function readInstallationFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadableFileError(path, error);
  }
}

/**
 * Parses the Installation YAML, selects `drivers.compute` for SSH Compute and validates its
 * configuration strictly. Synchronous: it runs once at API or worker startup, before any host work.
 * Throws one permanent `configuration` ComputeError listing every problem, in document order.
 */
export function loadInstallationConfiguration(source: InstallationSource): SshComputeConfiguration {
  const text = 'text' in source ? source.text : readInstallationFile(source.path);
  const read = readDocument(text);
  if (!read.ok) throw configurationError(read.problems, source.path);

  const selection = selectSshCompute(read.document);
  const checked = selection.configuration === undefined ? undefined : checkConfiguration(read.document, selection.configuration);
  const problems = [...selection.problems, ...(checked && !checked.ok ? checked.problems : [])];
  if (problems.length > 0 || !checked?.ok) throw configurationError(problems, source.path);
  return deepFreeze(checked.data);
}
