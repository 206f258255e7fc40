// One helper call, built and read in one place: the controller, the helper and every tool that
// runs the helper share this, so a change to the wire format cannot pass the tests and break what ships.
export * from './call.js';
export * from './input.js';
export * from './loader.js';
export * from './output.js';
export * from './sealed.js';
