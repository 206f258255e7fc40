// Hostile markers and snapshots: foreign, edited, copied, unreadable, loosened or replaced by links.
import { markerText, nsHash, revisionLayout } from '@occ-ssh/markers';
import { ROOT } from '@occ-ssh/test-support';
import { activate1, agentMarkerOf, deleteNs, ensureNs, foreign, type HostileCase, prepare1, prepare2, retire1, staged, stop1 } from './case.js';

export const MARKER_CASES: HostileCase[] = [
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
];
