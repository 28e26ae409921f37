/**
 * Tables in PDFs, made only when certain.
 *
 * Ruled tables: a grid drawn with lines or thin filled rectangles (what Word, LibreOffice,
 * Ghostscript and LaTeX write for table rules), read from the page's drawing (`DrawingOp`: PDF.js's
 * operator list, or the same from pterm's own reader), with the page's text placed in its cells: a closed outer frame, every inner rule
 * either clearly there or clearly absent in each row or column (merged cells), merged cells
 * rectangular, and no text crossing a rule or standing across the frame.
 *
 * Tables without rules (`alignedTables`): consecutive lines that split into the same cells with
 * a clear column of white between every two columns on every line.
 *
 * Anything less leaves the page's text as it was.
 */

/** A text piece as PDF.js gives it (user space: `transform` is its matrix, `width`/`height` its extent). */
export interface TablePiece {
  readonly str: string;
  /** Set in a fixed-pitch font (PDF.js's `monospace` family): code, whose aligned columns are not a table's. */
  readonly monospace?: boolean;
  readonly transform: readonly number[];
  readonly width: number;
  readonly height: number;
}

/** The operator list of a page (`page.getOperatorList()`) and PDF.js's operator numbers. */
export interface OperatorList {
  readonly fnArray: ArrayLike<number>;
  readonly argsArray: ArrayLike<unknown>;
}
export type Ops = Readonly<Record<string, number>>;

/**
 * A page's drawing as ruled-table detection reads it: what places and paints paths, in order.
 * PDF.js's operator list reduces to it (`drawingOf`), and pterm's own reader builds the same from
 * the content stream (reader/drawing.ts), so both give the same rules. `path` is PDF.js's path
 * data (moveTo 0, lineTo 1, curveTo 2, quadraticCurveTo 3, closePath 4), in single precision as
 * PDF.js keeps it; a form's matrix is single precision too.
 */
export type DrawingOp =
  | { readonly op: "save" | "restore" | "formEnd" }
  | { readonly op: "transform"; readonly matrix: readonly number[] }
  | { readonly op: "formBegin"; readonly matrix: ArrayLike<number> | null }
  | { readonly op: "stroke" | "fill"; readonly path: ArrayLike<number> };

export interface RuledTable {
  readonly rows: string[][];
  /** The indices of the pieces the table holds (they are not read as paragraphs). */
  readonly members: ReadonlySet<number>;
}

/** A table, or lines in columns without a table's certainty (columns.ts): tab-separated in text only. */
export type PageTable = RuledTable & { readonly uncertain?: true };

interface Segment {
  /** Horizontal: `at` is y, from..to along x. Vertical: `at` is x, from..to along y. */
  at: number;
  from: number;
  to: number;
}

type Matrix = [number, number, number, number, number, number];

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
/** Points: rules closer than this are one rule; a rule reaching within this of another meets it. */
const TOLERANCE = 2;
/** A filled rectangle at most this thick is a rule. */
const RULE_THICKNESS = 3;
/** Drawing operators a page may have before pterm stops looking for rules (a chart or a map, not a table). */
const MAX_SEGMENTS = 20_000;

function multiply(m: Matrix, n: ArrayLike<number>): Matrix {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}

/** PDF.js's operator list as the drawing table detection reads (paths neither stroked nor filled left out). */
export function drawingOf(list: OperatorList, ops: Ops): DrawingOp[] {
  const drawing: DrawingOp[] = [];
  const strokes = new Set(
    ["stroke", "closeStroke", "fillStroke", "eoFillStroke", "closeFillStroke", "closeEOFillStroke"].map((k) => ops[k]),
  );
  const fills = new Set(["fill", "eoFill"].map((k) => ops[k]));
  for (let i = 0; i < list.fnArray.length; i++) {
    const fn = list.fnArray[i];
    const args = list.argsArray[i] as unknown[] | null;
    if (fn === ops.save) drawing.push(SAVE);
    else if (fn === ops.restore) drawing.push(RESTORE);
    else if (fn === ops.transform && args) drawing.push({ op: "transform", matrix: args as number[] });
    else if (fn === ops.paintFormXObjectBegin) {
      const matrix = args?.[0] as ArrayLike<number> | null | undefined;
      drawing.push({ op: "formBegin", matrix: matrix && matrix.length === 6 ? matrix : null });
    } else if (fn === ops.paintFormXObjectEnd) drawing.push(FORM_END);
    else if (fn === ops.constructPath && args) {
      const paint = args[0] as number;
      const stroked = strokes.has(paint);
      if (!stroked && !fills.has(paint)) continue;
      const path = (args[1] as ArrayLike<number>[] | undefined)?.[0];
      if (path) drawing.push({ op: stroked ? "stroke" : "fill", path });
    }
  }
  return drawing;
}

