// The even rows of the refused gateway settings (see gateway-settings.e2e, which runs the odd ones on
// a host of its own at the same time), against the real OpenClaw gateway in the driver's own unit.
import { describe, test } from 'node:test';
import { GatewaySettingsHost, REFUSED } from '../../test/gateway-settings.js';

describe('gateway settings against the real OpenClaw gateway in its unit: refused values, even rows', () => {
  const gs = new GatewaySettingsHost('gwsrefused');
  for (const refused of REFUSED.filter((_, i) => i % 2 === 0)) {
    test(`refused: ${refused.name}; staged as before the refusal, the gateway never answers /readyz, and stop and retire still work`, () => gs.refused(refused));
  }
});
