// OCC's side of a run against test hosts, for the chaos campaign and the benchmarks.
export * from './installation.js';
