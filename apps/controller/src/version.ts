// The workspace version the controller and the helper it ships share.
import pkg from '../package.json' with { type: 'json' };

export const DRIVER_VERSION: string = pkg.version;
