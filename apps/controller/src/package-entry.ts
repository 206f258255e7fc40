// The external driver package entry OCC's loader accepts: a JSON Schema of the configuration,
// a validator, and a factory that builds the driver from the configuration OCC already parsed.
import { z } from 'zod';
import { parseConfiguration, sshComputeConfigurationSchema } from './config/index.js';
import { SshComputeDriver } from './driver.js';
import type { Logger } from './logging.js';

/** JSON Schema (draft 2020-12) of `drivers.compute.configuration`, generated from the one zod schema. */
export const configurationSchema: Readonly<Record<string, unknown>> = Object.freeze(z.toJSONSchema(sshComputeConfigurationSchema, { io: 'input', unrepresentable: 'any' }));

/** Throws a permanent `configuration` ComputeError naming every bad key path, as the Installation loader does. */
export function validateConfiguration(configuration: unknown): void {
  parseConfiguration(configuration);
}

/** What OCC's loader passes to `createDriver`. */
export interface CreateDriverOptions {
  /** The selection id from the Installation (`drivers.compute.id`). */
  readonly id: string;
  /** `<package>@<version>`, as OCC records it on every revision's `compute`. */
  readonly implementation: string;
  /** `drivers.compute.configuration`, already parsed by OCC. */
  readonly configuration: Readonly<Record<string, unknown>>;
  /** Returns the abort signal of the OCC operation in progress, or undefined. */
  readonly getOperationAbortSignal?: () => AbortSignal | undefined;
  /** Not passed by OCC; defaults to pino on stdout at OCC_SSH_LOG_LEVEL (info). */
  readonly logger?: Logger;
}

/** Validates the configuration, then builds the driver that echoes OCC's id and implementation. */
export function createDriver(options: CreateDriverOptions): SshComputeDriver {
  return new SshComputeDriver({
    configuration: parseConfiguration(options.configuration),
    id: options.id,
    implementation: options.implementation,
    ...(options.getOperationAbortSignal ? { getOperationAbortSignal: options.getOperationAbortSignal } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}
