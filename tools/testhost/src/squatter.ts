// A fixture gateway outside any Agent unit: a listener another account runs on an Agent's port, for
// the tests that check the helper never takes its answer for the Agent's gateway.
import { HOST_PATHS } from './paths.js';

/** The systemd-run argv that starts it as `uid` on `port`, in the transient unit `unit`, reading the config at `/etc/occ-squat.json`. */
export function squatterArgv(unit: string, uid: number, port: number): string[] {
  return [
    'systemd-run',
    `--unit=${unit}`,
    '--collect',
    `--uid=${uid}`,
    '-p',
    'PrivateTmp=yes',
    '-E',
    'OPENCLAW_CONFIG_PATH=/etc/occ-squat.json',
    '-E',
    'OPENCLAW_STATE_DIR=/tmp/state',
    HOST_PATHS.nodePath,
    HOST_PATHS.fixtureGatewayPath,
    'gateway',
    '--port',
    String(port),
  ];
}
