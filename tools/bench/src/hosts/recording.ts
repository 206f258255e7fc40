// A CommandExecutor that passes every call to a real one and keeps what was sent and answered.
import type { CommandExecutor, ExecuteRequest, ExecuteResult } from '@occ-ssh/controller';
import { readHelperOutput, splitHelperInput } from '@occ-ssh/helper-call';
import type { ResultLine } from '@occ-ssh/protocol';

export interface RecordedCall {
  operation: string;
  /** Everything written to the remote command's stdin: the sealed operation's prelude and the helper. */
  stdinBytes: number;
  /** The helper artifact alone. */
  helperBytes: number;
  /** The encoded operation sealed in the prelude. */
  operationBytes: number;
  /** The whole remote command string (`<node> - <header argument>`). */
  commandBytes: number;
  /** The base64 header argument alone. */
  argumentBytes: number;
  line: ResultLine | undefined;
}

export class RecordingExecutor implements CommandExecutor {
  readonly calls: RecordedCall[] = [];

  constructor(private readonly inner: CommandExecutor) {}

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const command = request.call.argv.join(' ');
    const argument = request.call.argv.at(-1) ?? '';
    const input = splitHelperInput(request.call.stdin);
    if (!input) throw new Error('the helper input does not carry a sealed operation');
    const envelope = JSON.parse(Buffer.from(input.sealed, 'base64').toString('utf8')) as { operation: string };
    const result = await this.inner.execute(request);
    this.calls.push({
      operation: envelope.operation,
      stdinBytes: request.call.stdin.length,
      helperBytes: input.helper.length,
      operationBytes: input.sealed.length,
      commandBytes: Buffer.byteLength(command),
      argumentBytes: argument.length,
      line: readHelperOutput(result.stdout).line,
    });
    return result;
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }

  /** The newest result line of an operation. */
  lastLine(operation: string): ResultLine | undefined {
    for (let i = this.calls.length - 1; i >= 0; i -= 1) if (this.calls[i]!.operation === operation) return this.calls[i]!.line;
    return undefined;
  }
}
