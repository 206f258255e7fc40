// The strict schema of `drivers.compute.configuration` for SSH Compute, and the typed result.
import { GATEWAY_LIMIT_BOUNDS, accountIdRange, gatewayHostPath, namespaceName, portRange, runtimeUser, safePath, safePathProblem } from '@occ-ssh/protocol';
import { z } from 'zod';
import { hostAddressProblem } from './address.js';

/** How the controller reaches hosts: the system ssh client, OpenSSH multiplexing, or an ssh2 connection pool. */
export const TRANSPORTS = ['system-ssh', 'openssh-mux', 'ssh2'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** Leaves "is required" to the shared error map when the key is absent; otherwise states the rule. */
const unlessMissing = (reason: string) => (issue: { input?: unknown }) => (issue.input === undefined ? undefined : reason);

/** One reason for every way an integer setting can be wrong: type, fraction or range. */
function integerFrom(min: number, max: number) {
  const error = unlessMissing(`expected an integer from ${min} to ${max}`);
  return z.int({ error }).min(min, { error }).max(max, { error });
}

const hostAddress = z.string({ error: unlessMissing('expected a hostname or IP address') }).superRefine((value, ctx) => {
  const problem = hostAddressProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** True when `inner` is `outer` or lies below it; both are already safe absolute paths. */
function within(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer === '/' ? '/' : `${outer}/`);
}

/** Login names OpenSSH and shadow accept on a bastion; it need not be root there. */
const JUMP_USER_PATTERN = /^[a-z_][a-z0-9_-]{0,31}$/;

/** A bastion every connection goes through; its host key comes from the same known_hosts file. */
const jumpHost = z.strictObject({
  address: hostAddress,
  port: integerFrom(1, 65535).default(22),
  user: z.string({ error: unlessMissing('expected a login name') }).regex(JUMP_USER_PATTERN, { error: 'expected a login name: lower-case letters, digits, _ and -, starting with a letter or _' }),
});

const ssh = z
  .strictObject({
    identityFile: safePath,
    knownHostsFile: safePath,
    connectTimeoutSeconds: integerFrom(1, 300).default(10),
    jumpHost: z.optional(jumpHost),
  })
  .superRefine((value, ctx) => {
    if (value.identityFile === value.knownHostsFile) {
      ctx.addIssue({ code: 'custom', path: ['knownHostsFile'], message: 'must differ from ssh.identityFile' });
    }
  });

/** `user` is required and must be root: the Driver has no sudo fallback and no non-root mode. */
const host = z.strictObject({
  address: hostAddress,
  port: integerFrom(1, 65535).default(22),
  user: z.literal('root', { error: unlessMissing('must be "root" (SSH Compute connects only as root)') }),
  nodePath: z.optional(gatewayHostPath),
  openclawPath: z.optional(gatewayHostPath),
});

const { memoryMaxMiB, tasksMax, cpuWeight } = GATEWAY_LIMIT_BOUNDS;

/**
 * Per-gateway limits, each optional. None is set when a key is absent (docs/operations.md says why):
 * systemd's own defaults then apply, and an Installation without them keeps its units byte-identical.
 */
const gatewayLimits = z.strictObject({
  memoryMaxMiB: z.optional(integerFrom(memoryMaxMiB.min, memoryMaxMiB.max)),
  tasksMax: z.optional(integerFrom(tasksMax.min, tasksMax.max)),
  cpuWeight: z.optional(integerFrom(cpuWeight.min, cpuWeight.max)),
});

/** The unit directory OCC's bundled SSH driver assumes when an Installation omits it. */
export const DEFAULT_SYSTEMD_UNIT_DIRECTORY = '/etc/systemd/system';

/**
 * `root` has no default: the reference shows an example value but documents none, and a guessed
 * root would split a host's shared inventory between Drivers. `systemdUnitDirectory` defaults as
 * OCC's bundled SSH driver does, so its Installations keep working. nodePath and openclawPath are
 * required here too; a host's own values override them. The gateway runs nodePath and openclawPath
 * and lives under root, so none may sit where its sandbox hides files.
 */
const runtime = z
  .strictObject({
    nodePath: gatewayHostPath,
    openclawPath: gatewayHostPath,
    user: runtimeUser,
    root: gatewayHostPath,
    systemdUnitDirectory: z._default(safePath, DEFAULT_SYSTEMD_UNIT_DIRECTORY),
    gatewayLimits: z.optional(gatewayLimits),
    accountIdRange: z.optional(accountIdRange),
  })
  .superRefine(({ root, systemdUnitDirectory }, ctx) => {
    // zod may run this beside field issues; compare only two paths that are each valid.
    if (safePathProblem(String(root)) || safePathProblem(String(systemdUnitDirectory))) return;
    if (root === systemdUnitDirectory) {
      ctx.addIssue({ code: 'custom', path: ['systemdUnitDirectory'], message: 'must differ from runtime.root' });
    } else if (within(systemdUnitDirectory, root)) {
      ctx.addIssue({ code: 'custom', path: ['systemdUnitDirectory'], message: 'must not be inside runtime.root' });
    } else if (within(root, systemdUnitDirectory)) {
      ctx.addIssue({ code: 'custom', path: ['root'], message: 'must not be inside runtime.systemdUnitDirectory' });
    }
  });

/**
 * Port bounds (1024-65535) and order, so at least one port, come from the protocol's `portRange`.
 * `allowLinkLocal: true` lets gateways reach link-local addresses (169.254.0.0/16, fe80::/10), among
 * them the cloud metadata service; absent or false, every gateway unit denies them.
 */
const network = z.strictObject({
  gatewayPortRange: portRange,
  allowLinkLocal: z.optional(z.boolean({ error: unlessMissing('expected true or false') })),
});

/** Host keys are exact Namespace names (the protocol's `namespaceName`); at least one is needed. */
const hosts = z.record(namespaceName, host).refine((value) => Object.keys(value).length > 0, { error: 'expected at least one Namespace mapped to a host' });

/** The controller-wide bound's default: 64 operations and 16 runtime reads, about 80 `ssh` clients at once. */
const DEFAULT_MAX_CONCURRENT_OPERATIONS = 64;

export const sshComputeConfigurationSchema = z.strictObject({
  ssh,
  hosts,
  runtime,
  network,
  transport: z.enum(TRANSPORTS, { error: unlessMissing(`expected one of ${TRANSPORTS.map((name) => `"${name}"`).join(', ')}`) }).default('openssh-mux'),
  maxConcurrentOperationsPerHost: integerFrom(1, 10).default(4),
  maxConcurrentOperations: integerFrom(1, 4096).default(DEFAULT_MAX_CONCURRENT_OPERATIONS),
});

export interface JumpHost {
  readonly address: string;
  readonly port: number;
  readonly user: string;
}

export interface HostConfiguration {
  readonly address: string;
  readonly port: number;
  readonly user: 'root';
  readonly nodePath?: string;
  readonly openclawPath?: string;
}

/** The validated, defaulted and frozen SSH Compute settings of one Installation. */
export interface SshComputeConfiguration {
  readonly ssh: {
    readonly identityFile: string;
    readonly knownHostsFile: string;
    readonly connectTimeoutSeconds: number;
    readonly jumpHost?: JumpHost;
  };
  readonly hosts: { readonly [namespaceName: string]: HostConfiguration };
  readonly runtime: {
    readonly nodePath: string;
    readonly openclawPath: string;
    readonly user: string;
    readonly root: string;
    readonly systemdUnitDirectory: string;
    readonly gatewayLimits?: { readonly memoryMaxMiB?: number; readonly tasksMax?: number; readonly cpuWeight?: number };
    /** The UIDs and GIDs Agent accounts are made with (within 1000-60000); absent, they are system accounts (login.defs' SYS_UID_MIN-SYS_UID_MAX, 101-999 on Debian). */
    readonly accountIdRange?: { readonly start: number; readonly end: number };
  };
  readonly network: { readonly gatewayPortRange: { readonly start: number; readonly end: number }; readonly allowLinkLocal?: boolean };
  readonly transport: Transport;
  readonly maxConcurrentOperationsPerHost: number;
  /** Helper calls in flight across every host at once (each an `ssh` client with the system transports); runtime reads have a quarter of it, at least 2, beside it. */
  readonly maxConcurrentOperations: number;
}
