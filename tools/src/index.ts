export * from './testhost/index.js';
