// Renders bench/results/latest.json as a hand-made SVG (docs/benchmarks.svg): per figure, each
// measurement as a bar beside its baseline, with the target drawn as a dashed line. With
// `--markdown` it also prints the results table for docs/benchmarks.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { markdownTable } from './figure-table.js';
import type { BenchResults, FigureRow } from './results.js';

const GROUP_TITLES: Record<string, string> = {
  'latency:ms': 'Latency over a new connection (system-ssh) vs ssh node -e 0, median',
  'latency-reused:ms': 'Latency over a reused connection vs ssh over a ControlMaster, median',
  'activation:ms': "Activation overhead: activation minus the gateway's own start-to-ready (grey), median",
  'ansible:ms': 'Full deploy cycle (prepare, activate, retire) vs the fastest Ansible run (grey), median',
  'bytes:bytes': 'Helper bytes sent per operation (grey: the 64 KiB limit)',
  'scale:ms': 'Many Agents on one host: last ten (bar) vs first ten (grey); prepare lock hold p99',
  'fleet:ms': 'Fleet deploy, all hosts in parallel vs one host alone (grey), median',
  'resources:ms': 'Controller CPU per operation (8 in flight)',
  'resources:MiB': 'Controller memory per in-flight operation',
};

/** The drawing's geometry in pixels: its width, where labels and bars start, the longest bar, a row's and a group gap's height. */
const LAYOUT = { width: 1040, labelX: 16, barX: 400, barMax: 480, rowHeight: 34, groupGap: 18 } as const;
const COLORS = { met: '#2e7d32', missed: '#c62828', info: '#4a6fa5', baseline: '#b9c3cf', target: '#222', text: '#222', muted: '#666' };

/** A white outline under value labels, so a target line crossing them stays readable. */
const HALO = 'paint-order="stroke" stroke="#fff" stroke-width="3" stroke-linejoin="round"';

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function formatValue(value: number, unit: FigureRow['unit']): string {
  if (unit === 'bytes') return `${(value / 1024).toFixed(1)} KiB`;
  if (unit === 'MiB') return `${value} MiB`;
  if (unit === 'count') return String(value);
  if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
  return `${Math.round(value)} ms`;
}

export function renderSvg(results: BenchResults): string {
  const groups = new Map<string, FigureRow[]>();
  for (const row of results.rows) {
    const key = `${row.figure}:${row.unit}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const parts: string[] = [];
  let y = 86;
  for (const [key, rows] of groups) {
    parts.push(`<text x="${LAYOUT.labelX}" y="${y}" font-weight="bold" font-size="14">${escape(GROUP_TITLES[key] ?? key)}</text>`);
    y += 10;
    const finite = (v: number | null): v is number => v !== null && Number.isFinite(v);
    const max = Math.max(1, ...rows.flatMap((r) => [r.measured, r.baseline, r.limit].filter(finite))) * 1.08;
    const scale = (value: number) => Math.max(1, (value / max) * LAYOUT.barMax);
    for (const row of rows) {
      const top = y + 6;
      const color = row.met === null ? COLORS.info : row.met ? COLORS.met : COLORS.missed;
      const ratio = row.ratio !== null && Number.isFinite(row.ratio) ? ` (${row.ratio}x)` : '';
      parts.push(`<text x="${LAYOUT.labelX + 10}" y="${top + 12}" font-size="12">${escape(row.name)}</text>`);
      const texts: string[] = [];
      if (finite(row.measured)) {
        parts.push(`<rect x="${LAYOUT.barX}" y="${top}" width="${scale(row.measured).toFixed(1)}" height="12" fill="${color}"/>`);
        texts.push(`<text x="${LAYOUT.barX + scale(row.measured) + 6}" y="${top + 10}" font-size="11" ${HALO}>${escape(formatValue(row.measured, row.unit) + ratio)}</text>`);
      }
      if (finite(row.baseline)) {
        parts.push(`<rect x="${LAYOUT.barX}" y="${top + 14}" width="${scale(row.baseline).toFixed(1)}" height="9" fill="${COLORS.baseline}"/>`);
        texts.push(`<text x="${LAYOUT.barX + scale(row.baseline) + 6}" y="${top + 22}" font-size="10" fill="${COLORS.muted}" ${HALO}>${escape(formatValue(row.baseline, row.unit))}</text>`);
      }
      if (finite(row.limit)) {
        const x = LAYOUT.barX + scale(row.limit);
        parts.push(`<line x1="${x.toFixed(1)}" y1="${top - 3}" x2="${x.toFixed(1)}" y2="${top + 26}" stroke="${COLORS.target}" stroke-width="1.5" stroke-dasharray="3,2"/>`);
      }
      parts.push(...texts);
      y += LAYOUT.rowHeight;
    }
    y += LAYOUT.groupGap;
  }
  const m = results.machine;
  const header = [
    `<text x="${LAYOUT.labelX}" y="24" font-size="17" font-weight="bold">SSH Compute Driver benchmarks (${results.plan.quick ? 'quick' : 'full'} run, ${escape(results.startedAt.slice(0, 16).replace('T', ' '))} UTC${results.commit ? `, commit ${results.commit.sha.slice(0, 7)}${results.commit.dirty ? ' with local changes' : ''}` : ''})</text>`,
    `<text x="${LAYOUT.labelX}" y="44" font-size="12" fill="${COLORS.muted}">${escape(`${m.cpus} cores, load average ${m.loadAtStart.one} at start and ${m.loadAtEnd.one} at end; local test hosts (systemd-nspawn, OpenSSH), fixture gateway`)}</text>`,
    legend(LAYOUT.labelX, 64),
  ];
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${LAYOUT.width}" height="${height}" viewBox="0 0 ${LAYOUT.width} ${height}" font-family="Helvetica, Arial, sans-serif" fill="${COLORS.text}">`,
    `<rect width="${LAYOUT.width}" height="${height}" fill="#fff"/>`,
    ...header,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

function legend(x: number, y: number): string {
  const item = (dx: number, fill: string, label: string, dashed = false) =>
    (dashed
      ? `<line x1="${x + dx + 6}" y1="${y - 10}" x2="${x + dx + 6}" y2="${y + 2}" stroke="${COLORS.target}" stroke-width="1.5" stroke-dasharray="3,2"/>`
      : `<rect x="${x + dx}" y="${y - 9}" width="12" height="10" fill="${fill}"/>`) + `<text x="${x + dx + 18}" y="${y}" font-size="12">${label}</text>`;
  return [
    item(0, COLORS.met, 'measured, target met'),
    item(170, COLORS.missed, 'measured, target not met'),
    item(360, COLORS.info, 'measured, no target'),
    item(520, COLORS.baseline, 'baseline'),
    item(620, '', 'target', true),
  ].join('');
}

function main(argv: readonly string[]): void {
  const workspace = fileURLToPath(new URL('../../../../', import.meta.url));
  const usage = 'usage: chart.ts [--in results.json] [--svg out.svg] [--markdown]';
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: { in: { type: 'string' }, svg: { type: 'string' }, markdown: { type: 'boolean', default: false } } }));
  } catch {
    throw new Error(usage);
  }
  const input = resolve(values.in ?? resolve(workspace, 'bench/results/latest.json'));
  const output = resolve(values.svg ?? resolve(workspace, 'docs/benchmarks.svg'));
  const markdown = values.markdown;
  const results = JSON.parse(readFileSync(input, 'utf8')) as BenchResults;
  writeFileSync(output, renderSvg(results));
  process.stderr.write(`wrote ${output}\n`);
  if (markdown) process.stdout.write(`${markdownTable(results.rows)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) main(process.argv.slice(2));
