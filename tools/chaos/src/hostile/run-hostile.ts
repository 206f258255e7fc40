// The hostile section: hostile host state. Foreign or edited markers, changed snapshots, links where the
// driver expects files or directories, unit files it did not write, squatted account names and
// reused UIDs, directories without their markers, two Agents on one port and an activation older
// than the current revision: each must be refused with an `ownership` error, adopt nothing and
// write nothing (tree hash unchanged). Links an Agent plants inside its own home/ and state/ must never be
// followed: prepare, activate and delete succeed and the link targets stay exactly as they were.
// A sibling Agent's account listening on the Agent's port must never be taken for its gateway:
// activation answers not-ready naming the squatter's UID and served.json is not written.
import { accountName, agentLayout, nsHash } from '@occ-ssh/markers';
import { encodeArgument } from '@occ-ssh/protocol';
import { envelopeFor, ok, ROOT, UNIT_DIR } from '@occ-ssh/test-support';
import { helperOf, runSteps, shOf, TREE_HASH } from '../host/collector.js';
import { ownerOf, prepareArgs, RUNTIME_USER } from '../host/fixture-args.js';
import type { HostLink } from '../host/ssh.js';
import { foreign, newcomer, SQUATTER_UNIT, type Ctx, type HostileCase, type HostileResult } from './case.js';
import { CASES } from './cases.js';

/** A shell script printing the metadata (and for `full`, times and content hashes) of watched paths, never following a final link. */
function targetsScript(watch: readonly [string, 'full' | 'meta'][]): string {
  if (watch.length === 0) return 'true';
  return watch
    .map(([path, depth]) =>
      depth === 'meta'
        ? `stat -c '%n %U:%G %a %F' ${path}`
        : `stat -c '%n %U:%G %a %i %F %s %Y %Z' ${path}; if [ -f ${path} ]; then sha256sum ${path}; else ls -la --time-style=+%s ${path} | sha256sum; fi`,
    )
    .join('; ');
}

/** Removes whatever a case left, so no damaged marker blocks the next case (port allocation reads them all). */
async function scrub(ctx: Ctx): Promise<void> {
  const nsDir = `${ROOT}/namespaces/${nsHash(ctx.owner.namespace.id)}`;
  const newcomerAccount = accountName(RUNTIME_USER, ctx.owner.namespace.id, newcomer(ctx).agent.id);
  // The sibling a case may have staged (the port squatter's account) goes too.
  const sibling = foreign(ctx);
  const siblingLayout = agentLayout(ROOT, UNIT_DIR, sibling.namespace.id, sibling.agent.id);
  const siblingAccount = accountName(RUNTIME_USER, sibling.namespace.id, sibling.agent.id);
  await ctx.link.exec([
    'sh',
    '-c',
    [
      `systemctl stop ${SQUATTER_UNIT} >/dev/null 2>&1`,
      ...[ctx.layout, siblingLayout].map(
        (layout) => `if [ -e ${layout.unitFile} ]; then systemctl disable --now ${layout.unitName} >/dev/null 2>&1; rm -f ${layout.unitFile}; systemctl daemon-reload; fi`,
      ),
      // The newcomer's account exists only if a port-scan case was not refused.
      ...[ctx.account, siblingAccount, newcomerAccount].flatMap((account) => [`userdel ${account} >/dev/null 2>&1`, `groupdel ${account} >/dev/null 2>&1`, `rm -f ${ROOT}/accounts/${account}.json`]),
      `rm -rf ${nsDir} ${ROOT}/namespaces/${nsHash(sibling.namespace.id)} /var/tmp/elsewhere /etc/chaos-sentinel /etc/occ-chaos-squatter.json`,
      'true',
    ].join('; '),
  ]);
}

export interface HostileSelection {
  /** Only the core cases (one of every kind of hostile state). */
  coreOnly?: boolean;
  /** Run every `of`-th selected case starting at `share` (to spread the cases over several hosts). */
  share?: number;
  of?: number;
  only?: (name: string) => boolean;
}

/** The Agent a case attacks, its layout and account, and how to plant a forged root-owned file. */
function contextFor(link: HostLink, index: number): Ctx {
  const owner = ownerOf(`hostile${index}`, `hostile${index}`, 'hostile');
  const layout = agentLayout(ROOT, UNIT_DIR, owner.namespace.id, owner.agent.id);
  return {
    link,
    owner,
    layout,
    account: accountName(RUNTIME_USER, owner.namespace.id, owner.agent.id),
    p1: prepareArgs(owner, 1),
    p2: prepareArgs(owner, 2),
    plant: async (path, text, mode = '600') => {
      await link.run(['sh', '-c', `rm -f ${path} && install -m ${mode} -o root -g root /dev/stdin ${path}`], { input: text });
    },
  };
}

