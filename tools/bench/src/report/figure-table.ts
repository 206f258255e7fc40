// The figures as a printed table and as the table of docs/benchmarks.md; the rows themselves come
// from figure-rows.ts.
import type { FigureRow } from './results.js';

function formatValue(value: number | null, unit: FigureRow['unit']): string {
  if (value === null || !Number.isFinite(value)) return '-';
  if (unit === 'bytes') return `${value} B`;
  if (unit === 'MiB') return `${value} MiB`;
  if (unit === 'count') return String(value);
  if (unit === 'ratio') return `${value}x`;
  return `${Math.round(value)} ms`;
}

function tableCells(row: FigureRow): string[] {
  return [
    row.figure,
    row.name,
    formatValue(row.measured, row.unit),
    formatValue(row.baseline, row.unit),
    row.ratio === null || !Number.isFinite(row.ratio) ? '-' : `${row.ratio}x`,
    row.target,
    row.met === null ? '' : row.met ? 'met' : 'NOT met',
  ];
}

const HEADER = ['fig', 'measurement', 'measured', 'baseline', 'ratio', 'target', 'result'];

export function textTable(rows: readonly FigureRow[]): string {
  const cells = [HEADER, ...rows.map(tableCells)];
  const widths = HEADER.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The table of docs/benchmarks.md. Hand-written: markdown-table writes `-` delimiters and `| |` for an
 * empty cell and does not escape `|`, so it would change every table already published. */
export function markdownTable(rows: readonly FigureRow[]): string {
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  const lines = [`| ${HEADER.join(' | ')} |`, `| ${HEADER.map(() => '---').join(' | ')} |`];
  for (const row of rows) lines.push(`| ${tableCells(row).map(escape).join(' | ')} |`);
  return lines.join('\n');
}
