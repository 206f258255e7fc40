// Test support shared by the tests of every project: a helper client for real hosts and endpoints
// that never answer. It depends only on the libraries, so any project's tests may use it.
export * from './remote.js';
export * from './ssh-call.js';
export * from './log-lines.js';
export * from './command-line.js';
export * from './unreachable.js';
export * from './installation.js';
export * from './test-host-installation.js';
export * from './tenant.js';
export * from './measured-commit.js';
export * from './timed-send.js';
