// Public API of the test host harness: real systemd + OpenSSH hosts for lifecycle tests.
export { startTestHost, type TestHost } from './host.js';
export { ensureRootfs, type RootfsResult } from './rootfs.js';
export { reapTestHosts } from './reap.js';
export type { ExecOptions, ExecResult } from './ssh.js';
export type { DebianRelease, HostNodeLine, ImageChoice, NodeLine, Variant } from './recipe.js';
export { DEBIAN_RELEASES, imageChoiceFromEnv, NODE_LINES, NODE_VERSION, onDefaultImage, OPENCLAW_VERSION } from './recipe.js';
export { ensureNodeLine } from './node-lines.js';
export { linkTestHosts } from './link.js';
/** A host's network namespace, veth and cgroup names: a test may add an address to the host's own loopback from the machine, where the host itself may not. */
export { hostObjects } from './paths.js';
export { squatterArgv } from './squatter.js';
