// The hostile section: hostile host state. Foreign or edited markers, changed snapshots, links where the
// driver expects files or directories, unit files it did not write, squatted account names and
// reused UIDs, directories without their markers, two Agents on one port and an activation older
// than the current revision: each must be refused with an `ownership` error, adopt nothing and
// write nothing (tree hash unchanged). Links an Agent plants inside its own home/ and state/ must never be
// followed: prepare, activate and delete succeed and the link targets stay exactly as they were.
// A sibling Agent's account listening on the Agent's port must never be taken for its gateway:
// activation answers not-ready naming the squatter's UID and served.json is not written.
import { accountName, agentHash, agentLayout, markerText, nsHash, revisionLayout, unitOwnershipHeader, type AgentLayout } from '@occ-ssh/markers';
import type { AgentOwner, OperationArgs, OperationName } from '@occ-ssh/protocol';
import { encodeArgument } from '@occ-ssh/protocol';
import { helperOf, runSteps, shOf, TREE_HASH } from '../host/collector.js';
import { envelopeFor, ok, ROOT, UNIT_DIR } from '@occ-ssh/test-support';
import { activateArgs, ownerOf, prepareArgs, RUNTIME_USER } from '../host/fixture-args.js';

const SQUATTER_UNIT = 'occ-chaos-squatter';
import type { HostLink } from '../host/ssh.js';

export interface HostileResult {
  name: string;
  /**
   * `refused`: every attempt must fail with ownership. `not-followed`: the operations succeed through
   * planted links. `not-served`: every attempt must fail with not-ready naming the squatter's UID.
   */
  kind: 'refused' | 'not-followed' | 'not-served';
  attempts: { operation: string; outcome: string; ok: boolean }[];
  refused: boolean;
  unchanged: boolean;
  targetsUnchanged: boolean;
  problems: string[];
  /** What the campaign saw that the promises leave open (reported, not judged). */
  observation?: string;
}

interface Ctx {
  link: HostLink;
  owner: AgentOwner;
  layout: AgentLayout;
  account: string;
  p1: OperationArgs<'prepare-revision'>;
  p2: OperationArgs<'prepare-revision'>;
  /** Writes a root-owned 0600 file (a forged marker). */
  plant: (path: string, text: string, mode?: string) => Promise<void>;
}

type Attempt = [OperationName, (ctx: Ctx) => unknown];

interface HostileCase {
  name: string;
  /** Brings the Agent to the state the attack starts from, then plants the attack. */
  setup: (ctx: Ctx) => Promise<void>;
  attempts: Attempt[];
  /**
   * Paths outside the root that must not change: `full` (metadata, times and bytes) or `meta`
   * (owner, group, mode and type: for /etc, /etc/passwd and /etc/shadow, which userdel legitimately rewrites).
   */
  watch?: [string, 'full' | 'meta'][];
  kind?: HostileResult['kind'];
  /** In the quick campaign's subset: at least one case of every kind of hostile state. */
  core?: boolean;
  /** A further check after the attempts, for an operation whose refusal comes after some of its own effects. */
  after?: (ctx: Ctx) => Promise<{ problems: string[]; observation?: string }>;
}

const prepare1: Attempt = ['prepare-revision', (ctx) => ctx.p1];
const prepare2: Attempt = ['prepare-revision', (ctx) => ctx.p2];
const activate1: Attempt = ['activate-revision', (ctx) => activateArgs(ctx.p1)];
const ensureNs: Attempt = ['ensure-namespace', (ctx) => ({ namespace: ctx.owner.namespace })];
const deleteNs: Attempt = ['delete-namespace', (ctx) => ({ namespace: ctx.owner.namespace })];
const stop1: Attempt = ['stop-revision', (ctx) => ({ owner: ctx.owner, revision: ctx.p1.revision })];
const retire1: Attempt = ['retire-revision', (ctx) => ({ owner: ctx.owner, revision: ctx.p1.revision })];
/** A new Agent in the same Namespace: its prepare is the one that scans every marker for a free port. */
const newcomer = (ctx: Ctx): AgentOwner => ({ ...ownerOf(`${ctx.owner.agent.id.slice('agent-'.length)}-new`), namespace: ctx.owner.namespace });
const prepareNewcomer: Attempt = ['prepare-revision', (ctx) => prepareArgs(newcomer(ctx), 1)];

