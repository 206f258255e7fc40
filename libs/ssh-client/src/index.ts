// The strict OpenSSH client argv, the one remote shell string, and the one bounded-output
// process collector: shared by the controller's transports and the test hosts, chaos and bench.
export * from './ssh-argv.js';
export * from './remote-command.js';
export * from './collect.js';
export * from './output.js';
