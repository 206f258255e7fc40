// Hostile accounts and units: squatted names, reused UIDs, removed account markers, unit files without their header.
import { markerText, unitOwnershipHeader } from '@occ-ssh/markers';
import { ok, ROOT } from '@occ-ssh/test-support';
import { activate1, deleteNs, foreign, type HostileCase, prepare1, prepare2, retire1, staged, stop1 } from './case.js';

export const ACCOUNT_CASES: HostileCase[] = [
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
];