/** The Agent staged (and optionally serving) the ordinary way, in one round trip. */
async function staged(ctx: Ctx, activate = false): Promise<void> {
  const ops: [OperationName, unknown][] = [
    ['ensure-namespace', { namespace: ctx.owner.namespace }],
    ['prepare-revision', ctx.p1],
    ...(activate ? [['activate-revision', activateArgs(ctx.p1)] as [OperationName, unknown]] : []),
  ];
  const steps = await runSteps(
    ctx.link,
    ops.map(([operation, args]) => ({ helper: encodeArgument(envelopeFor(ctx.link, operation, args as never)) })),
  );
  for (const [index, [operation]] of ops.entries()) {
    const line = helperOf(steps[index]).line;
    if (!line?.ok) throw new Error(`${operation}: ${line && !line.ok ? `${line.error.code}: ${line.error.message}` : 'no result line'}`);
  }
}

const foreign = (ctx: Ctx) => ownerOf(`${ctx.owner.agent.id.slice('agent-'.length)}-x`, `${ctx.owner.agent.id.slice('agent-'.length)}-x`, ctx.owner.namespace.name);

function agentMarkerOf(ctx: Ctx, changes: Record<string, unknown>): string {
  return markerText({
    kind: 'agent',
    version: 1,
    driver: 'compute-ssh',
    namespaceId: ctx.owner.namespace.id,
    agentId: ctx.owner.agent.id,
    servicePrincipalId: ctx.owner.servicePrincipal.id,
    account: ctx.account,
    uid: 4001,
    gid: 4001,
    port: 18899,
    ...changes,
  } as never);
}

