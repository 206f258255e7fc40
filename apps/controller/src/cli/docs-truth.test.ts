// The docs name only what the code has: every CLI command, exit code, error code and protocol version
// that README.md, the npm README (apps/controller/README.md) or docs/*.md names is read here against
// the CLI's command table, its exit code table, the error catalogue and PROTOCOL_VERSION.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CODES, FAILURE_OF, PROTOCOL_VERSION } from '@occ-ssh/protocol';
import { COMMANDS } from './args.js';
import { EXIT } from './main.js';

const ROOT = new URL('../../../../', import.meta.url);
const DOCS = [
  'README.md',
  'apps/controller/README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const read = (file: string) => readFileSync(new URL(file, ROOT), 'utf8');

const commands = new Set<string>(COMMANDS);
const exitCodes = new Set<number>(Object.values(EXIT));
const codes = new Set<string>(ERROR_CODES);

/** Paragraphs and table rows, each with the file and line it starts on, and a row with its table's header. */
function blocks(file: string): { where: string; text: string; header?: string }[] {
  const out: { where: string; text: string; header?: string }[] = [];
  let header: string | undefined;
  let paragraph: { start: number; lines: string[] } | undefined;
  const flush = () => {
    if (paragraph) out.push({ where: `${file}:${paragraph.start + 1}`, text: paragraph.lines.join('\n') });
    paragraph = undefined;
  };
  read(file)
    .split('\n')
    .forEach((line, index) => {
      if (!line.startsWith('|')) header = undefined;
      if (line.startsWith('|')) {
        flush();
        header ??= line;
        out.push({ where: `${file}:${index + 1}`, text: line, header });
      } else if (line.trim() === '') flush();
      else (paragraph ??= { start: index, lines: [] }).lines.push(line);
    });
  flush();
  return out;
}

/** Code spans and fenced code, where a command is written as it is typed. */
const code = (text: string) => [...text.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((m) => m[0]).join('\n');

/** What `text` names that the code does not have; empty when it is true to the code. */
function untrue(where: string, text: string, header?: string): string[] {
  const wrong: string[] = [];
  for (const [, word] of code(text).matchAll(/\bocc-ssh ([a-z][a-z-]*)/g)) if (!commands.has(word!)) wrong.push(`${where}: occ-ssh has no command "${word}"`);
  // "the `occ-ssh` bin is the operator CLI (preflight, status, ...)": a list of its commands.
  for (const [, list] of text.matchAll(/`occ-ssh`[^(\n]*\(([a-z, -]+)\)/g))
    for (const word of list!.split(/,\s*|\s+and\s+/).map((w) => w.trim())) if (word && !commands.has(word)) wrong.push(`${where}: occ-ssh has no command "${word}"`);
  // A row of the CLI's command table (`| command | does |`): its first cell is a command.
  const row = /^\| `([a-z-]+)(?: <[a-z]+>)?` \|/.exec(text);
  if (row && header !== undefined && /^\| command \| does \|/.test(header) && !commands.has(row[1]!)) wrong.push(`${where}: occ-ssh has no command "${row[1]}"`);
  // An exit status in a sentence about the CLI: one naming `occ-ssh` or one of its commands.
  for (const sentence of text.split(/(?<=[.;:])\s+/)) {
    if (!/`occ-ssh|the CLI\b/.test(sentence) && ![...sentence.matchAll(/`([a-z-]+)`/g)].some((m) => commands.has(m[1]!))) continue;
    for (const [, n] of sentence.matchAll(/\bexits? (\d+)\b(?! ?(?:seconds?|s\b|ms\b|\+))/g)) if (!exitCodes.has(Number(n))) wrong.push(`${where}: occ-ssh has no exit code ${n}`);
  }
  {
    // The list of exit codes (a bullet and its continued lines) names every one.
    const list = /(?:^|\n)- Exit codes:([^\n]*(?:\n {2}[^\n]*)*)/.exec(text);
    if (list) {
      const named = [...list[1]!.matchAll(/`(\d+)`/g)].map((m) => Number(m[1]));
      for (const n of named) if (!exitCodes.has(n)) wrong.push(`${where}: occ-ssh has no exit code ${n}`);
      for (const n of exitCodes) if (!named.includes(n)) wrong.push(`${where}: the exit codes leave out ${n}`);
    }
  }
  // The catalogue's table: `| permanent | codes |` lists exactly the codes with that verdict.
  const verdictRow = /^\| (permanent|retryable) \| (.*) \|$/.exec(text);
  if (verdictRow) {
    const listed = [...verdictRow[2]!.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!);
    const expected = ERROR_CODES.filter((c) => FAILURE_OF[c] === verdictRow[1]);
    for (const c of listed) if (!expected.includes(c as (typeof ERROR_CODES)[number])) wrong.push(`${where}: "${c}" is not a ${verdictRow[1]} error code`);
    for (const c of expected) if (!listed.includes(c)) wrong.push(`${where}: the ${verdictRow[1]} codes leave out "${c}"`);
  }
  for (const [, verdict, c] of text.matchAll(/\b(permanent|retryable) `([a-z][a-z-]*)`/g)) {
    if (!codes.has(c!)) wrong.push(`${where}: no error code "${c}"`);
    else if (FAILURE_OF[c as (typeof ERROR_CODES)[number]] !== verdict) wrong.push(`${where}: "${c}" is ${FAILURE_OF[c as (typeof ERROR_CODES)[number]]}, not ${verdict}`);
  }
  for (const m of text.matchAll(/`PROTOCOL_VERSION`, now (\d+)|\bprotocol version (\d+)\b|\bwire protocol is version (\d+)|\(protocol (\d+)\)/gi)) {
    const n = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (Number(n) !== PROTOCOL_VERSION) wrong.push(`${where}: the protocol version is ${PROTOCOL_VERSION}, not ${n}`);
  }
  return wrong;
}

describe('the docs are true to the code', () => {
  it('each reading catches what it is for', () => {
    assert.deepEqual(untrue('x', 'The `occ-ssh` bin is the operator CLI (preflight, status, logs, rollback).'), ['x: occ-ssh has no command "rollback"']);
    assert.deepEqual(untrue('x', 'Run `occ-ssh rollback --config i.yaml`.'), ['x: occ-ssh has no command "rollback"']);
    assert.deepEqual(untrue('x', '| `rollback` | deploys the previous revision again |', '| command | does |'), ['x: occ-ssh has no command "rollback"']);
    assert.deepEqual(untrue('x', '| `transport` | the SSH client |', '| key | meaning |'), []);
    assert.deepEqual(untrue('x', 'On SIGTERM `occ-ssh deploy` exits 131.'), ['x: occ-ssh has no exit code 131']);
    assert.deepEqual(untrue('x', 'The gateway exits 78; masters exit 60 seconds after their last use; `occ-ssh` exits 128 + the signal number.'), []);
    assert.deepEqual(untrue('x', 'The helper ended without a result line (exit 126).'), []);
    assert.deepEqual(
      untrue('x', '- `occ-ssh` prints.\n- Exit codes: `0` success, `2` usage, `3` permanent, `4` failed, `5` nothing to do,\n  `6` not confirmed, `75` unreachable, `130` interrupted.'),
      ['x: the exit codes leave out 129', 'x: the exit codes leave out 143'],
    );
    assert.deepEqual(untrue('x', '| retryable | `not-ready`, `lock-timeout`, `host-command`, `transport`, `timeout`, `cancelled`, `hook`, `conflict`, `protocol`, `internal` |'), [
      'x: the retryable codes leave out "capacity"',
    ]);
    assert.deepEqual(untrue('x', 'it fails with a retryable `ownership` error, or a permanent `full-disk` one'), ['x: "ownership" is permanent, not retryable', 'x: no error code "full-disk"']);
    assert.deepEqual(untrue('x', '| wire protocol (`PROTOCOL_VERSION`, now 2) | no change |'), [`x: the protocol version is ${PROTOCOL_VERSION}, not 2`]);
    assert.deepEqual(untrue('x', `| wire protocol (\`PROTOCOL_VERSION\`, now ${PROTOCOL_VERSION}) | no change |`), []);
  });

  for (const file of DOCS)
    it(`${file} names only commands, exit codes, error codes and the protocol version the code has`, () => {
      assert.deepEqual(
        blocks(file).flatMap(({ where, text, header }) => untrue(where, text, header)),
        [],
      );
    });
});
