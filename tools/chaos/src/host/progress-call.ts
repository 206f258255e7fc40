// One helper call on a fresh ssh client, as the controller makes it, that records when each of the
// helper's progress lines arrived: the campaign times what it does next by the helper's own progress,
// not by the clock, so that where a fault lands does not depend on the machine's speed.
import { heartbeatReader, helperInput, readHelperOutput } from '@occ-ssh/helper-call';
import { encodeArgument, type OperationArgs, type OperationName, type ResultLine } from '@occ-ssh/protocol';
import { collect, remoteCommand, sshEnv } from '@occ-ssh/ssh-client';
import { envelopeFor, helperArtifact, sshCallArgv, wireFor } from '@occ-ssh/test-support';
import type { HostLink } from './ssh.js';

interface ProgressOutcome {
  line: ResultLine | undefined;
  /** When the call was sent and when it ended (Date.now()), and how long it ran. */
  sentAt: number;
  endedAt: number;
  ms: number;
  /** When each progress line arrived (Date.now()), in order. */
  beats: number[];
}

export interface ProgressCall {
  /** Arrival times so far; the array grows while the call runs. */
  beats: number[];
  done: Promise<ProgressOutcome>;
}

export function progressCall<O extends OperationName>(link: HostLink, operation: O, args: OperationArgs<O>, capMs = 200_000): ProgressCall {
  const envelope = envelopeFor(link, operation, args);
  const wire = wireFor(encodeArgument(envelope));
  const beats: number[] = [];
  const sentAt = Date.now();
  const done = collect('ssh', sshCallArgv(link, remoteCommand([link.nodePath, '-', wire.argument])), {
    stdin: helperInput(helperArtifact(), wire),
    timeoutMs: capMs,
    killGraceMs: 0,
    env: sshEnv(),
    onStdout: heartbeatReader(() => beats.push(Date.now())),
  }).then((run) => {
    const endedAt = Date.now();
    return { line: readHelperOutput(run.stdout).line, sentAt, endedAt, ms: endedAt - sentAt, beats };
  });
  return { beats, done };
}

/** Resolves true once the call prints a progress line after `after` (Date.now()), false if it ends or `waitMs` passes first. */
export async function beatAfter(call: ProgressCall, after: number, waitMs: number): Promise<boolean> {
  let ended = false;
  void call.done.finally(() => (ended = true));
  const until = Date.now() + waitMs;
  while (Date.now() < until) {
    if (call.beats.some((at) => at > after)) return true;
    if (ended) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}
