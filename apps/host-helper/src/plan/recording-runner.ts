// A runner for unit tests: it runs nothing, records each command in order, and answers from a script,
// so a test can hand `apply` a plan and assert exactly which programs it would start, with no host.
import { guardChanges } from '../run/change-guard.js';
import type { Command } from '../run/commands.js';
import type { OpContext } from '../context/context.js';
import type { ChildOptions, CommandResult, HostRunner } from '../run/system.js';
import type { UidHolders } from '../run/uid-holders.js';

/** What the script answers for one command; undefined: exit code 0 and no output. */
type Script = (command: Command, stdin?: string) => Partial<CommandResult> | undefined;

export class RecordingRunner implements HostRunner {
  /** Each command as `file arg arg ...`, in the order it was given; a program text (an argument with a newline) as `<program>`. */
  readonly commands: string[] = [];

  constructor(private readonly script: Script = () => undefined) {}

  run(command: Command): Promise<CommandResult> {
    return Promise.resolve({ code: 0, stdout: '', stderr: '', ...this.record(command) });
  }

  runChild(command: Command, options: ChildOptions): Promise<{ code: number; stdout: string }> {
    if (options.signal.aborted) return Promise.reject(options.signal.reason as Error);
    const answer = this.record(command, options.stdin);
    return Promise.resolve({ code: answer?.code ?? 0, stdout: answer?.stdout ?? '' });
  }

  /** Nothing holds a UID here: no process, no IPC object. */
  holdersOf(): UidHolders {
    return { pids: [], ipc: [] };
  }

  killProcess(pid: number): never {
    throw new Error(`the recording runner kills no process (${pid})`);
  }

  spawn(command: Command): never {
    throw new Error(`the recording runner starts no long-lived child (${command.file})`);
  }

  private record(command: Command, stdin?: string): Partial<CommandResult> | undefined {
    this.commands.push([command.file, ...command.args.map((arg) => (arg.includes('\n') ? '<program>' : arg))].join(' '));
    return this.script(command, stdin);
  }
}

/**
 * The context `apply` needs, around a recording runner: a session that is never closed, and the
 * per-change check counting into `checks` (the audit line's count).
 */
export function recordingContext(runner: HostRunner, systemdUnitDirectory: string, root?: string): { ctx: OpContext; checks: () => number } {
  let checks = 0;
  guardChanges(() => {
    checks += 1;
  });
  const session = { signal: new AbortController().signal, plans: [], checkpoint: () => undefined, remainingMs: () => 170_000 };
  return { ctx: { runtime: { systemdUnitDirectory, root }, session, runner } as unknown as OpContext, checks: () => checks };
}
