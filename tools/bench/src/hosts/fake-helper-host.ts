// Hosts that answer the helper's protocol without running anything: what the controller itself costs
// with more hosts than a test machine can boot. Every figure that uses them says so.
import { DRIVER_VERSION, type CommandExecutor, type ExecuteRequest, type ExecuteResult } from '@occ-ssh/controller';
import { openSealed, splitHelperInput } from '@occ-ssh/helper-call';
import { exampleResult, formatLine, PROTOCOL_VERSION, type Envelope, type ResultLine } from '@occ-ssh/protocol';

export class FakeHelperHosts implements CommandExecutor {
  calls = 0;
  inFlight = 0;
  maxInFlight = 0;

  /** `answerAfterMs`: how long each answer takes, as a helper run over a reused connection would. */
  constructor(private readonly answerAfterMs: number) {}

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    this.calls += 1;
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const input = splitHelperInput(request.call.stdin);
      const argument = request.call.argv.at(-1);
      if (!input || argument === undefined) throw new Error('the helper input does not start with the sealed operation');
      const envelope = JSON.parse(Buffer.from(openSealed(argument, input.sealed), 'base64').toString('utf8')) as Envelope;
      await new Promise((resolve) => setTimeout(resolve, this.answerAfterMs));
      const line = {
        type: 'result',
        protocolVersion: PROTOCOL_VERSION,
        helperVersion: DRIVER_VERSION,
        operation: envelope.operation,
        requestId: envelope.requestId,
        timings: { totalMs: this.answerAfterMs },
        ok: true,
        result: exampleResult(envelope.operation),
      } as ResultLine;
      return { exitCode: 0, signal: null, stdout: formatLine(line), stderrBytes: 0, stdoutTruncated: false, timedOut: false, aborted: false, transportFailed: false };
    } finally {
      this.inFlight -= 1;
    }
  }
}
