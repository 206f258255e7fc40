// The real OpenClaw gateway's restart-to-ready through the driver with a warm compile
// cache against a cold one (the cache emptied just before), the unit's warm start against the same
// gateway's warm start as a plain process on the same host, and what an Agent's clients see of a
// cutover: the last /readyz 200 from the old process to the first from the new one. The unit is also
// started with its sandbox turned off, so a gap between unit and plain process can be attributed.
import { agentLayout } from '@occ-ssh/markers';
import type { TestHost } from '@occ-ssh/testhost';
import { progress, type BenchContext } from '../hosts/context.js';
import { sandboxOffDropIn } from './sandbox-off.js';
import { bindingFor, configurationFor, ObservedDriver, occRevision, RUNTIME_ROOT, timed, UNIT_DIRECTORY } from '../hosts/installation.js';
import type { AgentRevision } from '@occ-ssh/controller';

export interface RestartResult {
  rounds: number;
  /** Driver activation of a new revision of the stopped gateway, call to return: cold (cache emptied) and warm. */
  coldMs: number[];
  warmMs: number[];
  /** On the host: `systemctl start` to the first /readyz 200, and the same for a plain process. */
  unitWarmMs: number[];
  plainWarmMs: number[];
  /** The unit again with a drop-in that turns its sandbox off: what the sandbox itself costs. */
  sandboxOffWarmMs: number[];
  /** Last /readyz 200 of the old process to the first of the new one, polled every 50 ms on the host. */
  cutoverGapMs: number[];
}

export async function measureRestart(ctx: BenchContext, host: TestHost): Promise<RestartResult> {
  const rounds = ctx.plan.restartRounds;
  // The Installation's openclawPath is the host's fixture path: point it at the real entry instead.
  const { name, address, port: sshPort, user, identityFile, knownHostsFile, nodePath } = host;
  const real = { name, address, port: sshPort, user, identityFile, knownHostsFile, nodePath, fixtureGatewayPath: host.openclawPath };
  const observed = new ObservedDriver(configurationFor({ real }, {}), { readinessTimeoutMs: 120_000 });
  const { driver } = observed;
  const binding = bindingFor('real', 'restart');
  const layout = agentLayout(RUNTIME_ROOT, UNIT_DIRECTORY, binding.namespace.id, binding.agent.id);
  let number = 0;
  const nextRevision = (): AgentRevision => {
    number += 1;
    return occRevision(binding, number, { gateway: { mode: 'local', bind: 'loopback' } });
  };
  const activate = async () => {
    const revision = nextRevision();
    await driver.prepareRevision(revision);
    return Math.round((await timed(() => driver.activateRevision(revision))).ms);
  };
  const result: RestartResult = { rounds, coldMs: [], warmMs: [], unitWarmMs: [], plainWarmMs: [], sandboxOffWarmMs: [], cutoverGapMs: [] };
  try {
    await driver.ensureNamespace(binding.namespace);
    driver.bindAgent(binding);
    await activate(); // the first start fills the cache
    const port = (JSON.parse(await host.run(['cat', layout.served])) as { port: number }).port;
    for (let round = 0; round < rounds; round += 1) {
      // Stopped first in both, so the old process's exit (when Node writes out its cache) cannot refill it.
      await host.run(['systemctl', 'stop', layout.unitName]);
      await host.run(['rm', '-rf', '--one-file-system', layout.compileCache]);
      result.coldMs.push(await activate());
      await host.run(['systemctl', 'stop', layout.unitName]);
      result.warmMs.push(await activate());
      // Its own activation: the watcher's curl every 50 ms costs the host CPU the timed ones must not share.
      const watcher = (
        await host.run([
          'sh',
          '-c',
          `(timeout 120 sh -c 'while :; do echo "$(date +%s%3N) $(curl -s -o /dev/null -m 1 -w %{http_code} http://127.0.0.1:$1/readyz)"; sleep 0.05; done' sh "$1" > /tmp/cutover.log 2>/dev/null &) ; echo started`,
          'sh',
          String(port),
        ])
      ).trim();
      if (watcher !== 'started') throw new Error('restart: the cutover watcher did not start');
      await new Promise((resolve) => setTimeout(resolve, 500));
      await activate();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await host.exec(['pkill', '-f', '^timeout 120 sh -c while']);
      result.cutoverGapMs.push(cutoverGap(await host.run(['cat', '/tmp/cutover.log'])));
      progress(`restart round ${round + 1}/${rounds}: cold ${result.coldMs.at(-1)} ms, warm ${result.warmMs.at(-1)} ms, cutover gap ${result.cutoverGapMs.at(-1)} ms`);
    }
    const account = (await host.run(['stat', '-c', '%U', layout.state])).trim();
    for (let round = 0; round < rounds; round += 1) {
      await host.run(['systemctl', 'stop', layout.unitName]);
      result.unitWarmMs.push(await startToReady(host, port, ['systemctl', 'start', layout.unitName]));
      await host.run(['systemctl', 'stop', layout.unitName]);
      result.plainWarmMs.push(await startToReady(host, port, plainGateway(host, layout, account, port)));
      await host.exec(['pkill', '-TERM', '-u', account]);
      await host.run(['sh', '-c', `while pgrep -u "$1" >/dev/null; do sleep 0.1; done`, 'sh', account]);
      await setSandbox(host, layout.unitName, false);
      result.sandboxOffWarmMs.push(await startToReady(host, port, ['systemctl', 'start', layout.unitName]));
      await host.run(['systemctl', 'stop', layout.unitName]);
      await setSandbox(host, layout.unitName, true);
      progress(
        `restart round ${round + 1}/${rounds}: unit warm ${result.unitWarmMs.at(-1)} ms, unit without sandbox ${result.sandboxOffWarmMs.at(-1)} ms, plain process warm ${result.plainWarmMs.at(-1)} ms`,
      );
    }
    await host.run(['systemctl', 'start', layout.unitName]);
    return result;
  } finally {
    await driver.deleteNamespace(binding.namespace).catch(() => undefined);
    await observed.close();
  }
}

