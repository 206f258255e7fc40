// Test support: a compromised gateway. The attack runs where a real compromised gateway would: as the
// Agent's account, inside its unit, started by systemd as the Agent's `openclawPath`.
import type { RemoteHost } from './remote.js';

const TENANT_DIR = '/opt/occ-tenant';

/**
 * Installs a gateway script that first runs `attack` (CommonJS source, run at start as the gateway
 * process), then behaves exactly like the fixture gateway, so activation can still reach readiness.
 * Returns its path: pass it as `runtime: { openclawPath }` on every call for that Agent.
 * What the attack finds is best written to `process.env.OPENCLAW_STATE_DIR`, which a test reads as root.
 */
export async function installTenantGateway(host: RemoteHost, name: string, attack: string): Promise<string> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`tenant gateway name ${JSON.stringify(name)} must be lower-case letters, digits and hyphens`);
  const path = `${TENANT_DIR}/${name}.cjs`;
  const source = `'use strict';\n// Compromised gateway "${name}": the attack, then the fixture gateway's own behaviour.\n${attack}\nrequire(${JSON.stringify(host.fixtureGatewayPath)});\n`;
  await host.run(['mkdir', '-p', '-m', '0755', TENANT_DIR]);
  await host.run(['sh', '-c', `cat > ${path}.tmp && chmod 0755 ${path}.tmp && mv ${path}.tmp ${path}`], { input: source });
  return path;
}