export const SAVE: DrawingOp = Object.freeze({ op: "save" });
export const RESTORE: DrawingOp = Object.freeze({ op: "restore" });
export const FORM_END: DrawingOp = Object.freeze({ op: "formEnd" });

/** The horizontal and vertical rules a page draws, in its user space. */
function rulesOf(drawing: readonly DrawingOp[]): { h: Segment[]; v: Segment[] } | null {
  const h: Segment[] = [];
  const v: Segment[] = [];
  const stack: Matrix[] = [];
  let ctm: Matrix = IDENTITY;
  const addLine = (ax: number, ay: number, bx: number, by: number) => {
    if (Math.abs(ay - by) < 0.5 && Math.abs(ax - bx) >= TOLERANCE) {
      h.push({ at: (ay + by) / 2, from: Math.min(ax, bx), to: Math.max(ax, bx) });
    } else if (Math.abs(ax - bx) < 0.5 && Math.abs(ay - by) >= TOLERANCE) {
      v.push({ at: (ax + bx) / 2, from: Math.min(ay, by), to: Math.max(ay, by) });
    }
  };
  for (const item of drawing) {
    switch (item.op) {
      case "save":
        stack.push(ctm);
        break;
      case "restore":
      case "formEnd":
        ctm = stack.pop() ?? IDENTITY;
        break;
      case "transform":
        ctm = multiply(ctm, item.matrix);
        break;
      case "formBegin":
        stack.push(ctm);
        if (item.matrix) ctm = multiply(ctm, item.matrix);
        break;
      case "stroke":
      case "fill": {
        const stroked = item.op === "stroke";
        for (const subpath of subpaths(item.path)) {
          if (subpath.curved) continue;
          // The points in the page's user space: xs[k], ys[k].
          const xy = subpath.xy;
          const n = xy.length / 2;
          const xs = new Float64Array(n), ys = new Float64Array(n);
          for (let k = 0; k < n; k++) {
            const x = xy[2 * k], y = xy[2 * k + 1];
            xs[k] = ctm[0] * x + ctm[2] * y + ctm[4];
            ys[k] = ctm[1] * x + ctm[3] * y + ctm[5];
          }
          if (stroked) {
            for (let k = 1; k < n; k++) addLine(xs[k - 1], ys[k - 1], xs[k], ys[k]);
            if (subpath.closed && n > 2) addLine(xs[n - 1], ys[n - 1], xs[0], ys[0]);
          } else {
            // A thin filled rectangle is a rule along its long side (how Ghostscript and Word draw them).
            if (!isRectangle(xs, ys)) continue;
            let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
            for (let k = 0; k < n; k++) {
              x0 = Math.min(x0, xs[k]);
              x1 = Math.max(x1, xs[k]);
              y0 = Math.min(y0, ys[k]);
              y1 = Math.max(y1, ys[k]);
            }
            if (y1 - y0 <= RULE_THICKNESS && x1 - x0 > y1 - y0) addLine(x0, (y0 + y1) / 2, x1, (y0 + y1) / 2);
            else if (x1 - x0 <= RULE_THICKNESS && y1 - y0 > x1 - x0) addLine((x0 + x1) / 2, y0, (x0 + x1) / 2, y1);
          }
          if (h.length + v.length > MAX_SEGMENTS) return null;
        }
        break;
      }
    }
  }
  return { h, v };
}

