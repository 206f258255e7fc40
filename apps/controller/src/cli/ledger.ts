// A durable local record of each Agent's active revision, updated by compare-and-set.
// It stands in for OCC's database in the operator CLI: commit happens between prepare and activate.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { ComputeError } from '@occ-ssh/protocol';
import type { AgentRevision } from '../types.js';
import { withLockFile } from './lock-file.js';

export interface LedgerEntry {
  active: AgentRevision;
  previous: AgentRevision | null;
  committedAt: string;
  /** The workspace setup an activation completed, as OCC records it: later deploys send it `completed: true`. */
  workspaceSetupId?: string;
}

interface LedgerFile {
  version: 1;
  agents: Record<string, LedgerEntry>;
}

const LOCK_WAIT_MS = 10_000;

export function defaultLedgerPath(): string {
  const state = process.env.XDG_STATE_HOME ?? `${process.env.HOME ?? '/root'}/.local/state`;
  return `${state}/occ-ssh/ledger.json`;
}

export class Ledger {
  constructor(
    readonly path: string,
    /** How long to wait for another process's lock. */
    private readonly lockWaitMs = LOCK_WAIT_MS,
  ) {}

  read(): LedgerFile {
    try {
      const value = JSON.parse(readFileSync(this.path, 'utf8')) as LedgerFile;
      if (value.version !== 1 || typeof value.agents !== 'object') throw new Error('format');
      return value;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, agents: {} };
      throw new ComputeError('configuration', `ledger ${this.path} is not a valid ledger file`, { path: this.path });
    }
  }

  entry(namespaceId: string, agentId: string): LedgerEntry | undefined {
    return this.read().agents[key(namespaceId, agentId)];
  }

  /** Sets the Agent's active revision only if it is still `expected` (null: none yet). */
  async compareAndSet(revision: AgentRevision, expected: string | null): Promise<LedgerEntry> {
    return this.locked(() => {
      const file = this.read();
      const id = key(revision.namespaceId, revision.agentId);
      const current = file.agents[id];
      if ((current?.active.id ?? null) !== expected) {
        throw new ComputeError('conflict', `ledger conflict: Agent ${revision.agentId} moved to revision ${current?.active.id ?? 'none'} concurrently`, { path: this.path });
      }
      const entry: LedgerEntry = {
        active: revision,
        previous: current?.active ?? null,
        committedAt: new Date().toISOString(),
        ...(current?.workspaceSetupId ? { workspaceSetupId: current.workspaceSetupId } : {}),
      };
      if (current?.active.id === revision.id) entry.previous = current.previous;
      file.agents[id] = entry;
      this.write(file);
      return entry;
    });
  }

  /** Records the Agent's workspace setup complete, after the activation that required it; a no-op when the Agent is gone. */
  async completeWorkspaceSetup(namespaceId: string, agentId: string, setupId: string): Promise<void> {
    await this.locked(() => {
      const file = this.read();
      const entry = file.agents[key(namespaceId, agentId)];
      if (!entry) return;
      entry.workspaceSetupId = setupId;
      this.write(file);
    });
  }

  async remove(namespaceId: string, agentId?: string): Promise<void> {
    await this.locked(() => {
      const file = this.read();
      for (const id of Object.keys(file.agents)) {
        if (agentId ? id === key(namespaceId, agentId) : id.startsWith(`${namespaceId}/`)) delete file.agents[id];
      }
      this.write(file);
    });
  }

  private write(file: LedgerFile): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temp = `${this.path}.tmp-${process.pid}`;
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(file, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.path);
    const dir = openSync(dirname(this.path), 'r');
    fsyncSync(dir);
    closeSync(dir);
  }

  private async locked<T>(action: () => T): Promise<T> {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    try {
      return await withLockFile(`${this.path}.lock`, this.lockWaitMs, action);
    } catch (error) {
      if (error instanceof ComputeError && error.code === 'lock-timeout') throw new ComputeError('lock-timeout', `ledger ${this.path} is locked: ${error.message}`, error.details);
      throw error;
    }
  }
}

function key(namespaceId: string, agentId: string): string {
  return `${namespaceId}/${agentId}`;
}
