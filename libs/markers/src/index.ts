// Public surface of the on-host layout: paths, hashes, account names, markers and the unit.
export * from './account.js';
export * from './examples.js';
export * from './hashes.js';
export * from './layout.js';
export * from './load-path.js';
export * from './schemas.js';
export * from './unit.js';
export * from './tree.js';
export * from './workspace.js';
