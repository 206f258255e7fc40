// What the driver sends per operation (helper artifact, sealed operation, header
// argument), and the bytes each
// operation puts on the wire per transport (the host's veth counters), against a bare `node -e 0`.
import { loadHelperArtifact, SystemSshCommandExecutor } from '@occ-ssh/controller/internal';
import { unpackLoader } from '@occ-ssh/helper-call';
import { progress, type BenchContext } from '../hosts/context.js';
import { bindingFor, configurationFor, ObservedDriver, revisionFor, type BenchHost, type Transport } from '../hosts/installation.js';
import { linkBytes } from '../hosts/machine.js';
import { RecordingExecutor } from '../hosts/recording.js';
import { bareNodeArgv, runSsh, settingsOf } from '../hosts/ssh.js';
import { median } from '../report/stats.js';

const HELPER_LIMIT_BYTES = 64 * 1024;

interface SentBytes {
  operation: string;
  artifactBytes: number;
  /** The encoded operation, sealed on stdin ahead of the artifact. */
  operationBytes: number;
  /** The header argument on the command line. */
  argumentBytes: number;
  /** stdin (prelude + artifact) + the whole remote command string */
  totalBytes: number;
}

interface WireBytes {
  transport: Transport | 'bare-ssh-new';
  operation: string;
  /** Median bytes from the controller to the host (IP packets on the veth). */
  toHostBytes: number;
  fromHostBytes: number;
}

export interface BytesResult {
  artifactBytes: number;
  /** The esbuild bundle inside the brotli loader. */
  bundleBytes: number;
  limitBytes: number;
  perOperation: SentBytes[];
  wire: WireBytes[];
}

/** The inner bundle of the loader (the base64 brotli payload), for size and start-up comparisons. */
export function innerBundle(artifact: Buffer): Buffer {
  const bundle = unpackLoader(artifact);
  if (!bundle) throw new Error('the helper artifact is not the expected brotli loader');
  return bundle;
}

const NAMESPACE = 'bench';

export async function measureBytes(ctx: BenchContext, host: BenchHost): Promise<BytesResult> {
  const artifact = loadHelperArtifact().bytes;
  const hosts = { [NAMESPACE]: host };
  const binding = bindingFor(NAMESPACE, 'bytes');

  // What is sent: one full cycle through the exported system-ssh executor, recorded.
  progress('bytes: one recorded deploy cycle');
  const recorder = new RecordingExecutor(new SystemSshCommandExecutor(settingsOf(host)));
  const recorded = new ObservedDriver(configurationFor(hosts, { transport: 'system-ssh' }), { executor: recorder });
  try {
    const { driver } = recorded;
    await driver.preflight();
    await driver.ensureNamespace(binding.namespace);
    driver.bindAgent(binding);
    const r1 = revisionFor(binding, 1, ctx.plan.readyAfterMs);
    const r2 = revisionFor(binding, 2, ctx.plan.readyAfterMs);
    await driver.prepareRevision(r1);
    await driver.activateRevision(r1);
    await driver.prepareRevision(r2);
    await driver.activateRevision(r2);
    await driver.gatewayAddress(r2);
    await driver.retireRevision(r1);
    await driver.inventory(NAMESPACE);
  } finally {
    await recorded.close();
  }
  const perOperation = new Map<string, SentBytes>();
  for (const call of recorder.calls) {
    perOperation.set(call.operation, {
      operation: call.operation,
      artifactBytes: call.helperBytes,
      operationBytes: call.operationBytes,
      argumentBytes: call.argumentBytes,
      totalBytes: call.stdinBytes + call.commandBytes,
    });
  }

  // What goes over the wire, per transport, for the same three operations as the latency figures.
  const wire: WireBytes[] = [];
  const revision = revisionFor(binding, 2, ctx.plan.readyAfterMs);
  const count = (action: () => Promise<unknown>) => async () => {
    const before = linkBytes(host.name);
    await action();
    const after = linkBytes(host.name);
    return { to: after.tx - before.tx, from: after.rx - before.rx };
  };
  const sample = async (transport: WireBytes['transport'], operation: string, action: () => Promise<unknown>) => {
    const to: number[] = [];
    const from: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const bytes = await count(action)();
      to.push(bytes.to);
      from.push(bytes.from);
    }
    wire.push({ transport, operation, toHostBytes: Math.round(median(to)), fromHostBytes: Math.round(median(from)) });
  };
  await sample('bare-ssh-new', 'node -e 0', () => runSsh(bareNodeArgv(host)));
  for (const transport of ['system-ssh', 'openssh-mux', 'ssh2'] as const) {
    progress(`bytes: wire counts over ${transport}`);
    const observed = new ObservedDriver(configurationFor(hosts, { transport }));
    try {
      const { driver } = observed;
      driver.bindAgent(binding);
      await driver.preflight(); // opens the pooled connection; not counted
      await sample(transport, 'probe', () => driver.preflight());
      await sample(transport, 'verify-revision', () => driver.gatewayAddress(revision));
      await sample(transport, 'prepare-revision', () => driver.prepareRevision(revision));
    } finally {
      await observed.close();
    }
  }
  return { artifactBytes: artifact.length, bundleBytes: innerBundle(artifact).length, limitBytes: HELPER_LIMIT_BYTES, perOperation: [...perOperation.values()], wire };
}
