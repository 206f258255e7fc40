// The public API report (docs/api/compute-driver.api.md) and the API reference pages
// (docs/api/reference/), both from the release's bundled declarations: run after release.ts.
// With --local they are rewritten; without, a report or page that differs from what the
// declarations make fails, so an API change cannot land without its report.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const local = process.argv.includes('--local');
const workspace = fileURLToPath(new URL('../../', import.meta.url));
const configPath = fileURLToPath(new URL('api-extractor.json', import.meta.url));
const reference = `${workspace}docs/api/reference`;
const config = ExtractorConfig.prepare({
  configObject: ExtractorConfig.loadFile(configPath),
  configObjectFullPath: configPath,
  // The published name and version, not the workspace project's.
  packageJsonFullPath: `${workspace}dist/release/package/package.json`,
});
const result = Extractor.invoke(config, { localBuild: local });
if (result.errorCount > 0) throw new Error(`api-extractor: ${result.errorCount} errors`);
if (!local && result.apiReportChanged) {
  console.error('The public API changed: run `npm run api -w @occ-ssh/controller` and commit docs/api/ with a CHANGELOG entry');
  process.exit(1);
}

const documenter = `${dirname(fileURLToPath(import.meta.resolve('@microsoft/api-documenter/package.json')))}/bin/api-documenter`;
const pages = local ? reference : mkdtempSync(`${tmpdir()}/occ-ssh-api-reference-`);
try {
  execFileSync(process.execPath, [documenter, 'markdown', '--input-folder', `${workspace}dist/api/model`, '--output-folder', pages], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (!local) {
    const stale = [...new Set([...readdirSync(pages), ...readdirSync(reference)])].filter((page) => {
      const read = (dir: string) => (readdirSync(dir).includes(page) ? readFileSync(`${dir}/${page}`, 'utf8') : undefined);
      return read(pages) !== read(reference);
    });
    if (stale.length > 0) {
      console.error(`docs/api/reference is stale (${stale.slice(0, 5).join(', ')}): run \`npm run api -w @occ-ssh/controller\``);
      process.exit(1);
    }
  }
} finally {
  if (!local) rmSync(pages, { recursive: true, force: true });
}
console.log(local ? 'api: docs/api/ rewritten' : 'api: docs/api/ matches the declarations');
