// The public API report (docs/api/compute-driver.api.md) and the API reference pages
// (docs/api/reference/), both from the release's bundled declarations: run after release.ts.
// With --local they are rewritten; without, a report or page that differs from what the
// declarations make fails, so an API change cannot land without its report. Either way any
// finding (a forgotten export, a TSDoc or compiler warning) fails: none can be committed as accepted.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel, ExtractorMessageCategory, type IConfigMessageReportingTable } from '@microsoft/api-extractor';

const local = process.argv.includes('--local');
const workspace = fileURLToPath(new URL('../../', import.meta.url));
const configPath = fileURLToPath(new URL('api-extractor.json', import.meta.url));
const reference = `${workspace}docs/api/reference`;
const configObject = ExtractorConfig.loadFile(configPath);
// API Extractor's defaults write some findings into the report instead of counting them; every one is counted here.
const tables: (IConfigMessageReportingTable | undefined)[] = Object.values(configObject.messages ?? {});
for (const table of tables) for (const rule of Object.values(table ?? {})) rule.addToApiReportFile = false;
const config = ExtractorConfig.prepare({
  configObject,
  configObjectFullPath: configPath,
  // The published name and version, not the workspace project's.
  packageJsonFullPath: `${workspace}dist/release/package/package.json`,
});
const findings: string[] = [];
const result = Extractor.invoke(config, {
  localBuild: local,
  // Console messages are API Extractor's own progress (a report updated); the rest are findings about the API.
  messageCallback: (message) => {
    if (message.category !== ExtractorMessageCategory.Console && (message.logLevel === ExtractorLogLevel.Warning || message.logLevel === ExtractorLogLevel.Error)) findings.push(message.messageId);
  },
});
if (result.errorCount > 0 || findings.length > 0) {
  console.error(`api-extractor: ${result.errorCount} errors, ${findings.length} findings (${[...new Set(findings)].join(', ')}): every finding fails, fix it in the source`);
  process.exit(1);
}
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
