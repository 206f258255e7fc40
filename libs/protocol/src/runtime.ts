// Trusted runtime settings derived from the Installation: where things live on one host.
import * as z from 'zod/mini';
import { portRange, runtimeUser, safePath } from './fields.js';

export const runtimeSettings = z.strictObject({
  root: safePath,
  systemdUnitDirectory: safePath,
  nodePath: safePath,
  openclawPath: safePath,
  user: runtimeUser,
  gatewayPortRange: portRange,
});

export type RuntimeSettings = z.infer<typeof runtimeSettings>;