/** Four corners (a fifth repeating the first allowed), each side horizontal or vertical. */
function isRectangle(xs: Float64Array, ys: Float64Array): boolean {
  const corners = xs.length === 5 && Math.abs(xs[4] - xs[0]) < 0.5 && Math.abs(ys[4] - ys[0]) < 0.5 ? 4 : xs.length;
  if (corners !== 4) return false;
  for (let k = 0; k < 4; k++) {
    const next = (k + 1) % 4;
    if (Math.abs(xs[k] - xs[next]) > 0.5 && Math.abs(ys[k] - ys[next]) > 0.5) return false;
  }
  return true;
}

/** One subpath: its points' coordinates, x and y in turn (`xy`), whether it is closed or has curves. */
interface Subpath {
  xy: number[];
  closed: boolean;
  curved: boolean;
}

/** PDF.js's path data (moveTo 0, lineTo 1, curveTo 2, quadraticCurveTo 3, closePath 4) as subpaths. */
function subpaths(data: ArrayLike<number>): Subpath[] {
  const out: Subpath[] = [];
  let current: Subpath | null = null;
  for (let i = 0; i < data.length;) {
    switch (data[i]) {
      case 0:
        current = { xy: [data[i + 1], data[i + 2]], closed: false, curved: false };
        out.push(current);
        i += 3;
        break;
      case 1:
        current?.xy.push(data[i + 1], data[i + 2]);
        i += 3;
        break;
      case 2:
        if (current) current.curved = true;
        i += 7;
        break;
      case 3:
        if (current) current.curved = true;
        i += 5;
        break;
      case 4:
        if (current) current.closed = true;
        i += 1;
        break;
      default:
        return out; // a path format this reader does not know: what was read so far
    }
  }
  return out;
}

/** Rules on one line merged into maximal runs. */
function merge(segments: Segment[]): Segment[] {
  const sorted = [...segments].sort((a, b) => a.at - b.at || a.from - b.from);
  const lines: Segment[][] = [];
  for (const s of sorted) {
    const line = lines[lines.length - 1];
    if (line && Math.abs(s.at - line[0].at) <= TOLERANCE / 2) line.push(s);
    else lines.push([s]);
  }
  const merged: Segment[] = [];
  for (const line of lines) {
    const at = line.reduce((sum, s) => sum + s.at, 0) / line.length;
    const runs = [...line].sort((a, b) => a.from - b.from);
    let run: Segment | null = null;
    for (const s of runs) {
      if (run && s.from <= run.to + TOLERANCE) run.to = Math.max(run.to, s.to);
      else merged.push(run = { at, from: s.from, to: s.to });
    }
  }
  return merged;
}

/** Positions closer than the tolerance as one (their mean), ascending. */
function cluster(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const groups: number[][] = [];
  for (const value of sorted) {
    const group = groups[groups.length - 1];
    if (group && value - group[group.length - 1] <= TOLERANCE) group.push(value);
    else groups.push([value]);
  }
  return groups.map((g) => g.reduce((a, b) => a + b, 0) / g.length);
}

/** A group's rules' indices ordered by position, so `coverage` looks only at the rules near one. */
const byPosition = new WeakMap<readonly Segment[], number[]>();

/**
 * How much of [from, to] the rules at `at` cover, 0..1. The rules within twice the tolerance are
 * found by binary search (a figure drawn with thousands of segments would otherwise cost rules ×
 * cells), then summed in their own order with the same test, so the sum is the one a scan of all
 * of them makes.
 */
function coverage(rules: readonly Segment[], at: number, from: number, to: number): number {
  let order = byPosition.get(rules);
  if (!order) byPosition.set(rules, order = rules.map((_, i) => i).sort((a, b) => rules[a].at - rules[b].at));
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rules[order[mid]].at < at - 2 * TOLERANCE) lo = mid + 1;
    else hi = mid;
  }
  const near: number[] = [];
  for (let k = lo; k < order.length && rules[order[k]].at <= at + 2 * TOLERANCE; k++) near.push(order[k]);
  near.sort((a, b) => a - b);
  let covered = 0;
  for (const i of near) {
    const r = rules[i];
    if (Math.abs(r.at - at) > TOLERANCE) continue;
    covered += Math.max(0, Math.min(r.to, to) - Math.max(r.from, from));
  }
  return to > from ? Math.min(1, covered / (to - from)) : 0;
}

