// The real-host files that run a second time, on the other host image CI proves: Debian 13 (systemd
// 257) with Node 26, both in one run so CI pays for one extra pass, not two. The whole suite runs on
// the default image (Debian 12, systemd 252, Node 24); this subset is what must hold on each release
// and Node line an operator may run: every operation's main path, the hostile-tenant files and the
// real gateway. Each entry says why it is here.
export const SECOND_IMAGE = { name: 'debian13-node26', env: { OCC_TESTHOST_DEBIAN: 'trixie', OCC_TESTHOST_NODE: '26' } } as const;

export const SECOND_IMAGE_FILES: Record<string, string> = {
  'apps/controller/src/driver.host.test.ts':
    "the lifecycle main path through the driver (preflight, ensure-namespace, prepare, activate, retire, stop, deactivate, delete-namespace) over the system ssh client, and every transport's preflight against this sshd",
  'apps/controller/src/scenarios/delete-agent.host.test.ts': "delete-agent's main path",
  'apps/controller/src/scenarios/workspace-setup.e2e.test.ts': "setup-workspace's main path, seen by the real gateway's own agents.files.get",
  'apps/controller/src/runtime-view.host.test.ts': "describe-runtime's main path, with a real crash counted by this systemd",
  'apps/controller/src/deployment-diagnostics.host.test.ts': "diagnose-deployment's main path: it reads this systemd's unit properties",
  'apps/host-helper/src/ops/read-logs.host.test.ts': "read-logs' main path: this systemd's journal namespace",
  'apps/host-helper/src/ops/plan-operation.host.test.ts': "plan-operation's main path",
  'apps/controller/src/scenarios/upgrade.host.test.ts': 'the helper upgraded in place, run by this Node',
  'apps/controller/src/preflight.host.test.ts': "preflight passes, with this systemd's version and its SocketBind*/IPAddressDeny= findings",
  'apps/host-helper/src/accounts/account-ids.host.test.ts': "this shadow's useradd: accounts from the Installation's ID range with no subordinate IDs, and login.defs' system range",
  'apps/host-helper/src/systemd/systemd.host.test.ts': 'a new unit started without a reload under the lock, as this systemd loads units and marks reloads',
  'apps/host-helper/src/scenarios/prepare.host.test.ts': "probe's checks (systemd-version among them) and prepare's main path",
  'apps/controller/src/scenarios/openclaw.e2e.test.ts': 'the real OpenClaw gateway through the driver, on this Node: its first start, its password, a cutover and the deletion',
  'tools/testhost/src/openclaw-gateway.host.test.ts': 'the real gateway under systemd, and the image is the Debian, systemd and Node it claims',
  'apps/host-helper/src/scenarios/hardening.host.test.ts': 'every sandbox directive of the gateway units as this systemd applies it',
  'apps/host-helper/src/scenarios/hostile.host.test.ts': 'hostile tenant: attacks from inside a unit',
  'apps/host-helper/src/scenarios/tenant-view.host.test.ts': "hostile tenant: what one Agent can see of another's",
  'apps/host-helper/src/scenarios/tenant-bounds.host.test.ts': "hostile tenant: the unit's memory, task and disk bounds under this systemd",
  'apps/host-helper/src/scenarios/tenant-lock.host.test.ts': "hostile tenant: a tenant holding the host's lock files",
  'apps/host-helper/src/scenarios/tenant-trees.host.test.ts': 'hostile tenant: planted trees and links the helper removes',
  'apps/host-helper/src/scenarios/tenant-audit.host.test.ts': "hostile tenant: forged lines in the helper's audit trail",
  'apps/host-helper/src/scenarios/tenant-core.host.test.ts': 'hostile tenant: no core file of a gateway, under this systemd and kernel',
  'apps/host-helper/src/scenarios/tenant-journal.host.test.ts': "hostile tenant: flooding this systemd's journal through every socket",
  'apps/host-helper/src/scenarios/tenant-journal-bytes.host.test.ts': 'hostile tenant: oversized native journal entries to this journald',
  'apps/host-helper/src/scenarios/tenant-leftovers.host.test.ts': 'hostile tenant: what a UID leaves behind for the next Agent',
  'apps/host-helper/src/scenarios/tenant-link-local.host.test.ts': "hostile tenant: the link-local rule as this systemd's IPAddressDeny= applies it",
  'apps/host-helper/src/scenarios/tenant-removal.host.test.ts': 'hostile tenant: nothing planted is removed under the host lock',
  'apps/host-helper/src/scenarios/tenant-served.host.test.ts': 'hostile tenant: a crowded unit does not hold the lock through a retried activation',
  'apps/host-helper/src/scenarios/tenant-stopper.host.test.ts': 'hostile tenant: a gateway stopping every process of its UID',
  'apps/host-helper/src/scenarios/plan-hostile.host.test.ts': 'hostile tenant: planning against what a gateway planted',
};
