// The reference's example Compute selection, as an Installation document's text: the valid
// starting point that configuration tests and the bad-input campaign edit one key at a time.

/** Prefix of every SSH Compute setting's key path. */
export const CONFIG_KEY = 'drivers.compute.configuration';

/** The reference's example verbatim, as the first 25 lines of an Installation (`hosts.stable.port` is line 12). */
export const REFERENCE_COMPUTE_SELECTION = `drivers:
  compute:
    id: compute-ssh
    configuration:
      ssh:
        identityFile: /etc/openclaw/ssh/id_ed25519
        knownHostsFile: /etc/openclaw/ssh/known_hosts
        connectTimeoutSeconds: 10
      hosts:
        stable:
          address: 203.0.113.10
          port: 22
          user: root
          nodePath: /usr/bin/node
          openclawPath: /opt/openclaw/current/dist/index.js
      runtime:
        nodePath: /usr/bin/node
        openclawPath: /opt/openclaw/current/dist/index.js
        user: openclaw
        root: /var/lib/openclaw-enterprise
        systemdUnitDirectory: /etc/systemd/system
      network:
        gatewayPortRange:
          start: 18800
          end: 18899
`;