/** Groups of rules that touch each other: each is a candidate table. */
function components(h: Segment[], v: Segment[]): { h: Segment[]; v: Segment[] }[] {
  const parent = Array.from({ length: h.length + v.length }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  // Verticals by x, so each horizontal looks only at those within its span.
  const order = v.map((_, j) => j).sort((a, b) => v[a].at - v[b].at);
  for (let i = 0; i < h.length; i++) {
    const a = h[i];
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v[order[mid]].at < a.from - TOLERANCE) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < order.length && v[order[k]].at <= a.to + TOLERANCE; k++) {
      const b = v[order[k]];
      if (a.at >= b.from - TOLERANCE && a.at <= b.to + TOLERANCE) {
        const [ri, rj] = [find(i), find(h.length + order[k])];
        if (ri !== rj) parent[ri] = rj;
      }
    }
  }
  const groups = new Map<number, { h: Segment[]; v: Segment[] }>();
  const group = (i: number) => {
    const root = find(i);
    let g = groups.get(root);
    if (!g) groups.set(root, g = { h: [], v: [] });
    return g;
  };
  h.forEach((s, i) => group(i).h.push(s));
  v.forEach((s, j) => group(h.length + j).v.push(s));
  return [...groups.values()].filter((g) => g.h.length >= 3 && g.v.length >= 3);
}

interface Grid {
  /** Column boundaries, left to right; row boundaries, top to bottom (descending y). */
  readonly xs: number[];
  readonly ys: number[];
  /** Each cell's merged group (its top-left cell's index, row * columns + column). */
  readonly owner: number[];
}

