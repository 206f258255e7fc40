// Values the operation examples share: one owner, one revision, one admitted document.
const document = '{"gateway":{"auth":{"mode":"password"}}}\n';

export const EXAMPLE_OWNER = {
  namespace: { id: 'ns-01HZX3', name: 'team-a' },
  agent: { id: 'agent-7f3a' },
  servicePrincipal: { id: 'sp-01' },
};

export const EXAMPLE_REVISION = { id: 'rev-0001', number: 1 };

/**
 * The document's SHA-256, written out rather than computed (the protocol's tests check it). The
 * examples stay out of the helper's bundle only while nothing in them runs at load: a call, or a
 * property read such as `EXAMPLE_CONFIGURATION.hash`, would keep them in.
 */
export const EXAMPLE_CONFIGURATION_HASH = '41ae445696f421efbe042daea3398b440248267206b37d601f33a60a7212bb21';

export const EXAMPLE_CONFIGURATION = { document, hash: EXAMPLE_CONFIGURATION_HASH, auth: 'password' as const };

export const EXAMPLE_ACCOUNT = { name: 'openclaw-0123456789ab', uid: 990, gid: 990 };
export const EXAMPLE_PORT = 18800;

/** The runtime settings of the reference's example Installation, as the envelope carries them. */
export const EXAMPLE_RUNTIME = {
  root: '/var/lib/openclaw-enterprise',
  systemdUnitDirectory: '/etc/systemd/system',
  nodePath: '/usr/bin/node',
  openclawPath: '/opt/openclaw/current/dist/index.js',
  user: 'openclaw',
  gatewayPortRange: { start: 18800, end: 18899 },
};
