// deploy's workspace documents: read from a directory or named files, as OCC would stage them, and
// handed to the driver as a pending WorkspaceSetup. Contents are never printed.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ComputeError, isWorkspaceFileName, MAX_WORKSPACE_FILE_BYTES, WORKSPACE_FILE_NAMES } from '@occ-ssh/protocol';
import type { AgentRevision, ComputeRevisionContext } from '../types.js';
import { UsageError, type CliOptions } from './args.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function readDocument(path: string): string {
  let bytes: Buffer;
  try {
    // Bounded before reading: a larger file is refused by admission anyway, so it is never read whole.
    if (statSync(path).size > MAX_WORKSPACE_FILE_BYTES) throw new ComputeError('admission', `${path}: exceeds ${MAX_WORKSPACE_FILE_BYTES} bytes of UTF-8`, { path });
    bytes = readFileSync(path);
  } catch (error) {
    if (error instanceof ComputeError) throw error;
    throw new ComputeError('configuration', `${path}: the workspace document could not be read`, { path });
  }
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new ComputeError('admission', `${path}: is not valid UTF-8`, { path });
  }
}

/** The documents named by --workspace (each of the four it holds) and --workspace-file (named for its document); undefined when neither is given. */
export function workspaceFilesFrom(options: CliOptions): Record<string, string> | undefined {
  if (options.workspace === undefined && options.workspaceFiles === undefined) return undefined;
  const paths = new Map<string, string>();
  if (options.workspace !== undefined) {
    for (const name of WORKSPACE_FILE_NAMES) if (existsSync(join(options.workspace, name))) paths.set(name, join(options.workspace, name));
  }
  for (const path of options.workspaceFiles ?? []) {
    const name = basename(path);
    if (!isWorkspaceFileName(name)) throw new UsageError(`--workspace-file ${path}: the file must be named ${WORKSPACE_FILE_NAMES.join(', ')}`);
    if (paths.has(name) && paths.get(name) !== path) throw new UsageError(`--workspace-file ${path}: ${name} is given twice`);
    paths.set(name, path);
  }
  if (paths.size === 0) throw new UsageError(`--workspace ${options.workspace}: holds none of ${WORKSPACE_FILE_NAMES.join(', ')}`);
  return Object.fromEntries([...paths].map(([name, path]) => [name, readDocument(path)]));
}

/**
 * The setup OCC would hand over. Its id is derived from the Agent and the documents: a retry of the
 * same deploy is recognised on the host. Once the ledger records a setup complete, every later deploy
 * sends that setup with `completed: true` and no documents, so the host verifies its marker and never
 * replays it; other documents then are refused (the workspace is the user's, edited through the gateway).
 */
export function workspaceContext(revision: AgentRevision, files: Record<string, string> | undefined, completedId: string | undefined): ComputeRevisionContext | undefined {
  const base = { harnessAuth: revision.harnessAuth, secretEnvironment: [] };
  const agent = { namespaceId: revision.namespaceId, agentId: revision.agentId };
  if (completedId !== undefined) {
    if (files && setupIdOf(revision, files) !== completedId) {
      throw new UsageError(`Agent ${revision.agentId} completed its workspace setup with other documents; they are the user's now: deploy without --workspace and --workspace-file`);
    }
    return { ...base, workspaceSetup: { id: completedId, ...agent, completed: true } };
  }
  if (!files) return undefined;
  return { ...base, workspaceSetup: { id: setupIdOf(revision, files), ...agent, files, completed: false } };
}

function setupIdOf(revision: AgentRevision, files: Record<string, string>): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([revision.namespaceId, revision.agentId, Object.entries(files).sort()]))
    .digest('hex');
  return `cli-${digest.slice(0, 32)}`;
}
