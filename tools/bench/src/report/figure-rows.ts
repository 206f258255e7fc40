// Every figure against its target, as rows (kept in the JSON): one row maker per figure, in the order
// the table prints them.
import { activationRows, ansibleRows, bytesRows, latencyRows } from './call-figures.js';
import { concurrencyRows, fleetRows, resourcesRows, restartRows, scaleRows } from './host-figures.js';
import { controllerRows } from './controller-figures.js';
import type { BenchResults, FigureRow } from './results.js';

const FIGURES: readonly ((results: Omit<BenchResults, 'rows'>) => FigureRow[])[] = [
  latencyRows,
  activationRows,
  ansibleRows,
  bytesRows,
  scaleRows,
  fleetRows,
  resourcesRows,
  restartRows,
  concurrencyRows,
  controllerRows,
];

export function figureRows(results: Omit<BenchResults, 'rows'>): FigureRow[] {
  return FIGURES.flatMap((rowsOf) => rowsOf(results));
}
