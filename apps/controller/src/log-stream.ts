// A read-logs follow's entries arrive on the helper's output before its result line: this executor
// passes every call through and hands each follow's log-entries lines to the caller that named its stream.
import { logEntriesReader } from '@occ-ssh/helper-call';
import type { LogEntry } from '@occ-ssh/protocol';
import type { CommandExecutor, ExecuteRequest, ExecuteResult } from './transport/executor.js';

export class LogStreams implements CommandExecutor {
  private readonly listeners = new Map<string, (entries: LogEntry[]) => void>();

  constructor(private readonly inner: CommandExecutor) {}

  /** Routes the lines of `stream` to `onEntries` until the returned function is called. */
  listen(stream: string, onEntries: (entries: LogEntry[]) => void): () => void {
    this.listeners.set(stream, onEntries);
    return () => this.listeners.delete(stream);
  }

  execute(request: ExecuteRequest): Promise<ExecuteResult> {
    if (this.listeners.size === 0) return this.inner.execute(request);
    const read = logEntriesReader((line) => this.listeners.get(line.stream)?.(line.entries));
    return this.inner.execute({
      ...request,
      onStdout: (chunk) => {
        request.onStdout?.(chunk);
        read(chunk);
      },
    });
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
