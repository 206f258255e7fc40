// What the CLI prints: each step with its elapsed time as it happens, or one JSON result.
export interface StepRecord {
  step: string;
  ms: number;
  detail?: string;
}

export class Reporter {
  readonly steps: StepRecord[] = [];
  private readonly started = Date.now();

  constructor(
    private readonly json: boolean,
    private readonly out: NodeJS.WritableStream = process.stdout,
  ) {}

  async step<T>(name: string, action: () => Promise<T>, describe?: (value: T) => string | undefined): Promise<T> {
    const started = Date.now();
    if (!this.json) this.out.write(`  ${name} ... `);
    try {
      const value = await action();
      const record: StepRecord = { step: name, ms: Date.now() - started };
      const detail = describe?.(value);
      if (detail) record.detail = detail;
      this.steps.push(record);
      if (!this.json) this.out.write(`ok (${seconds(record.ms)})${detail ? `  ${detail}` : ''}\n`);
      return value;
    } catch (error) {
      if (!this.json) this.out.write(`failed (${seconds(Date.now() - started)})\n`);
      throw error;
    }
  }

  line(text: string): void {
    if (!this.json) this.out.write(`${text}\n`);
  }

  totalMs(): number {
    return Date.now() - this.started;
  }
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}
