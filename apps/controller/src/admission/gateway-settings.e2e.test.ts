// The real OpenClaw gateway, in the driver's own unit on a real host, with each gateway setting the
// audit of OpenClaw 2026.9.6 found: every value admission refuses keeps loopback /readyz from ever
// answering (staged the way a driver released before the refusal would have, then activated). A
// revision staged before its refusal existed is still stopped and retired by the current driver,
// which never re-admits it. Each refusal waits for the gateway to refuse, so they are split over two files
// (two processes, two hosts: two drivers in one process would share a host's connection by its
// name): this one, and gateway-settings-refused.e2e; the admitted neighbours are in
// gateway-settings-admitted.e2e.
import { describe, test } from 'node:test';
import { GatewaySettingsHost, REFUSED } from '../../test/gateway-settings.js';

describe('gateway settings against the real OpenClaw gateway in its unit: refused values, odd rows', () => {
  const gs = new GatewaySettingsHost('gwsettings');
  for (const refused of REFUSED.filter((_, i) => i % 2 === 1)) {
    test(`refused: ${refused.name}; staged as before the refusal, the gateway never answers /readyz, and stop and retire still work`, () => gs.refused(refused));
  }
});
