// One driver on one test host, with an IAM hook that records its calls, and what the driver's
// real-host promise tests read back from that host: the setup those files share.
import { agentLayout, revisionLayout } from '@occ-ssh/markers';
import { helperRunning } from '@occ-ssh/test-support';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import { SshComputeDriver } from '../src/driver.js';
import type { AgentRevision } from '../src/types.js';
import { hookOwner } from './fakes.js';
import { agentBinding, configFor, memoryLogger, revisionOf } from './hosts.js';

export const ROOT = '/var/lib/openclaw-enterprise';
const UNIT_DIR = '/etc/systemd/system';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The one Agent these files deploy, its paths on the host and its first revision. */
export function gapAgent() {
  const binding = agentBinding('cgap', 'stable');
  const layout = agentLayout(ROOT, UNIT_DIR, binding.namespace.id, binding.agent.id);
  const rev1 = revisionOf(binding, 1);
  /** What `current` reads once `revision` is the one switched to. */
  const target = (revision: AgentRevision) => `${revisionLayout(layout.dir, revision.id).currentTarget}\n`;
  return { binding, layout, rev1, target };
}

export interface HookedDriverControls {
  /** What OCC's getOperationAbortSignal would return for the operation in progress. */
  signal(): AbortSignal | undefined;
  /** Whether the IAM hook's beforeWorkloadStart fails now. */
  failStart(): boolean;
}

/**
 * Boots a test host and a driver for it whose IAM hook records `start:<n>` and `stop:<n>` into
 * `calls` and hands the gateway an opaque placeholder.
 */
export async function startHookedDriver(name: string, calls: string[], controls: HookedDriverControls): Promise<{ host: TestHost; driver: SshComputeDriver }> {
  const host = await startTestHost({ name });
  const driver = new SshComputeDriver({ configuration: configFor({ stable: host }), logger: memoryLogger().logger, getOperationAbortSignal: controls.signal, readinessTimeoutMs: 30_000 });
  driver.setLifecycleDrivers([
    hookOwner('iam-gap', 'iam', {
      async beforeWorkloadStart(revision, launch) {
        calls.push(`start:${revision.revision}`);
        if (controls.failStart()) throw new Error('iam backend unavailable');
        launch.environment.OCC_GAP_PLACEHOLDER = `opaque-gap-${revision.revision}`;
      },
      async beforeWorkloadStop(revision) {
        calls.push(`stop:${revision.revision}`);
      },
    }),
  ]);
  return { host, driver };
}

export async function stopHookedDriver(host: TestHost | undefined, driver: SshComputeDriver | undefined): Promise<void> {
  await driver?.close();
  await host?.down();
}

/** Brings the Agent's first revision up and serving, then forgets the hook calls that took. */
export async function deployFirstRevision(driver: SshComputeDriver, calls: string[]): Promise<void> {
  const { binding, rev1 } = gapAgent();
  await driver.ensureNamespace(binding.namespace);
  driver.bindAgent(binding);
  await driver.prepareRevision(rev1);
  await driver.activateRevision(rev1);
  calls.splice(0);
}

/** Readings of the Agent's gateway on the host; `host` and `driver` are read when a reading is taken. */
export function gatewayReadings(host: () => TestHost, driver: () => SshComputeDriver) {
  const { binding, layout } = gapAgent();
  return {
    mainPid: async () => (await host().run(['systemctl', 'show', '--property=MainPID', '--value', layout.unitName])).trim(),
    /** How many times the fixture gateway has started. */
    starts: async () => (await host().run(['cat', `${layout.state}/fixture-starts.jsonl`])).trim().split('\n').length,
    agent: async () => (await driver().inventory('stable')).namespaces.flatMap((ns) => ns.agents).find((a) => a.agentId === binding.agent.id),
    /** Whether every helper process has ended, waiting up to 5 s for it. */
    helperGone: async () => {
      for (let i = 0; i < 50 && (await helperRunning(host())); i += 1) await sleep(100);
      return !(await helperRunning(host()));
    },
  };
}
