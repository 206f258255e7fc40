// Hostile Agent state: links at current, state/ and home/, served.json of another Agent, directories without markers, a shared port, a late activation.
import { agentHash, markerText, nsHash } from '@occ-ssh/markers';
import { encodeArgument, type OperationName } from '@occ-ssh/protocol';
import { envelopeFor, ok, ROOT } from '@occ-ssh/test-support';
import { helperOf, runSteps } from '../host/collector.js';
import { activateArgs } from '../host/fixture-args.js';
import { activate1, agentMarkerOf, deleteNs, ensureNs, foreign, type HostileCase, prepare1, prepare2, prepareNewcomer, staged } from './case.js';

export const AGENT_STATE_CASES: HostileCase[] = [
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
];
