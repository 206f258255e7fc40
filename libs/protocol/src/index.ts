// Public surface of the wire protocol shared by the controller and the host helper.
export * from './argument.js';
export * from './envelope.js';
export * from './errors.js';
export * from './fields.js';
export * from './identity.js';
export * from './launch.js';
export * from './lines.js';
export * from './operations/index.js';
export * from './runtime.js';
export * from './limits.js';
export * from './log-bounds.js';
export * from './version.js';
export * from './workspace.js';