/** The grid of a group of rules, when it is certain; null otherwise. */
function gridOf(group: { h: Segment[]; v: Segment[] }): Grid | null {
  const xs = cluster(group.v.map((s) => s.at));
  const ys = cluster(group.h.map((s) => s.at)).reverse();
  if (xs.length < 3 || ys.length < 3) return null;
  const [left, right, top, bottom] = [xs[0], xs[xs.length - 1], ys[0], ys[ys.length - 1]];
  // A closed frame.
  if (coverage(group.v, left, bottom, top) < 0.95 || coverage(group.v, right, bottom, top) < 0.95) return null;
  if (coverage(group.h, top, left, right) < 0.95 || coverage(group.h, bottom, left, right) < 0.95) return null;
  const columns = xs.length - 1;
  const rows = ys.length - 1;
  const parent = Array.from({ length: rows * columns }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const join = (a: number, b: number) => {
    const [ra, rb] = [find(a), find(b)];
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  for (let r = 0; r < rows; r++) {
    for (let c = 1; c < columns; c++) {
      // The rule between columns c-1 and c in row r: there, absent (merged), or uncertain.
      const cover = coverage(group.v, xs[c], ys[r + 1] + TOLERANCE, ys[r] - TOLERANCE);
      if (cover < 0.2) join(r * columns + c - 1, r * columns + c);
      else if (cover < 0.8) return null;
    }
  }
  for (let c = 0; c < columns; c++) {
    for (let r = 1; r < rows; r++) {
      const cover = coverage(group.h, ys[r], xs[c] + TOLERANCE, xs[c + 1] - TOLERANCE);
      if (cover < 0.2) join((r - 1) * columns + c, r * columns + c);
      else if (cover < 0.8) return null;
    }
  }
  const owner = parent.map((_, i) => find(i));
  // Each merged group must be a rectangle of cells.
  const extent = new Map<number, { r0: number; r1: number; c0: number; c1: number; n: number }>();
  owner.forEach((o, i) => {
    const [r, c] = [Math.floor(i / columns), i % columns];
    const e = extent.get(o);
    if (!e) extent.set(o, { r0: r, r1: r, c0: c, c1: c, n: 1 });
    else {
      e.r0 = Math.min(e.r0, r);
      e.r1 = Math.max(e.r1, r);
      e.c0 = Math.min(e.c0, c);
      e.c1 = Math.max(e.c1, c);
      e.n++;
    }
  });
  for (const e of extent.values()) if ((e.r1 - e.r0 + 1) * (e.c1 - e.c0 + 1) !== e.n) return null;
  if (extent.size < 4) return null; // fewer than four cells left after merging: a box, not a table
  return { xs, ys, owner };
}

function indexIn(bounds: readonly number[], value: number, descending: boolean): number {
  for (let k = 0; k < bounds.length - 1; k++) {
    const [a, b] = descending ? [bounds[k + 1], bounds[k]] : [bounds[k], bounds[k + 1]];
    if (value >= a && value <= b) return k;
  }
  return -1;
}

/** The text of one cell from its pieces: lines top to bottom, pieces left to right. */
function cellText(pieces: { str: string; x: number; end: number; y: number; size: number }[]): string {
  const sorted = [...pieces].sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: (typeof sorted)[] = [];
  for (const piece of sorted) {
    const line = lines[lines.length - 1];
    if (line && Math.abs(line[0].y - piece.y) <= Math.max(line[0].size, piece.size) * 0.5) line.push(piece);
    else lines.push([piece]);
  }
  return lines.map((line) => {
    line.sort((a, b) => a.x - b.x);
    let text = "";
    line.forEach((piece, k) => {
      if (k > 0 && piece.x - line[k - 1].end > piece.size * 0.25 && !/\s$/.test(text) && !/^\s/.test(piece.str)) {
        text += " ";
      }
      text += piece.str;
    });
    return text.replace(/\s+/g, " ").trim();
  }).filter(Boolean).join("\n");
}

/**
 * Whether a page's text could hold a table worth looking for rules around: pieces that start a
 * clear gap after another piece on their line, at the same place on at least three lines (a
 * column), on lines that are not code (fixed-pitch) or a list (bullet, number). Reading the
 * drawing operators costs about as much as reading the text, so other pages skip it.
 */
export const LIST_MARKER = /^(?:[•◦▪▫‣∙·●○■□◆◇►▸*+–—-]|\(?[0-9A-Za-z]{1,3}[.)])$/u;

export function mayHoldTable(pieces: readonly TablePiece[]): boolean {
  const lines = new Map<number, { str: string; x0: number; x1: number; size: number; monospace: boolean }[]>();
  for (const piece of pieces) {
    if (!piece.str.trim()) continue;
    const [, , c, d, e, f] = piece.transform;
    const key = Math.round(f / 2);
    let line = lines.get(key);
    if (!line) lines.set(key, line = []);
    line.push({
      str: piece.str,
      x0: e,
      x1: e + piece.width,
      size: Math.hypot(c, d) || piece.height || 1,
      monospace: piece.monospace === true,
    });
  }
  const columns = new Map<number, number>();
  for (const line of lines.values()) {
    if (line.length < 2 || line.some((piece) => piece.monospace)) continue;
    line.sort((a, b) => a.x0 - b.x0);
    const starts = new Set<number>();
    let before = "";
    for (let k = 1; k < line.length; k++) {
      before += line[k - 1].str;
      // Text after a list's bullet or number is not a column.
      if (line[k].x0 - line[k - 1].x1 > line[k].size && !LIST_MARKER.test(before.trim())) {
        starts.add(Math.round(line[k].x0 / 3));
      }
    }
    for (const start of starts) {
      const count = (columns.get(start) ?? 0) + 1;
      columns.set(start, count);
      // A column start seen on three lines (its neighbouring bucket counts too: rounding splits them).
      if (count + (columns.get(start - 1) ?? 0) + (columns.get(start + 1) ?? 0) >= 3) return true;
    }
  }
  return false;
}

/** The page's ruled tables whose grid and text placement are certain. */
export function ruledTables(drawing: readonly DrawingOp[], pieces: readonly TablePiece[]): RuledTable[] {
  const rules = rulesOf(drawing);
  if (rules === null || rules.h.length < 3 || rules.v.length < 3) return [];
  const tables: RuledTable[] = [];
  for (const group of components(merge(rules.h), merge(rules.v))) {
    const grid = gridOf(group);
    if (grid === null) continue;
    const table = fill(grid, pieces);
    if (table !== null) tables.push(table);
  }
  return tables;
}

/** The grid's cells filled with the pieces inside it; null when a piece does not sit cleanly in one cell. */
function fill(grid: Grid, pieces: readonly TablePiece[]): RuledTable | null {
  const { xs, ys, owner } = grid;
  const columns = xs.length - 1;
  const [left, right, top, bottom] = [xs[0], xs[xs.length - 1], ys[0], ys[ys.length - 1]];
  const members = new Set<number>();
  const inCell = new Map<number, { str: string; x: number; end: number; y: number; size: number }[]>();
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    const [a, b, c, d, e, f] = piece.transform;
    const size = Math.hypot(c, d) || piece.height || 1;
    const x0 = e;
    const x1 = e + piece.width;
    const middle = f + size * 0.35;
    const overlaps = x1 > left + TOLERANCE && x0 < right - TOLERANCE && f + size * 0.7 > bottom && f < top;
    if (!overlaps) continue;
    if (!piece.str.trim()) {
      members.add(i);
      continue;
    }
    // Only upright text is placed; text crossing the frame means the grid is not the table's.
    if (Math.abs(b) > 1e-3 || Math.abs(c) > 1e-3 || a <= 0 || d <= 0) return null;
    const centre = (x0 + x1) / 2;
    if (centre < left || centre > right || middle < bottom || middle > top) return null;
    const column = indexIn(xs, centre, false);
    const row = indexIn(ys, middle, true);
    if (column < 0 || row < 0) return null;
    const cell = owner[row * columns + column];
    // The merged cell's left and right edges: the piece must not cross them.
    let c0 = column;
    let c1 = column;
    while (c0 > 0 && owner[row * columns + c0 - 1] === cell) c0--;
    while (c1 < columns - 1 && owner[row * columns + c1 + 1] === cell) c1++;
    const slack = Math.max(TOLERANCE, size * 0.3);
    if (x0 < xs[c0] - slack || x1 > xs[c1 + 1] + slack) return null;
    members.add(i);
    let list = inCell.get(cell);
    if (!list) inCell.set(cell, list = []);
    list.push({ str: piece.str, x: x0, end: x1, y: f, size });
  }
  const rows: string[][] = [];
  for (let r = 0; r < ys.length - 1; r++) {
    const row: string[] = [];
    for (let c = 0; c < columns; c++) {
      const index = r * columns + c;
      row.push(owner[index] === index ? cellText(inCell.get(index) ?? []) : "");
    }
    rows.push(row);
  }
  // A grid with text in fewer than two rows or two columns is a frame, not a table.
  const filledRows = rows.filter((row) => row.some(Boolean)).length;
  const filledColumns = Array.from({ length: columns }, (_, c) => rows.some((row) => row[c])).filter(Boolean).length;
  if (filledRows < 2 || filledColumns < 2) return null;
  return { rows, members };
}

/** A piece on a line, as the detection of tables without rules reads it. */
export interface LinePiece {
  readonly i: number;
  readonly x0: number;
  readonly x1: number;
  readonly str: string;
}

/** A line of pieces: its baseline, its first piece's size, its pieces in the order they came. */
export interface PieceLine {
  readonly y: number;
  readonly size: number;
  readonly pieces: LinePiece[];
}

/**
 * Pieces gathered into lines by their baselines: each piece joins the first line started (in the
 * order they were started) whose baseline is within 0.3 of the smaller of the two sizes, else it
 * starts a line. The lines near a baseline are found by binary search over the lines ordered by
 * baseline (a page of thousands of pieces would otherwise compare each with every line) and tested
 * the same way, so the lines are the ones a first-fit scan makes.
 */
export class Baselines {
  /** The lines in the order they were started. */
  readonly lines: PieceLine[] = [];
  /**
   * Indices into `lines`, by ascending baseline. A line whose baseline is not a finite number is
   * left out: no piece of finite baseline and size is within reach of it, and a piece that is not
   * finite itself is tested against every line.
   */
  readonly #byY: number[] = [];

  add(y: number, size: number, piece: LinePiece): void {
    const fits = (index: number) => Math.abs(this.lines[index].y - y) <= Math.min(this.lines[index].size, size) * 0.3;
    const order = this.#byY;
    let found = -1;
    let lo = 0;
    if (!Number.isFinite(y) || !Number.isFinite(size)) {
      found = this.lines.findIndex((_, index) => fits(index));
    } else {
      // Every line the test can accept lies within 0.3 × size of y; twice that, so rounding cannot hide one.
      const reach = Math.abs(size) * 0.6;
      let hi = order.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.lines[order[mid]].y < y - reach) lo = mid + 1;
        else hi = mid;
      }
      for (let k = lo; k < order.length && this.lines[order[k]].y <= y + reach; k++) {
        if ((found < 0 || order[k] < found) && fits(order[k])) found = order[k];
      }
    }
    if (found < 0) {
      found = this.lines.length;
      this.lines.push({ y, size, pieces: [] });
      if (Number.isFinite(y)) {
        let at = lo;
        while (at < order.length && this.lines[order[at]].y < y) at++;
        order.splice(at, 0, found);
      }
    }
    this.lines[found].pieces.push(piece);
  }
}