const CASES: HostileCase[] = [
  {
    name: 'foreign Namespace marker at the Namespace directory',
    core: true,
    setup: async (ctx) => {
      const dir = `${ROOT}/namespaces/${nsHash(ctx.owner.namespace.id)}`;
      await ctx.link.run(['sh', '-c', `mkdir -m 711 ${dir} ${dir}/agents`]);
      await ctx.plant(`${dir}/namespace.json`, markerText({ kind: 'namespace', version: 1, driver: 'compute-ssh', namespaceId: 'ns-someone-else', namespaceName: ctx.owner.namespace.name }));
    },
    attempts: [ensureNs, prepare1, deleteNs],
  },
  {
    name: 'Namespace marker edited to another name',
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.link.run(['sed', '-i', `s/"namespaceName": "${ctx.owner.namespace.name}"/"namespaceName": "renamed"/`, `${ROOT}/namespaces/${nsHash(ctx.owner.namespace.id)}/namespace.json`]);
    },
    attempts: [ensureNs, prepare2, deleteNs],
  },
  {
    name: 'Agent marker edited to another ServicePrincipal',
    core: true,
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.link.run(['sed', '-i', `s/"servicePrincipalId": "${ctx.owner.servicePrincipal.id}"/"servicePrincipalId": "sp-intruder"/`, ctx.layout.marker]);
    },
    attempts: [prepare2, activate1],
  },
  {
    name: 'Agent marker of another Agent copied in',
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.plant(ctx.layout.marker, agentMarkerOf(ctx, { agentId: foreign(ctx).agent.id }));
    },
    attempts: [prepare2, activate1, deleteNs],
  },
  {
    name: 'Agent marker that is not JSON',
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.plant(ctx.layout.marker, '{"kind": "agent", ');
    },
    attempts: [prepare2, activate1, deleteNs],
  },
  {
    name: 'Agent marker made writable by others',
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.link.run(['chmod', '666', ctx.layout.marker]);
    },
    attempts: [prepare2, activate1],
  },
  {
    name: 'Agent marker replaced by a link to /etc/shadow',
    core: true,
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.link.run(['ln', '-sfn', '/etc/shadow', ctx.layout.marker]);
    },
    attempts: [prepare2, activate1, deleteNs],
    watch: [['/etc/shadow', 'full']],
  },
  {
    name: 'revision marker of another Agent copied in',
    setup: async (ctx) => {
      await staged(ctx);
      const marker = revisionLayout(ctx.layout.dir, ctx.p1.revision.id).marker;
      await ctx.link.run(['sed', '-i', `s/"agentId": "${ctx.owner.agent.id}"/"agentId": "${foreign(ctx).agent.id}"/`, marker]);
    },
    attempts: [activate1, prepare1, deleteNs],
  },
  {
    name: 'snapshot bytes changed after preparation',
    core: true,
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.link.run(['sh', '-c', `printf ' ' >> ${revisionLayout(ctx.layout.dir, ctx.p1.revision.id).config}`]);
    },
    attempts: [activate1, prepare1, stop1, retire1, deleteNs],
  },
  {
    name: 'revision directory renamed away from its revision ID',
    setup: async (ctx) => {
      await staged(ctx);
      const dir = revisionLayout(ctx.layout.dir, ctx.p1.revision.id).dir;
      await ctx.link.run(['mv', dir, `${ctx.layout.revisions}/0123456789ab`]);
    },
    attempts: [prepare2, activate1, deleteNs],
  },
  {
    name: 'snapshot replaced by a link to /etc/passwd',
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.link.run(['ln', '-sfn', '/etc/passwd', revisionLayout(ctx.layout.dir, ctx.p1.revision.id).config]);
    },
    attempts: [activate1, prepare1],
    watch: [['/etc/passwd', 'full']],
  },
  {
    name: 'account marker of another Agent under this account name',
    setup: async (ctx) => {
      await ok(ctx.link, 'ensure-namespace', { namespace: ctx.owner.namespace }, { send: ctx.link.mux });
      await ctx.plant(
        `${ROOT}/accounts/${ctx.account}.json`,
        markerText({
          kind: 'account',
          version: 1,
          driver: 'compute-ssh',
          namespaceId: ctx.owner.namespace.id,
          agentId: foreign(ctx).agent.id,
          servicePrincipalId: ctx.owner.servicePrincipal.id,
          account: ctx.account,
          state: 'active',
          uid: 4242,
          gid: 4242,
        }),
      );
    },
    attempts: [prepare1],
  },
  {
    name: 'a user with the Agent account name exists already',
    core: true,
    setup: async (ctx) => {
      await ok(ctx.link, 'ensure-namespace', { namespace: ctx.owner.namespace }, { send: ctx.link.mux });
      await ctx.link.run(['useradd', '--system', '--no-create-home', ctx.account]);
    },
    attempts: [prepare1],
  },
  {
    name: 'a group with the Agent account name exists already',
    core: true,
    setup: async (ctx) => {
      await ok(ctx.link, 'ensure-namespace', { namespace: ctx.owner.namespace }, { send: ctx.link.mux });
      await ctx.link.run(['groupadd', '--system', ctx.account]);
    },
    attempts: [prepare1],
  },
  {
    name: 'the Agent account now has another UID (usermod -u)',
    core: true,
    setup: async (ctx) => {
      await staged(ctx, true);
      await ctx.link.run(['systemctl', 'stop', ctx.layout.unitName]);
      await ctx.link.run(['usermod', '-u', '4343', ctx.account]);
    },
    attempts: [prepare2, activate1, stop1, retire1, deleteNs],
  },
  {
    name: 'the Agent account marker removed',
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.link.run(['rm', `${ROOT}/accounts/${ctx.account}.json`]);
    },
    attempts: [prepare2, activate1, deleteNs],
  },
  {
    name: 'a unit file without the ownership header',
    core: true,
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.plant(ctx.layout.unitFile, '[Service]\nExecStart=/bin/sh -c "id > /root/owned"\n', '644');
    },
    attempts: [activate1, deleteNs],
    watch: [['/root', 'full']],
  },
  {
    name: "a unit file with another Agent's ownership header",
    setup: async (ctx) => {
      await staged(ctx);
      const other = foreign(ctx);
      await ctx.plant(ctx.layout.unitFile, `${unitOwnershipHeader(other.namespace.id, other.agent.id)}\n[Service]\nExecStart=/bin/true\n`, '644');
    },
    attempts: [activate1, deleteNs],
  },
  {
    name: 'current replaced by a link to /etc',
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.link.run(['ln', '-sfn', '/etc', ctx.layout.current]);
    },
    attempts: [activate1, deleteNs],
    watch: [['/etc', 'full']],
  },
  {
    name: 'served.json of another Agent',
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.plant(
        ctx.layout.served,
        markerText({
          kind: 'served',
          version: 1,
          driver: 'compute-ssh',
          namespaceId: ctx.owner.namespace.id,
          agentId: foreign(ctx).agent.id,
          revisionId: ctx.p1.revision.id,
          revisionNumber: 1,
          configurationHash: ctx.p1.configuration.hash,
          port: 18899,
          servedAt: new Date().toISOString(),
        }),
      );
    },
    attempts: [prepare2, activate1, deleteNs],
  },
  {
    name: 'state/ replaced by a link to /etc',
    core: true,
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.link.run(['sh', '-c', `rm -rf ${ctx.layout.state} && ln -s /etc ${ctx.layout.state}`]);
    },
    attempts: [prepare2],
    watch: [['/etc', 'full']],
  },
  {
    name: 'home/ replaced by a link to /root',
    setup: async (ctx) => {
      await staged(ctx);
      await ctx.link.run(['sh', '-c', `rm -rf ${ctx.layout.home} && ln -s /root ${ctx.layout.home}`]);
    },
    attempts: [prepare2],
    watch: [['/root', 'full']],
  },
  {
    name: 'a Namespace directory without its marker',
    setup: async (ctx) => {
      const dir = `${ROOT}/namespaces/${nsHash(ctx.owner.namespace.id)}`;
      await ctx.link.run(['mkdir', '-m', '711', dir, `${dir}/agents`]);
    },
    attempts: [ensureNs, prepare1],
  },
  {
    name: 'an Agent directory without its marker beside a new Agent',
    setup: async (ctx) => {
      await ok(ctx.link, 'ensure-namespace', { namespace: ctx.owner.namespace }, { send: ctx.link.mux });
      await ctx.link.run(['mkdir', '-m', '711', `${ROOT}/namespaces/${nsHash(ctx.owner.namespace.id)}/agents/${agentHash(foreign(ctx).agent.id)}`]);
    },
    attempts: [prepare1],
  },
  {
    name: 'two Agents recording one port',
    core: true,
    setup: async (ctx) => {
      await staged(ctx);
      const { port } = JSON.parse(await ctx.link.run(['cat', ctx.layout.marker])) as { port: number };
      const other = { ...foreign(ctx), namespace: ctx.owner.namespace };
      const dir = `${ROOT}/namespaces/${nsHash(ctx.owner.namespace.id)}/agents/${agentHash(other.agent.id)}`;
      await ctx.link.run(['mkdir', '-m', '711', dir]);
      await ctx.plant(`${dir}/agent.json`, agentMarkerOf(ctx, { agentId: other.agent.id, servicePrincipalId: other.servicePrincipal.id, port }));
    },
    attempts: [prepareNewcomer, deleteNs],
  },
  {
    name: 'an activation older than the current revision (a late worker)',
    core: true,
    setup: async (ctx) => {
      await staged(ctx);
      const ops: [OperationName, unknown][] = [
        ['prepare-revision', ctx.p2],
        ['activate-revision', activateArgs(ctx.p2)],
      ];
      const steps = await runSteps(
        ctx.link,
        ops.map(([operation, args]) => ({ helper: encodeArgument(envelopeFor(ctx.link, operation, args as never)) })),
      );
      if (!steps.every((step) => helperOf(step).line?.ok)) throw new Error('could not activate the newer revision');
    },
    attempts: [activate1],
  },
  {
    name: 'the Namespace directory is a link',
    setup: async (ctx) => {
      await ctx.link.run(['sh', '-c', `mkdir -p /var/tmp/elsewhere && ln -sfn /var/tmp/elsewhere ${ROOT}/namespaces/${nsHash(ctx.owner.namespace.id)}`]);
    },
    attempts: [ensureNs, prepare1],
    watch: [['/var/tmp/elsewhere', 'full']],
  },
  {
    name: "a sibling Agent's account listening on the Agent's port while its gateway is stopped",
    core: true,
    kind: 'not-served',
    setup: async (ctx) => {
      await staged(ctx, true);
      const { port } = await ok(ctx.link, 'prepare-revision', ctx.p2, { send: ctx.link.mux });
      const sibling = foreign(ctx);
      await ok(ctx.link, 'ensure-namespace', { namespace: sibling.namespace }, { send: ctx.link.mux });
      await ok(ctx.link, 'prepare-revision', prepareArgs(sibling, 1), { send: ctx.link.mux });
      const uid = (await ctx.link.run(['id', '-u', accountName(RUNTIME_USER, sibling.namespace.id, sibling.agent.id)])).trim();
      await ctx.link.run(['systemctl', 'stop', ctx.layout.unitName]);
      await ctx.plant('/etc/occ-chaos-squatter.json', '{}', '644');
      // The fixture gateway under the sibling's account answers /readyz 200 on the Agent's port.
      await ctx.link.run([
        'systemd-run',
        `--unit=${SQUATTER_UNIT}`,
        '--collect',
        `--uid=${uid}`,
        '-p',
        'PrivateTmp=yes',
        '-E',
        'OPENCLAW_CONFIG_PATH=/etc/occ-chaos-squatter.json',
        '-E',
        'OPENCLAW_STATE_DIR=/tmp/state',
        ctx.link.host.nodePath,
        ctx.link.host.fixtureGatewayPath,
        'gateway',
        '--port',
        String(port),
      ]);
      await ctx.link.run(['sh', '-c', 'for i in $(seq 100); do curl -sf -o /dev/null "$1" && exit 0; sleep 0.1; done; exit 1', 'wait', `http://127.0.0.1:${port}/readyz`]);
    },
    attempts: [['activate-revision', (ctx) => activateArgs(ctx.p2)]],
    after: async (ctx) => {
      const problems: string[] = [];
      if ((await ctx.link.exec(['test', '-e', ctx.layout.served])).code === 0) problems.push('served.json was written for the squatter');
      await ctx.link.exec(['systemctl', 'stop', SQUATTER_UNIT]);
      await ctx.link.exec(['rm', '-f', '/etc/occ-chaos-squatter.json']);
      await ok(ctx.link, 'delete-namespace', { namespace: foreign(ctx).namespace }, { send: ctx.link.mux });
      return { problems };
    },
  },
  {
    name: 'links the Agent plants inside home/ and state/ (to /etc, /root, /etc/shadow)',
    core: true,
    kind: 'not-followed',
    setup: async (ctx) => {
      await staged(ctx, true);
      const as = (command: string) => `runuser -u ${ctx.account} -- ${command}`;
      await ctx.link.run([
        'sh',
        '-c',
        [
          'echo sentinel > /etc/chaos-sentinel',
          as(`ln -s /etc ${ctx.layout.state}/etc-link`),
          as(`ln -s /root ${ctx.layout.state}/root-link`),
          as(`ln -s /etc/shadow ${ctx.layout.home}/shadow-link`),
          as(`ln -s /etc ${ctx.layout.home}/.config`),
          as(`mkdir -p ${ctx.layout.state}/deep/er`),
          as(`ln -s /root ${ctx.layout.state}/deep/er/root-link`),
        ].join(' && '),
      ]);
    },
    attempts: [prepare2, ['activate-revision', (ctx) => activateArgs(ctx.p2)], ['retire-revision', (ctx) => ({ owner: ctx.owner, revision: ctx.p1.revision })], deleteNs],
    watch: [
      ['/root', 'full'],
      ['/etc/chaos-sentinel', 'full'],
      ['/etc', 'meta'],
      ['/etc/shadow', 'meta'],
      ['/etc/passwd', 'meta'],
    ],
  },
];

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

