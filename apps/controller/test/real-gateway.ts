// One test host per suite with a driver on the real OpenClaw gateway: preflight passed, the
// binding's Namespace ready and the binding bound; torn down after the suite.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Logger } from '../src/logging.js';
import { startTestHost, type TestHost } from '@occ-ssh/testhost';
import type { SshComputeConfiguration } from '../src/config/index.js';
import { SshComputeDriver } from '../src/driver.js';
import type { ComputeAgentBinding } from '../src/types.js';
import { configFor, memoryLogger } from './hosts.js';

export class RealGatewayHost {
  host!: TestHost;
  driver!: SshComputeDriver;
  configuration!: SshComputeConfiguration;

  /** Registers the suite's before and after hooks; call it inside the describe. */
  constructor(hostName: string, binding: ComputeAgentBinding, options: { logger?: Logger; readinessTimeoutMs?: number; deleteNamespaceAfter?: boolean } = {}) {
    before(async () => {
      this.host = await startTestHost({ name: hostName });
      this.configuration = configFor({ stable: this.host }, { realOpenClaw: true });
      const logger = options.logger ?? memoryLogger().logger;
      this.driver = new SshComputeDriver({ configuration: this.configuration, logger, ...(options.readinessTimeoutMs === undefined ? {} : { readinessTimeoutMs: options.readinessTimeoutMs }) });
      await this.driver.preflight();
      assert.equal((await this.driver.ensureNamespace(binding.namespace)).namespaceReady, true);
      this.driver.bindAgent(binding);
    });
    after(async () => {
      if (options.deleteNamespaceAfter && this.driver && this.host) await this.driver.deleteNamespace(binding.namespace);
      await this.driver?.close();
      await this.host?.down();
    });
  }

  /**
   * The Agent `agentId` as the Namespace's inventory reports it, asked again (every 2 s, 10 times at
   * most) until it reads ready. Inventory gives each Agent's /readyz probe and listener check a bounded time, and on a
   * loaded machine one pass can run out of it while the gateway answers (a test that read one pass
   * right after a successful activation failed in CI at a load near 10, beside two other real gateways).
   */
  async agentOnceReady(namespaceName: string, agentId: string) {
    const find = async () => (await this.driver.inventory(namespaceName)).namespaces.flatMap((ns) => ns.agents).find((a) => a.agentId === agentId);
    let agent = await find();
    for (let i = 0; i < 10 && agent?.ready !== true; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      agent = await find();
    }
    return agent;
  }
}