/** A cell of a line: its text and where it starts and ends on the baseline. */
export interface LineCell {
  text: string;
  x0: number;
  x1: number;
}

/**
 * A baseline's pieces as cells, left to right: a piece closer to the one before than the font size
 * joins its cell (with a space where the gap is a word's). Null for a line that is not clean text:
 * fixed-pitch pieces (code) or overlapping ones.
 */
export function cellsOfLine(
  line: PieceLine,
  pieces: readonly TablePiece[],
): { cells: LineCell[]; members: number[] } | null {
  const sorted = line.pieces.sort((p, q) => p.x0 - q.x0);
  if (sorted.some(({ i }) => pieces[i].monospace)) return null;
  const cells: LineCell[] = [];
  for (const piece of sorted) {
    const last = cells[cells.length - 1];
    const gap = last ? piece.x0 - last.x1 : Infinity;
    if (gap < -line.size * 0.2) return null; // overlapping pieces: not a clean line
    if (last && gap <= line.size) {
      last.text += (gap > line.size * 0.2 && !/\s$/.test(last.text) && !/^\s/.test(piece.str) ? " " : "") + piece.str;
      last.x1 = Math.max(last.x1, piece.x1);
    } else cells.push({ text: piece.str, x0: piece.x0, x1: piece.x1 });
  }
  for (const cell of cells) cell.text = cell.text.replace(/\s+/g, " ").trim();
  return { cells, members: sorted.map(({ i }) => i) };
}

