#!/usr/bin/env node
// Runs the built CLI (npm run build produces it).
await import('../../../dist/apps/controller/occ-ssh.js');
