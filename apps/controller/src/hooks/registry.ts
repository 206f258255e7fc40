// Lifecycle hook owners: the drivers OCC hands over, set before the first lifecycle operation.
import { ComputeError } from '@occ-ssh/protocol';
import type { Driver, LifecycleDriver } from '../types.js';

const PHASES = new Set(['afterNamespacePrepared', 'beforeWorkloadStart', 'beforeWorkloadStop', 'beforeNamespaceDelete']);

/** OCC's rule for hooks: an object with at least one of the four phases, each a function, nothing else. */
function checkHooks(driver: Driver): void {
  const hooks: unknown = driver.computeLifecycleHooks;
  const keys = typeof hooks === 'object' && hooks !== null && !Array.isArray(hooks) ? Object.keys(hooks) : undefined;
  const valid = keys !== undefined && keys.length > 0 && keys.every((key) => PHASES.has(key) && typeof (hooks as Record<string, unknown>)[key] === 'function');
  if (!valid) throw new ComputeError('configuration', `lifecycle driver "${driver.id}" has invalid computeLifecycleHooks: expected functions named ${[...PHASES].join(', ')}`);
}

/** OCC's selection is the selection: every driver handed over is an owner, once, if its hooks are valid. */
export class HookRegistry {
  private owners: readonly LifecycleDriver[] = [];
  private closed = false;

  set(drivers: readonly Driver[]): void {
    if (this.closed) throw new ComputeError('configuration', 'lifecycle hook owners are fixed once the first lifecycle operation has begun');
    const seen = new Set<string>();
    const owners: LifecycleDriver[] = [];
    for (const driver of drivers) {
      if (seen.has(driver.id)) throw new ComputeError('configuration', `lifecycle driver "${driver.id}" is registered twice`);
      seen.add(driver.id);
      if (driver.capability !== 'configuration' && driver.capability !== 'iam') {
        throw new ComputeError('configuration', `lifecycle driver "${driver.id}" has capability "${String(driver.capability)}"; only Configuration and IAM hooks run under SSH Compute`);
      }
      checkHooks(driver);
      owners.push(driver as LifecycleDriver);
    }
    this.owners = Object.freeze(owners);
  }

  /** The owners, asked as a lifecycle operation begins: from then on they cannot change. */
  ownersForOperation(): readonly LifecycleDriver[] {
    this.closed = true;
    return this.owners;
  }
}