/** One attempt's answer judged by the case's kind, the tree hash compared for a refusal. */
function judgeAttempt(result: HostileResult, operation: string, outcome: ReturnType<typeof helperOf>, treeBefore: string, treeAfter: string): void {
  const { kind } = result;
  const line = outcome.line;
  const text = !line ? `no result line (exit ${String(outcome.code)})` : line.ok ? 'succeeded' : `${line.error.code}: ${line.error.message.slice(0, 200)}`;
  if (kind === 'refused') {
    const refused = line !== undefined && !line.ok && line.error.code === 'ownership';
    result.attempts.push({ operation, outcome: text, ok: refused });
    if (!refused) result.refused = false;
    if (treeBefore !== treeAfter) result.unchanged = false;
  } else if (kind === 'not-served') {
    const notServed = line !== undefined && !line.ok && line.error.code === 'not-ready' && /is held by UID \d+/.test(line.error.message);
    result.attempts.push({ operation, outcome: text, ok: notServed });
    if (!notServed) result.refused = false;
  } else {
    result.attempts.push({ operation, outcome: text, ok: line?.ok === true });
    if (line?.ok !== true) result.problems.push(`${operation} through planted links failed: ${text}`);
  }
}

/** Sets the case up, then in one round trip: watched targets, tree hash / attempt / tree hash ..., the targets again. */
async function attack(item: HostileCase, ctx: Ctx, result: HostileResult): Promise<void> {
  const { link } = ctx;
  await item.setup(ctx);
  const attempts = item.attempts.map(([operation, args]) => ({ operation, argument: encodeArgument(envelopeFor(link, operation, args(ctx) as never)) }));
  const watch = targetsScript(item.watch ?? []);
  const steps = await runSteps(link, [{ sh: watch }, { sh: TREE_HASH }, ...attempts.flatMap((attempt) => [{ helper: attempt.argument }, { sh: TREE_HASH }]), { sh: watch }]);
  let before = shOf(steps[1]);
  for (const [index, { operation }] of attempts.entries()) {
    const after = shOf(steps[3 + index * 2]);
    judgeAttempt(result, operation, helperOf(steps[2 + index * 2]), before, after);
    if (result.kind === 'refused') before = after;
  }
  const watched = shOf(steps[0]);
  const now = shOf(steps[steps.length - 1]);
  if (now !== watched) {
    result.targetsUnchanged = false;
    const was = new Set(watched.split('\n'));
    result.problems.push(
      `changed: ${now
        .split('\n')
        .filter((line) => !was.has(line))
        .join(' | ')}`,
    );
  }
  if (item.after) {
    const extra = await item.after(ctx);
    result.problems.push(...extra.problems);
    if (extra.problems.length > 0) result.refused = false;
    if (extra.observation) result.observation = extra.observation;
  }
}

/** One case run and judged. */
async function runCase(item: HostileCase, ctx: Ctx): Promise<HostileResult> {
  const kind = item.kind ?? 'refused';
  const result: HostileResult = { name: item.name, kind, attempts: [], refused: true, unchanged: true, targetsUnchanged: true, problems: [] };
  try {
    await attack(item, ctx, result);
  } catch (error) {
    result.problems.push(`setup failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    result.refused = false;
  }
  if (!result.refused && kind === 'refused') result.problems.push('not every attempt was refused with an ownership error');
  if (!result.refused && kind === 'not-served') result.problems.push("not every attempt answered not-ready naming the squatter's UID");
  if (!result.unchanged) result.problems.push('a refused operation changed the host tree');
  if (!result.targetsUnchanged) result.problems.push('a link target outside the root changed');
  return result;
}

export async function runHostile(link: HostLink, progress: (line: string) => void, selection: HostileSelection = {}): Promise<HostileResult[]> {
  const { coreOnly = false, share = 0, of = 1, only = () => true } = selection;
  const results: HostileResult[] = [];
  // The shared root exists before any attack, as on a host that already serves Agents.
  await ok(link, 'ensure-namespace', { namespace: { id: 'ns-hostile-base', name: 'hostile' } }, { send: link.mux });
  const selected = CASES.map((item, index) => ({ item, index })).filter(({ item }) => only(item.name) && (!coreOnly || item.core));
  for (const { item, index } of selected.filter((_, position) => position % of === share)) {
    const ctx = contextFor(link, index);
    const result = await runCase(item, ctx);
    results.push(result);
    progress(`hostile: ${item.name}: ${result.problems.length === 0 ? 'ok' : result.problems.join('; ')}`);
    await scrub(ctx);
  }
  return results;
}
