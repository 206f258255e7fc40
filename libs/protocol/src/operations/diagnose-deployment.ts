// diagnose-deployment: safe, generic checks of one Agent revision's deployment on its host; reads only.
import * as z from 'zod/mini';
import { revisionTarget } from '../identity.js';
import { lazyOperation, type OperationExample } from './define.js';
import { EXAMPLE_OWNER, EXAMPLE_REVISION } from './examples.js';

/**
 * Every check, in the order it is reported: `component` and `check` are stable names (lower-case words
 * joined by `-`), documented in docs/integration.md. `host reachable` is the controller's own (the
 * helper answered); the helper reports the rest. OCC accepts at most 32.
 */
export const DEPLOYMENT_CHECKS = [
  ['host', 'reachable'],
  ['namespace', 'marker'],
  ['agent', 'marker'],
  ['account', 'exists'],
  ['account', 'marker'],
  ['snapshot', 'marker'],
  ['snapshot', 'hash'],
  ['unit', 'file'],
  ['unit', 'loaded'],
  ['unit', 'active'],
  ['unit', 'enabled'],
  ['revision', 'current'],
  ['revision', 'served'],
  ['listener', 'owner'],
  ['gateway', 'ready'],
  ['env-file', 'owner'],
  ['env-file', 'mode'],
  ['disk', 'space'],
  ['disk', 'inodes'],
] as const;

export type DeploymentCheckName = (typeof DEPLOYMENT_CHECKS)[number];
export const MAX_DEPLOYMENT_CHECKS = 32;
/** OCC's form of a diagnostic code. */
export const DEPLOYMENT_CHECK_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
const CHECK_NAME = /^[a-z]+(-[a-z]+)*$/;

const hostCheck = () =>
  z.strictObject({
    component: z.string().check(z.regex(CHECK_NAME)),
    check: z.string().check(z.regex(CHECK_NAME)),
    state: z.enum(['succeeded', 'failed', 'unknown']),
    /** Milliseconds after the helper began when the check was made; null when it was not made (it depends on one that failed). */
    elapsedMs: z.nullable(z.int().check(z.minimum(0))),
    /** Why it failed (or, on a success, a distinct finding such as an absent optional file); never text from the host. */
    code: z.optional(z.string().check(z.regex(DEPLOYMENT_CHECK_CODE))),
  });

export const diagnoseDeploymentOperation = lazyOperation(false, () => ({
  args: revisionTarget,
  result: z.strictObject({
    /** How long the helper took, so the controller can place each check on its own clock. */
    durationMs: z.int().check(z.minimum(0)),
    checks: z.array(hostCheck()).check(z.maxLength(MAX_DEPLOYMENT_CHECKS - 1)),
  }),
}));

/** Valid arguments and result, built fresh on each call; the protocol's tests check them, fakes and tests start from them. */
export const diagnoseDeploymentExample = (): OperationExample<typeof diagnoseDeploymentOperation> => ({
  args: { owner: EXAMPLE_OWNER, revision: EXAMPLE_REVISION },
  result: {
    durationMs: 41,
    checks: [
      { component: 'namespace', check: 'marker', state: 'succeeded', elapsedMs: 1 },
      { component: 'unit', check: 'active', state: 'failed', elapsedMs: 12, code: 'UNIT_FAILED' },
      { component: 'gateway', check: 'ready', state: 'unknown', elapsedMs: null },
    ],
  },
});

export type HostDeploymentCheck = z.infer<ReturnType<typeof hostCheck>>;
