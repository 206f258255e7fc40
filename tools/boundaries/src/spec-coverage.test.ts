// docs/spec-coverage.md cites only test files that exist and test names those files declare,
// to the letter; and the check itself catches a wrong name, a wrong file and a cut-off name.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkSpecCoverage, type ReadFile } from './spec-coverage.js';

const WORKSPACE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const SOURCE = `describe('the suite', () => {
  it('keeps a gateway\\'s port; frees it (once)', () => {});
  for (const transport of ['ssh2', 'openssh-mux']) test(\`\${transport}: connects\`, () => {});
});
`;
const files: ReadFile = (path) => (path === 'apps/x/src/a.test.ts' ? SOURCE : undefined);
const check = (markdown: string) => checkSpecCoverage(markdown, files).map((p) => `${p.line} ${p.file} ${p.cited}`);
const row = (proof: string) => `| 1 | a requirement | 000 Flow | ${proof} | real host |\n`;

describe('checkSpecCoverage', () => {
  it('accepts exact names, with notes, nested under their suite, continued with "; ›", and from a template', () => {
    assert.deepEqual(check(row("`apps/x/src/a.test.ts` › keeps a gateway's port; frees it (once) (the note; with a semicolon)")), []);
    assert.deepEqual(check(row("`apps/x/src/a.test.ts` › the suite › keeps a gateway's port; frees it (once); › ssh2: connects. *unit: why*")), []);
    assert.deepEqual(check(row('`apps/x/src/a.test.ts` (all of it); README › a section')), []);
    assert.deepEqual(check(row('`apps/x/src/a.test.ts` › ssh2: connects, `openssh-mux: connects`, `apps/x/src/a.test.ts` › the suite')), []);
  });

  it('reports a name the file does not declare, a name cut short and a missing file, with the line', () => {
    assert.deepEqual(check(`# Spec\n\n${row('`apps/x/src/a.test.ts` › keeps the gateway port (a note)')}`), ['3 apps/x/src/a.test.ts keeps the gateway port']);
    assert.deepEqual(check(row("`apps/x/src/a.test.ts` › keeps a gateway's port; `apps/x/src/a.test.ts` › the suite")), ["1 apps/x/src/a.test.ts keeps a gateway's port"]);
    assert.deepEqual(check(row("`apps/x/src/a.test.ts` › the suite; › keeps a gateway's port; frees it")), ["1 apps/x/src/a.test.ts keeps a gateway's port"]);
    assert.deepEqual(check(row('`apps/x/src/b.test.ts` › the suite')), ['1 apps/x/src/b.test.ts ']);
    assert.deepEqual(check(row('`apps/x/src/a.test.ts` › ssh2: connects, `ssh2 connects`')), ['1 apps/x/src/a.test.ts ssh2 connects']);
  });

  it('reads a file named without its folder in the folder the paragraph above the table names, and its test cell whole', () => {
    const table = (name: string) => `The files in \`apps/x/src/\`:\n\n| file | test | proves |\n| --- | --- | --- |\n| \`a.test.ts\` | ${name} | what |\n`;
    assert.deepEqual(check(table('ssh2: connects')), []);
    assert.deepEqual(check(table('ssh2 connects')), ['5 apps/x/src/a.test.ts ssh2 connects']);
  });
});

describe('docs/spec-coverage.md', () => {
  it('cites only existing test files and test names they declare', () => {
    const read: ReadFile = (path) => (existsSync(join(WORKSPACE, path)) ? readFileSync(join(WORKSPACE, path), 'utf8') : undefined);
    const problems = checkSpecCoverage(readFileSync(join(WORKSPACE, 'docs', 'spec-coverage.md'), 'utf8'), read);
    assert.deepEqual(
      problems.map((p) => `line ${p.line}: ${p.file} › ${p.cited}`),
      [],
    );
  });
});
