// The version of the driver release this helper was built for, set by the build (build.ts `define`).
declare const __HELPER_VERSION__: string;

/** `dev` when run from sources (unit tests), never on a host. */
export const HELPER_VERSION = typeof __HELPER_VERSION__ === 'string' ? __HELPER_VERSION__ : 'dev';
