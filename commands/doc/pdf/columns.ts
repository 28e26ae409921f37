/**
 * Lines that stand in columns without the certainty of a table (a header set over several lines,
 * a two-column list of options, a table whose columns do not stay apart on every line): their cell
 * boundaries are kept — tab-separated in text, one cell per tab stop — instead of being collapsed
 * into single spaces, while Markdown keeps them as lines of text (a Markdown table is made only when
 * certain: `alignedTables` and `ruledTables` in tables.ts).
 *
 * Which lines: pdfplumber's text strategy finds a column where the left edges, right edges or
 * centres of at least three words line up; markitdown groups words into rows by their baseline and
 * rows into a columnar region where their column positions agree. Here: consecutive lines of short
 * cells (at most eight words; a cell: pieces closer than a character to each other; a gap of more than a character
 * between cells), upright and not code or a list, where at least three lines have two or more cells
 * and a cell after the first whose left edge, right edge or centre lines up with cells of at least
 * two other lines of the run. Which column each cell is in: the column boundaries are the middles
 * of the gaps of the run's lines with the most cells (where those lines' columns stay apart); a
 * cell goes in the column its left edge falls in, after the cell before it — so a cell left empty
 * keeps its tab.
 */

import { Baselines, cellsOfLine, type LineCell, LIST_MARKER, type TablePiece } from "./tables.ts";

/** Lines read as columns: their cells row by row (empty strings for empty cells), and their pieces. */
export interface ColumnedLines {
  readonly rows: string[][];
  readonly members: ReadonlySet<number>;
}

interface Line {
  readonly y: number;
  readonly size: number;
  readonly cells: LineCell[];
  readonly members: number[];
}

/** Words that line up on this many lines make a column (pdfplumber's `min_words_vertical`). */
const MIN_ALIGNED_LINES = 3;
/**
 * A cell longer than this, in characters or words, is prose (a page set in two columns), not a
 * column's entry: a line of a text column holds ten words or more.
 */
const MAX_CELL_LENGTH = 60;
const MAX_CELL_WORDS = 8;

/** The page's lines (top to bottom) of pieces not taken by a table; null for a line that cannot be in columns. */
function linesOf(pieces: readonly TablePiece[], taken: ReadonlySet<number>): (Line | null)[] | null {
  const baselines = new Baselines();
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    if (taken.has(i) || piece.str.trim() === "") continue;
    const [a, b, c, d, e, f] = piece.transform;
    if (Math.abs(b) > 1e-3 || Math.abs(c) > 1e-3 || a <= 0 || d <= 0) return null; // rotated text on the page
    const size = Math.hypot(c, d) || piece.height || 1;
    baselines.add(f, size, { i, x0: e, x1: e + piece.width, str: piece.str });
  }
  const byLine = [...baselines.lines].sort((p, q) => q.y - p.y);
  return byLine.map((line) => {
    const split = cellsOfLine(line, pieces);
    if (split === null) return null;
    const { cells, members } = split;
    const prose = (cell: LineCell) =>
      cell.text.length > MAX_CELL_LENGTH || cell.text.split(" ").length > MAX_CELL_WORDS;
    if (LIST_MARKER.test(cells[0].text) || cells.some(prose)) return null;
    return { y: line.y, size: line.size, cells, members };
  });
}

const anchors = (cell: LineCell): [number, number, number] => [cell.x0, cell.x1, (cell.x0 + cell.x1) / 2];

/**
 * For each line of `run`, each cell: whether one of its edges or its centre lines up with the same
 * edge or centre of cells on at least two other lines of the run.
 */
function alignment(run: readonly Line[]): boolean[][] {
  const tolerance = Math.max(1, median(run.map((line) => line.size)) * 0.3);
  const aligned = run.map((line) => line.cells.map(() => false));
  for (let kind = 0; kind < 3; kind++) {
    const points = run.flatMap((line, l) => line.cells.map((cell, c) => ({ at: anchors(cell)[kind], l, c })))
      .sort((p, q) => p.at - q.at);
    // Groups of points each within the tolerance of the next, counted by the lines they are on.
    for (let start = 0; start < points.length;) {
      let end = start + 1;
      while (end < points.length && points[end].at - points[end - 1].at <= tolerance) end++;
      const group = points.slice(start, end);
      if (new Set(group.map((p) => p.l)).size >= MIN_ALIGNED_LINES) {
        for (const p of group) aligned[p.l][p.c] = true;
      }
      start = end;
    }
  }
  return aligned;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : 0;
}

/**
 * The x positions between columns: the middles of the gaps of the lines with the most cells, where
 * each of their columns ends, on all of them, before the next one starts; none otherwise.
 */
function boundaries(lines: readonly Line[]): number[] {
  const most = Math.max(...lines.map((line) => line.cells.length));
  const widest = lines.filter((line) => line.cells.length === most);
  const out: number[] = [];
  for (let c = 0; c + 1 < most; c++) {
    const right = Math.max(...widest.map((line) => line.cells[c].x1));
    const left = Math.min(...widest.map((line) => line.cells[c + 1].x0));
    if (right >= left) return [];
    out.push((right + left) / 2);
  }
  return out;
}

/** A line's cells at their columns: each in the column its left edge falls in, after the one before it. */
function placed(line: Line, bounds: readonly number[]): string[] {
  const row: string[] = [];
  for (const cell of line.cells) {
    const column = Math.max(row.length, bounds.filter((b) => b < cell.x0).length);
    while (row.length < column) row.push("");
    row.push(cell.text);
  }
  return row;
}

/** The page's lines in columns (see the module's comment), among the pieces no table took. */
export function columnedLines(pieces: readonly TablePiece[], taken: ReadonlySet<number>): ColumnedLines[] {
  const lines = linesOf(pieces, taken);
  if (lines === null) return [];
  const close = (upper: Line, lower: Line) => upper.y - lower.y <= Math.max(upper.size, lower.size) * 2.5;
  const out: ColumnedLines[] = [];
  let start = 0;
  for (let k = 1; k <= lines.length; k++) {
    const previous = lines[k - 1];
    const line = lines[k];
    if (k < lines.length && line !== null && previous !== null && close(previous, line)) continue;
    const run = lines.slice(start, k).filter((l): l is Line => l !== null);
    out.push(...columnsIn(run));
    start = k;
  }
  return out;
}

/**
 * The parts of a run of close lines that stand in columns: from one columnar line (two or more
 * cells, one after the first aligned) to the next, through lines of one aligned cell; each part
 * with at least three columnar lines.
 */
function columnsIn(run: readonly Line[]): ColumnedLines[] {
  if (run.length < MIN_ALIGNED_LINES) return [];
  const aligned = alignment(run);
  const columnar = run.map((line, l) => line.cells.length >= 2 && aligned[l].slice(1).some(Boolean));
  const out: ColumnedLines[] = [];
  let part: number[] = [];
  const finish = () => {
    // A part ends at its last columnar line.
    while (part.length > 0 && !columnar[part[part.length - 1]]) part.pop();
    if (part.filter((l) => columnar[l]).length >= MIN_ALIGNED_LINES) {
      const lines = part.map((l) => run[l]);
      const bounds = boundaries(lines.filter((_, k) => columnar[part[k]]));
      out.push({ rows: lines.map((line) => placed(line, bounds)), members: new Set(lines.flatMap((l) => l.members)) });
    }
    part = [];
  };
  run.forEach((line, l) => {
    if (columnar[l]) part.push(l);
    else if (part.length > 0 && line.cells.length === 1 && aligned[l][0]) part.push(l);
    else finish();
  });
  finish();
  return out;
}
