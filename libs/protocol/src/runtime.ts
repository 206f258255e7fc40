// Trusted runtime settings derived from the Installation: where things live on one host.
import * as z from 'zod/mini';
import { accountIdRange, portRange, runtimeUser, safePath } from './fields.js';
import { gatewayLimits } from './limits.js';

const within = (inner: string, outer: string) => inner === outer || inner.startsWith(`${outer}/`);

export const runtimeSettings = z
  .strictObject({
    root: safePath,
    systemdUnitDirectory: safePath,
    nodePath: safePath,
    openclawPath: safePath,
    user: runtimeUser,
    gatewayPortRange: portRange,
    /** Absent when the Installation sets none: the unit then carries no limit lines at all. */
    gatewayLimits: z.optional(gatewayLimits),
    /** Present and true only when the Installation lets gateways reach link-local addresses; the unit then carries no IPAddressDeny= line. */
    allowLinkLocal: z.optional(z.literal(true)),
    /** Absent unless the Installation sets one: accounts are then system accounts (login.defs' SYS_UID_MIN to SYS_UID_MAX). */
    accountIdRange: z.optional(accountIdRange),
  })
  .check(z.refine((s) => !within(s.systemdUnitDirectory, s.root) && !within(s.root, s.systemdUnitDirectory), 'root and systemdUnitDirectory must be separate directories, neither inside the other'));

export type RuntimeSettings = z.infer<typeof runtimeSettings>;
