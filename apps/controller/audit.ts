// The dependency audit of the lockfile's runtime tree: `npm audit --omit=dev`, judged by
// test/audit.ts. Exit 0 clean, 1 an advisory at moderate or above (or npm failed), 3 unchecked: the
// registry does not serve the advisory endpoint. `--allow-unreachable` makes "unchecked" exit 0 with
// the same line, for CI machines whose registry answers only GET; a release needs a checked run.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { judgeAudit } from './test/audit.js';

const workspace = fileURLToPath(new URL('../../', import.meta.url));
const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], { cwd: workspace, encoding: 'utf8', timeout: 120_000 });
const verdict = judgeAudit(run.stdout ?? '');
switch (verdict.kind) {
  case 'clean':
    console.log(`audit: no advisory at moderate or above in ${verdict.dependencies} dependencies`);
    for (const line of verdict.below) console.log(`audit: below the bar: ${line}`);
    break;
  case 'vulnerable':
    for (const line of verdict.findings) console.error(`audit: ${line}`);
    console.error(`audit: ${verdict.findings.length} vulnerable packages: update the lockfile (npm update <name>) or the range in apps/controller/package.json`);
    process.exitCode = 1;
    break;
  case 'unchecked':
    console.error(`audit: NOT CHECKED: ${verdict.reason}; run \`npm run audit\` where the registry serves the advisory endpoint before a release`);
    process.exitCode = process.argv.includes('--allow-unreachable') ? 0 : 3;
    break;
  case 'broken':
    console.error(`audit: ${verdict.reason}`);
    process.exitCode = 1;
    break;
}
