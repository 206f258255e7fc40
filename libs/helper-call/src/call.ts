// One helper call as data: everything a transport sends for one operation, built without I/O. Its
// argv is the one remoteCommand (@occ-ssh/ssh-client: the one shell string in the system) renders
// into the command line sshd hands to the host's shell.
import { canonicalHash } from '@occ-ssh/markers';
import { encodeArgument, makeEnvelope, safePathProblem, type Envelope, type OperationArgs, type OperationName, type RuntimeSettings } from '@occ-ssh/protocol';
import { helperInput } from './input.js';
import { sealOperation } from './sealed.js';

export interface HelperCall<O extends OperationName = OperationName> {
  readonly operation: O;
  /** The validated operation; it travels sealed on stdin, never on argv. */
  readonly envelope: Envelope;
  /** The one argv argument: base64 JSON naming the sealed operation by SHA-256 and length. */
  readonly header: string;
  /** Length of the encoded operation sealed on stdin. */
  readonly sealedBytes: number;
  /** `<nodePath> - <header>`. */
  readonly argv: readonly [string, '-', string];
  /** The sealed operation, then the helper's own bytes. */
  readonly stdin: Buffer;
}

export interface HelperCallInput<O extends OperationName> {
  operation: O;
  args: OperationArgs<O>;
  runtime: RuntimeSettings;
  requestId: string;
  /** The helper artifact's bytes. */
  helper: Uint8Array;
}

/**
 * Builds the call and the runtime's configurationHash (SHA-256 of its canonical JSON, which the
 * helper recomputes). Throws before any host is contacted: a bad or oversized operation is a
 * permanent `configuration` ComputeError, a nodePath that needs quoting a TypeError.
 * Security: the operation (documents, launch values) rides on stdin; argv only names its digest.
 */
export function buildHelperCall<O extends OperationName>(input: HelperCallInput<O>): HelperCall<O> {
  const envelope = makeEnvelope({
    operation: input.operation,
    args: input.args,
    runtime: input.runtime,
    configurationHash: canonicalHash(input.runtime),
    requestId: input.requestId,
  }) as Envelope;
  const encoded = encodeArgument(envelope);
  const sealed = sealOperation(encoded);
  return {
    operation: input.operation,
    envelope,
    header: sealed.argument,
    sealedBytes: encoded.length,
    argv: helperArgv(input.runtime.nodePath, sealed.argument),
    stdin: helperInput(input.helper, sealed),
  };
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The helper's argv on the host: `<nodePath> - <base64 header>`.
 * Security: both parts are checked against character sets that need no quoting in a POSIX shell
 * (a safe absolute path, base64), so nothing from input can change the command.
 */
export function helperArgv(nodePath: string, header: string): [string, '-', string] {
  const problem = safePathProblem(nodePath);
  if (problem) throw new TypeError(`nodePath cannot be used in a remote command: ${problem}`);
  if (!BASE64.test(header)) throw new TypeError('operation argument is not base64');
  return [nodePath, '-', header];
}
