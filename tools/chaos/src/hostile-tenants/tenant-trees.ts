// Huge trees: a compromised gateway plants, in its own home/ and state/, chains thousands of levels
// deep, many files, 000-mode directories and links to outside. Its Namespace's deletion must complete
// (bounded retries), its heartbeats must keep arriving, and no link target may change. Whatever the
// helper manages, the trees are removed here with coreutils before the host is torn down: the harness
// runs on Node 20, whose recursive rmSync fails on such a chain.
import { nsHash } from '@occ-ssh/markers';
import { heartbeatReader, helperInput, readHelperOutput } from '@occ-ssh/helper-call';
import { encodeArgument } from '@occ-ssh/protocol';
import { collect, remoteCommand, sshEnv } from '@occ-ssh/ssh-client';
import { envelopeFor, helperArtifact, installTenantGateway, ROOT, sshCallArgv, wireFor } from '@occ-ssh/test-support';
import { DEEP_NAME, treePlanter } from './tenant-attacks.js';
import { activation, appears, helpersGone, must, readAsRoot, staged, stopUnit, type Tenant } from './tenant-calls.js';
import { longestGap, type HugeTrees, type TenantBounds } from './tenant-results.js';
import type { HostLink } from '../host/ssh.js';

const SENTINEL = '/var/tmp/occ-tenant-sentinel';
/** Targets of the planted links: metadata, times and bytes (`full`) or owner, group, mode and type. */
const WATCH: [string, 'full' | 'meta'][] = [
  ['/root', 'full'],
  [SENTINEL, 'full'],
  ['/etc', 'meta'],
  ['/etc/shadow', 'meta'],
];

function watchScript(): string {
  return WATCH.map(([path, depth]) =>
    depth === 'meta'
      ? `stat -c '%n %U:%G %a %F' ${path}`
      : `stat -c '%n %U:%G %a %i %F %s %Y %Z' ${path}; if [ -f ${path} ]; then sha256sum ${path}; else ls -la --time-style=+%s ${path} | sha256sum; fi`,
  ).join('; ');
}

/** delete-namespace on a fresh client, with the arrival time of every heartbeat line. */
async function deleteWithHeartbeats(link: HostLink, tenant: Tenant, capMs: number): Promise<HugeTrees['attempts'][number]> {
  const envelope = envelopeFor(link, 'delete-namespace', { namespace: tenant.owner.namespace });
  const wire = wireFor(encodeArgument(envelope));
  const arrivals: number[] = [];
  const onStdout = heartbeatReader(() => arrivals.push(Date.now()));
  const started = Date.now();
  const run = await collect('ssh', sshCallArgv(link, remoteCommand([link.nodePath, '-', wire.argument])), {
    stdin: helperInput(helperArtifact(), wire),
    timeoutMs: capMs,
    killGraceMs: 0,
    env: sshEnv(),
    onStdout,
  });
  const ended = Date.now();
  const line = readHelperOutput(run.stdout).line;
  const base = {
    who: tenant.name,
    operation: 'delete-namespace',
    ms: ended - started,
    requestId: envelope.requestId,
    heartbeats: arrivals.length,
    maxHeartbeatGapMs: longestGap(arrivals, started, ended),
  };
  if (!line) return { ...base, ok: false, code: 'no-answer', outcome: `no result line within ${(capMs / 1000).toFixed(0)} s (ssh exit ${String(run.exitCode)})` };
  if (line.ok) return { ...base, ok: true, outcome: 'ok' };
  return { ...base, ok: false, code: line.error.code, outcome: `${line.error.code}: ${line.error.message.slice(0, 200)}` };
}

export async function runHugeTrees(link: HostLink, tenant: Tenant, plan: { treeDepth: number; treeFiles: number }, bounds: TenantBounds): Promise<HugeTrees> {
  const result: HugeTrees = { depth: plan.treeDepth, files: plan.treeFiles, attempts: [], deleted: false, targetsUnchanged: true, problems: [] };
  const nsDir = `${ROOT}/namespaces/${nsHash(tenant.owner.namespace.id)}`;
  const removal = `${ROOT}/namespaces/.deleting-${nsHash(tenant.owner.namespace.id)}`;
  try {
    await link.run(['sh', '-c', `echo tenant-sentinel > ${SENTINEL} && chmod 644 ${SENTINEL}`]);
    tenant.openclawPath = await installTenantGateway(link, 'tn-trees', treePlanter(plan.treeDepth, plan.treeFiles, SENTINEL));
    const prepared = await staged(link, tenant);
    await must(link, tenant, 'activate-revision', activation(prepared));
    // Planting takes a while on a loaded host (3,000 levels and 20,000 files took 14 to 27 s): a minute, and 2 ms per level and file.
    const plantWaitMs = 60_000 + 2 * (plan.treeDepth + plan.treeFiles);
    if (!(await appears(link, `${tenant.layout.state}/planted.json`, plantWaitMs))) throw new Error(`the gateway did not finish planting within ${Math.round(plantWaitMs / 1000)} s`);
    result.planted = JSON.parse((await readAsRoot(link, `${tenant.layout.state}/planted.json`)) ?? '{}') as HugeTrees['planted'];
    const before = await link.run(['sh', '-c', watchScript()]);
    for (let attempt = 0; attempt < bounds.deleteAttempts && !result.deleted; attempt += 1) {
      result.attempts.push(await deleteWithHeartbeats(link, tenant, 200_000));
      await helpersGone(link, 60_000);
      result.deleted = (await link.exec(['sh', '-c', `! [ -e ${nsDir} ] && ! [ -e ${removal} ] && [ -z "$(ls -A ${ROOT}/.removing 2>/dev/null)" ]`])).code === 0;
    }
    const after = await link.run(['sh', '-c', watchScript()]);
    if (after !== before) {
      result.targetsUnchanged = false;
      const was = new Set(before.split('\n'));
      result.problems.push(
        `changed: ${after
          .split('\n')
          .filter((line) => !was.has(line))
          .join(' | ')}`,
      );
    }
  } catch (error) {
    result.problems.push(`attack could not run: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  } finally {
    await stopUnit(link, tenant);
    // GNU rm walks a tree of any depth; the sweep finds a chain wherever a partial removal left it.
    await link.exec(['sh', '-c', `rm -rf ${nsDir} ${removal}; find / -xdev -name ${DEEP_NAME} -prune -exec rm -rf {} + 2>/dev/null; rm -f ${SENTINEL}; true`], { timeoutMs: 600_000 });
  }
  return result;
}