/**
 * Tables without rules, from the alignment of their text alone — only where that is certain: at
 * least three consecutive lines that each split into the same number (three or more) of cells,
 * with every gap between two cells at least a character wide, and each column's cells, over all
 * those lines, apart from the next column's (a clear vertical river of white between columns on
 * every line). Lines that do not fit — a header split over lines, a cell left empty, a number
 * set too close to its neighbour — stay text, in their place. Code (fixed-pitch), list items and
 * long cells (prose in columns) are never read as tables.
 */
export function alignedTables(pieces: readonly TablePiece[], taken: ReadonlySet<number>): RuledTable[] {
  interface Row {
    y: number;
    size: number;
    cells: LineCell[];
    members: number[];
  }
  // Lines of upright pieces, top to bottom.
  const baselines = new Baselines();
  const order = pieces.map((_, i) => i).filter((i) => !taken.has(i) && pieces[i].str.trim() !== "");
  for (const i of order) {
    const piece = pieces[i];
    const [a, b, c, d, e, f] = piece.transform;
    if (Math.abs(b) > 1e-3 || Math.abs(c) > 1e-3 || a <= 0 || d <= 0) return []; // rotated text on the page
    const size = Math.hypot(c, d) || piece.height || 1;
    baselines.add(f, size, { i, x0: e, x1: e + piece.width, str: piece.str });
  }
  const byLine = [...baselines.lines].sort((p, q) => q.y - p.y);
  const rows: (Row | null)[] = byLine.map((line) => {
    const split = cellsOfLine(line, pieces);
    if (split === null) return null;
    const { cells, members } = split;
    if (cells.length < 2 || LIST_MARKER.test(cells[0].text)) return null;
    if (cells.some((cell) => cell.text.length > 40)) return null;
    return { y: line.y, size: line.size, cells, members };
  });
  const close = (upper: { y: number; size: number }, lower: { y: number; size: number }) =>
    upper.y - lower.y <= Math.max(upper.size, lower.size) * 2.5;
  const tables: RuledTable[] = [];
  const used = new Set<number>();
  // Blocks of at least three consecutive lines that agree: the same number (three or more) of cells.
  let start = 0;
  for (let k = 0; k <= rows.length; k++) {
    const row = rows[k];
    const previous = k > start ? rows[k - 1] : null;
    const agrees = row != null && previous != null && row.cells.length >= 3 &&
      row.cells.length === previous.cells.length && close(previous, row);
    if (agrees) continue;
    if (k - start >= 3 && rows[start]!.cells.length >= 3) {
      const block = rows.slice(start, k) as Row[];
      if (columnsApart(block)) tables.push(extendTable(rows, start, k, used, close));
    }
    start = k;
  }
  return tables;
}

