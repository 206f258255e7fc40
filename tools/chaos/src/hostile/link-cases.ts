// Hostile links and squatters: the Namespace directory a link, a sibling's account on the Agent's port, links the Agent plants in its own directories.
import { accountName, nsHash } from '@occ-ssh/markers';
import { ok, ROOT } from '@occ-ssh/test-support';
import { activateArgs, prepareArgs, RUNTIME_USER } from '../host/fixture-args.js';
import { deleteNs, ensureNs, foreign, type HostileCase, prepare1, prepare2, SQUATTER_UNIT, staged } from './case.js';

export const LINK_CASES: HostileCase[] = [
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
