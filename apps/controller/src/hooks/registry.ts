// Lifecycle hook owners: set once, from selected drivers only, before the first lifecycle operation.
import { ComputeError } from '@occ-ssh/protocol';
import type { LifecycleDriver } from '../types.js';

export class HookRegistry {
  private owners: readonly LifecycleDriver[] = [];
  private fixed = false;

  /** `selected` lists the driver IDs the Installation selects for Configuration and IAM. */
  constructor(private readonly selected: ReadonlySet<string> | undefined) {}

  set(drivers: readonly LifecycleDriver[]): void {
    if (this.fixed) throw new ComputeError('configuration', 'lifecycle hook owners are fixed once the first lifecycle operation has begun');
    const seen = new Set<string>();
    for (const driver of drivers) {
      if (seen.has(driver.id)) throw new ComputeError('configuration', `lifecycle driver "${driver.id}" is registered twice`);
      seen.add(driver.id);
      if (driver.capability !== 'configuration' && driver.capability !== 'iam') {
        throw new ComputeError('configuration', `lifecycle driver "${driver.id}" has capability "${String(driver.capability)}"; only Configuration and IAM hooks run under SSH Compute`);
      }
      if (this.selected && !this.selected.has(driver.id)) {
        throw new ComputeError('configuration', `lifecycle driver "${driver.id}" is not selected in the Installation`);
      }
    }
    this.owners = Object.freeze([...drivers]);
  }

  /** Called as a lifecycle operation begins; from then on the owners cannot change. */
  fix(): readonly LifecycleDriver[] {
    this.fixed = true;
    return this.owners;
  }
}
