// The workspace version the controller and the helper it ships share.
import pkg from '../package.json' with { type: 'json' };

export const DRIVER_VERSION: string = pkg.version;

/**
 * The name the release package is published under. Scoped, so only the owner of the `occ-ssh` npm
 * organisation can publish it; OCC records its implementation as `<name>@<version>`.
 */
export const PACKAGE_NAME = '@occ-ssh/compute-driver';