/**
 * The table of the agreeing lines `rows[start..end)`, grown by the lines next to it that leave
 * cells empty (a row with a blank cell) — each only when its first cell is filled and every one of
 * its cells lies wholly inside one column's band (between the previous column's right edge and
 * the next column's left edge over the agreeing lines), so where each belongs is certain.
 */
function extendTable(
  rows: readonly (
    | { y: number; size: number; cells: { text: string; x0: number; x1: number }[]; members: number[] }
    | null
  )[],
  start: number,
  end: number,
  used: Set<number>,
  close: (upper: { y: number; size: number }, lower: { y: number; size: number }) => boolean,
): RuledTable {
  const core = rows.slice(start, end) as NonNullable<typeof rows[number]>[];
  const columns = core[0].cells.length;
  const bands = Array.from({ length: columns }, (_, c) => ({
    from: c === 0 ? Number.NEGATIVE_INFINITY : Math.max(...core.map((row) => row.cells[c - 1].x1)),
    to: c + 1 === columns ? Number.POSITIVE_INFINITY : Math.min(...core.map((row) => row.cells[c + 1].x0)),
  }));
  const placed = (row: NonNullable<typeof rows[number]>): string[] | null => {
    const out: string[] = Array(columns).fill("");
    let column = 0;
    for (const cell of row.cells) {
      while (column < columns && !(cell.x0 > bands[column].from && cell.x1 < bands[column].to)) column++;
      if (column === columns) return null;
      out[column++] = cell.text;
    }
    // A line whose first column is empty continues something (a header set over lines, a wrapped
    // cell): where it belongs is not certain, so it stays text.
    return out[0] === "" ? null : out;
  };
  const table = core.map((row) => row.cells.map((cell) => cell.text));
  const members = core.flatMap((row) => row.members);
  for (let k = start; k < end; k++) used.add(k);
  for (let k = end; k < rows.length; k++) {
    const row = rows[k];
    const cells = row && !used.has(k) && row.cells.length <= columns && close(rows[k - 1]!, row) ? placed(row) : null;
    if (cells === null) break;
    table.push(cells);
    members.push(...row!.members);
    used.add(k);
  }
  for (let k = start - 1; k >= 0; k--) {
    const row = rows[k];
    const cells = row && !used.has(k) && row.cells.length <= columns && close(row, rows[k + 1]!) ? placed(row) : null;
    if (cells === null) break;
    table.unshift(cells);
    members.push(...row!.members);
    used.add(k);
  }
  return { rows: table, members: new Set(members) };
}

/** Every column's cells, over all rows, end before the next column's cells start. */
function columnsApart(rows: readonly { cells: { x0: number; x1: number }[] }[]): boolean {
  const columns = rows[0].cells.length;
  for (let c = 0; c + 1 < columns; c++) {
    const right = Math.max(...rows.map((row) => row.cells[c].x1));
    const left = Math.min(...rows.map((row) => row.cells[c + 1].x0));
    if (right >= left) return false;
  }
  return true;
}