export async function runHostile(link: HostLink, progress: (line: string) => void, selection: HostileSelection = {}): Promise<HostileResult[]> {
  const { coreOnly = false, share = 0, of = 1, only = () => true } = selection;
  const results: HostileResult[] = [];
  // The shared root exists before any attack, as on a host that already serves Agents.
  await ok(link, 'ensure-namespace', { namespace: { id: 'ns-hostile-base', name: 'hostile' } }, { send: link.mux });
  const selected = CASES.map((item, index) => ({ item, index })).filter(({ item }) => only(item.name) && (!coreOnly || item.core));
  for (const { item, index } of selected.filter((_, position) => position % of === share)) {
    const owner = ownerOf(`hostile${index}`, `hostile${index}`, 'hostile');
    const layout = agentLayout(ROOT, UNIT_DIR, owner.namespace.id, owner.agent.id);
    const ctx: Ctx = {
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
    const kind = item.kind ?? 'refused';
    const result: HostileResult = { name: item.name, kind, attempts: [], refused: true, unchanged: true, targetsUnchanged: true, problems: [] };
    try {
      await item.setup(ctx);
      // One round trip: watched targets, then tree hash / attempt / tree hash ..., then the targets again.
      const attempts = item.attempts.map(([operation, args]) => ({ operation, argument: encodeArgument(envelopeFor(link, operation, args(ctx) as never)) }));
      const watch = targetsScript(item.watch ?? []);
      const steps = await runSteps(link, [{ sh: watch }, { sh: TREE_HASH }, ...attempts.flatMap((attempt) => [{ helper: attempt.argument }, { sh: TREE_HASH }]), { sh: watch }]);
      let before = shOf(steps[1]);
      for (const [index, { operation }] of attempts.entries()) {
        const outcome = helperOf(steps[2 + index * 2]);
        const after = shOf(steps[3 + index * 2]);
        const line = outcome.line;
        const text = !line ? `no result line (exit ${String(outcome.code)})` : line.ok ? 'succeeded' : `${line.error.code}: ${line.error.message.slice(0, 200)}`;
        if (kind === 'refused') {
          const refused = line !== undefined && !line.ok && line.error.code === 'ownership';
          result.attempts.push({ operation, outcome: text, ok: refused });
          if (!refused) result.refused = false;
          if (before !== after) result.unchanged = false;
          before = after;
        } else if (kind === 'not-served') {
          const notServed = line !== undefined && !line.ok && line.error.code === 'not-ready' && /is held by UID \d+/.test(line.error.message);
          result.attempts.push({ operation, outcome: text, ok: notServed });
          if (!notServed) result.refused = false;
        } else {
          result.attempts.push({ operation, outcome: text, ok: line?.ok === true });
          if (line?.ok !== true) result.problems.push(`${operation} through planted links failed: ${text}`);
        }
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
    } catch (error) {
      result.problems.push(`setup failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      result.refused = false;
    }
    if (!result.refused && kind === 'refused') result.problems.push('not every attempt was refused with an ownership error');
    if (!result.refused && kind === 'not-served') result.problems.push("not every attempt answered not-ready naming the squatter's UID");
    if (!result.unchanged) result.problems.push('a refused operation changed the host tree');
    if (!result.targetsUnchanged) result.problems.push('a link target outside the root changed');
    results.push(result);
    progress(`hostile: ${item.name}: ${result.problems.length === 0 ? 'ok' : result.problems.join('; ')}`);
    await scrub(ctx);
  }
  return results;
}
