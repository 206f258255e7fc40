// Runs phases as soon as the phases they need have passed, several at once, each a command whose
// lines are printed with its name; the first phase to fail stops the others (their whole process
// groups, so a pool's hosts come down with it) and the run fails. The timing table closes every run.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cpuAccount } from './cpu-account.js';

export interface Phase {
  name: string;
  /** argv of the command, run from the workspace root. */
  argv: readonly string[];
  /** Phases that must pass before this one starts. */
  needs?: readonly string[];
  env?: Record<string, string>;
}

export interface PhaseOutcome {
  name: string;
  status: 'ok' | 'failed' | 'stopped' | 'not run';
  /** Seconds from the start of the run. */
  startedAt?: number;
  seconds?: number;
  /** CPU seconds of the phase and all it started, where the machine lets them be measured. */
  cpuSeconds?: number;
  exit?: string;
}

/** Refuses a phase that needs an unknown or later-declared one: the order given is a valid run order. */
export function checkPhases(phases: readonly Phase[]): void {
  const seen = new Set<string>();
  for (const phase of phases) {
    if (seen.has(phase.name)) throw new Error(`phase ${phase.name} is declared twice`);
    for (const need of phase.needs ?? []) if (!seen.has(need)) throw new Error(`phase ${phase.name} needs ${need}, which is not declared before it`);
    seen.add(phase.name);
  }
}

const fmt = (s: number | undefined) => (s === undefined ? '' : `${s.toFixed(1)} s`);

export function timingTable(outcomes: readonly PhaseOutcome[], wallSeconds: number): string[] {
  const width = Math.max(5, ...outcomes.map((o) => o.name.length));
  const row = (a: string, b: string, c: string, d: string, e: string) => `${a.padEnd(width)}  ${b.padStart(9)}  ${c.padStart(9)}  ${d.padStart(9)}  ${e}`;
  const cpuTotal = outcomes.some((o) => o.cpuSeconds !== undefined) ? outcomes.reduce((sum, o) => sum + (o.cpuSeconds ?? 0), 0) : undefined;
  return [
    row('phase', 'start', 'took', 'cpu', 'result'),
    ...outcomes.map((o) => row(o.name, fmt(o.startedAt), fmt(o.seconds), fmt(o.cpuSeconds), o.exit ? `${o.status} (${o.exit})` : o.status)),
    row('total', '', fmt(wallSeconds), fmt(cpuTotal), outcomes.every((o) => o.status === 'ok') ? 'ok' : 'FAILED'),
  ];
}

function prefixLines(stream: NodeJS.ReadableStream, name: string, out: NodeJS.WritableStream): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => out.write(`[${name}] ${line}\n`));
}

/** Runs the phases; resolves with every phase's outcome in declaration order once all ended or one failed. */
export async function runPhases(phases: readonly Phase[], opts: { cwd: string; out?: NodeJS.WritableStream } = { cwd: process.cwd() }): Promise<PhaseOutcome[]> {
  checkPhases(phases);
  const out = opts.out ?? process.stdout;
  const started = Date.now();
  const since = () => (Date.now() - started) / 1000;
  const outcomes = new Map<string, PhaseOutcome>(phases.map((p) => [p.name, { name: p.name, status: 'not run' }]));
  const running = new Map<string, ChildProcess>();
  let failed = false;

  return new Promise((resolve) => {
    const finish = () => resolve(phases.map((p) => outcomes.get(p.name)!));
    const startReady = () => {
      if (failed) return;
      for (const phase of phases) {
        const outcome = outcomes.get(phase.name)!;
        if (outcome.status !== 'not run' || running.has(phase.name)) continue;
        if (!(phase.needs ?? []).every((need) => outcomes.get(need)?.status === 'ok')) continue;
        start(phase);
      }
      if (running.size === 0) finish();
    };
    const start = (phase: Phase) => {
      const outcome = outcomes.get(phase.name)!;
      outcome.startedAt = since();
      out.write(`[ci] start ${phase.name} at ${fmt(outcome.startedAt)}: ${phase.argv.join(' ')}\n`);
      // Its own process group, so stopping it stops everything it started.
      const account = cpuAccount(phase.name, phase.argv[0]!, phase.argv.slice(1));
      const child = spawn(account?.command ?? phase.argv[0]!, account?.args ?? phase.argv.slice(1), {
        cwd: opts.cwd,
        env: { ...process.env, ...phase.env },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      running.set(phase.name, child);
      prefixLines(child.stdout!, phase.name, out);
      prefixLines(child.stderr!, phase.name, out);
      child.on('error', (e) => out.write(`[ci] ${phase.name} could not start: ${e.message}\n`));
      child.on('close', (code, signal) => {
        running.delete(phase.name);
        outcome.seconds = since() - (outcome.startedAt ?? 0);
        if (account) {
          outcome.cpuSeconds = account.seconds();
          account.remove();
        }
        if (outcome.status === 'stopped') {
          // stopped by another phase's failure
        } else if (code === 0) {
          outcome.status = 'ok';
        } else {
          outcome.status = 'failed';
          outcome.exit = signal ? `signal ${signal}` : `exit ${code}`;
          if (!failed) {
            failed = true;
            out.write(`[ci] ${phase.name} failed (${outcome.exit}); stopping ${[...running.keys()].join(', ') || 'nothing else'}\n`);
            for (const [name, other] of running) {
              outcomes.get(name)!.status = 'stopped';
              try {
                process.kill(-other.pid!, 'SIGTERM');
              } catch {
                // already gone
              }
            }
          }
        }
        out.write(`[ci] ${phase.name} ${outcome.status} in ${fmt(outcome.seconds)}\n`);
        if (failed && running.size === 0) return finish();
        startReady();
      });
    };
    startReady();
  });
}
