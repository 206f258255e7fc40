// The real OpenClaw gateway, in the driver's own unit on a real host, with each gateway setting the
// audit of OpenClaw 2026.9.6 found: every value admission refuses keeps loopback /readyz from ever
// answering (staged the way a driver released before the refusal would have, then activated). A
// revision staged before its refusal existed is still stopped and retired by the current driver,
// which never re-admits it. Each refusal waits out the gateway, so they run on two hosts at once;
// the admitted neighbours are in gateway-settings-admitted.e2e, on a host of their own.
import { describe, test } from 'node:test';
import { GatewaySettingsHost, REFUSED } from '../../test/gateway-settings.js';

const HOSTS = ['gwsettings', 'gwsrefused'];

describe('gateway settings against the real OpenClaw gateway in its unit: refused values', { concurrency: HOSTS.length }, () => {
  for (const [index, hostName] of HOSTS.entries()) {
    describe(`on the test host ${hostName}`, () => {
      const gs = new GatewaySettingsHost(hostName);
      for (const refused of REFUSED.filter((_, i) => i % HOSTS.length === index)) {
        test(`refused: ${refused.name}; staged as before the refusal, the gateway never answers /readyz, and stop and retire still work`, () => gs.refused(refused));
      }
    });
  }
});
