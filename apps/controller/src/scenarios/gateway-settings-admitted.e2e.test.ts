// The values next to the refused gateway settings (see gateway-settings.e2e): each is admitted, and
// the real OpenClaw gateway in the driver's own unit starts and answers loopback /readyz.
import { describe, test } from 'node:test';
import { ADMITTED, GatewaySettingsHost } from '../../test/gateway-settings.js';

describe('gateway settings against the real OpenClaw gateway in its unit: admitted values', () => {
  const gs = new GatewaySettingsHost('gwsadmitted');
  for (const [name, gateway] of ADMITTED) {
    test(`admitted: ${name}; the real gateway starts and answers /readyz`, () => gs.admitted(gateway));
  }

  test('an omitted bind is rendered as loopback: on a host OpenClaw takes for a container, the real gateway still listens on loopback only', () => gs.omittedBindOnContainerHost());
});