/**
 * Every sandbox directive the unit sets, reset by a runtime drop-in (gone at reboot; removed after the
 * sample). An empty assignment clears a list; the rest get their defaults back.
 */
const SANDBOX_OFF = sandboxOffDropIn();

async function setSandbox(host: TestHost, unitName: string, on: boolean): Promise<void> {
  const dir = `/run/systemd/system/${unitName}.d`;
  const script = on ? 'rm -rf "$1"' : 'mkdir -p "$1" && printf %s "$2" > "$1/zz-bench-sandbox-off.conf"';
  await host.run(['sh', '-c', `${script} && systemctl daemon-reload`, 'sh', dir, SANDBOX_OFF]);
}

/** The unit's environment and command, run as the Agent's account outside systemd (no sandbox). */
function plainGateway(host: TestHost, layout: ReturnType<typeof agentLayout>, account: string, port: number): string[] {
  const script =
    'set -a; . "$1"; set +a; cd "$2"; ' +
    'HOME="$2" OPENCLAW_STATE_DIR="$3" OPENCLAW_CONFIG_PATH="$4" OPENCLAW_GATEWAY_PORT="$5" NODE_COMPILE_CACHE="$6" OPENCLAW_PACKAGED_COMPILE_CACHE_RESPAWNED=1 ' +
    'setpriv --reuid="$7" --regid="$7" --init-groups "$8" "$9" gateway --port "$5" </dev/null >/dev/null 2>&1 &';
  return ['sh', '-c', script, 'sh', layout.passwordFile, layout.home, layout.state, `${layout.current}/openclaw.json`, String(port), layout.compileCache, account, host.nodePath, host.openclawPath];
}

/** Runs `start` on the host and times, there, until /readyz answers 200. Constant script, values as arguments. */
async function startToReady(host: TestHost, port: number, start: string[]): Promise<number> {
  const script = 'p="$1"; shift; t0=$(date +%s%3N); "$@" || exit 1; until curl -sf -o /dev/null -m 1 "http://127.0.0.1:$p/readyz"; do sleep 0.05; done; echo $(( $(date +%s%3N) - t0 ))';
  const out = await host.run(['sh', '-c', script, 'sh', String(port), ...start], { timeoutMs: 180_000 });
  return Number(out.trim().split('\n').at(-1));
}

/** From `<ms> <code>` lines: the first 200 after an interruption minus the last 200 before it. */
function cutoverGap(log: string): number {
  const samples = log
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .map(([at, code]) => ({ at: Number(at), ok: code === '200' }));
  const down = samples.findIndex((sample, i) => i > 0 && !sample.ok && samples[i - 1]!.ok);
  if (down < 0) return 0;
  const back = samples.findIndex((sample, i) => i > down && sample.ok);
  if (back < 0) return Number.NaN;
  return samples[back]!.at - samples[down - 1]!.at;
}
