/**
 * A page's drawing as ruled-table detection reads it (tables.ts's `DrawingOp`), built while
 * text.ts walks the content stream, the same as PDF.js's `page.getOperatorList()` reduces to:
 *
 * - one path per content stream (PDF.js's `pathBuffer`: `q`/`Q` leave it alone, a form starts its
 *   own), `re` as PDF.js's `buildPath` writes it (a rectangle of zero width or height as a line),
 *   kept until a painting operator, which emits it in single precision (`new Float32Array`) and
 *   empties it — `s`, `b` and `b*` closing it first, `n` emitting it unpainted;
 * - `q`, `Q` (an unmatched `Q` too: it is in PDF.js's list) and `cm` as they come, and at the end
 *   of each stream one `Q` per `q` left open (PDF.js's `closePendingRestoreOPS`);
 * - a form between `formBegin` (its /Matrix in single precision) and `formEnd`.
 *
 * `getOperatorList()` asks for the list with PDF.js's OPLIST intent, which turns its optimizer off
 * (no `q cm <path> Q` folded into the path), so the list is the content stream's own order.
 *
 * What is not reproduced is told in `uncertain` (the caller then leaves a page that needs its
 * rules to PDF.js): a soft mask in a graphics state (PDF.js draws the mask's form into the list),
 * a pattern colour naming no tiling or shading pattern (PDF.js's list ends there), a colour operator without
 * operands (PDF.js's list ends there, on a TypeError), a form with optional
 * content or an odd /Group (PDF.js drops the form when it cannot read them), and more path data
 * than pterm keeps for one page.
 */

import { type DrawingOp, FORM_END, RESTORE, SAVE } from "../tables.ts";
import { Dict, Name, type PdfObject, Ref, Stream, unsupported } from "./objects.ts";

/** PDF.js's path data codes. */
const MOVE_TO = 0, LINE_TO = 1, CURVE_TO = 2, CLOSE_PATH = 4;

/** Numbers of path data a page may hold before pterm stops recording its drawing (a map, a chart). */
const MAX_PATH_NUMBERS = 2_000_000;

const PAINTS: Record<string, "stroke" | "fill" | null> = {
  S: "stroke",
  s: "stroke",
  f: "fill",
  F: "fill",
  "f*": "fill",
  B: "stroke",
  "B*": "stroke",
  b: "stroke",
  "b*": "stroke",
  n: null,
};

/** One content stream's path: PDF.js keeps one per stream, whatever `q` and `Q` do. */
interface Path {
  data: number[];
  x: number;
  y: number;
}

/** The operators `DrawingRecorder.operator` reads (text.ts gives it no other: most of a page is text). */
export const DRAWING_OPERATORS: ReadonlySet<string> = new Set([
  "q",
  "Q",
  "cm",
  "m",
  "l",
  "c",
  "v",
  "y",
  "h",
  "re",
  "gs",
  "SCN",
  "scn",
  "SC",
  "sc",
  ...Object.keys(PAINTS),
]);

export class DrawingRecorder {
  readonly ops: DrawingOp[] = [];
  /** Why PDF.js's rules for this page may differ from what `ops` gives; null when they cannot. */
  uncertain: string | null = null;
  #paths: Path[] = [];
  #numbers = 0;

  beginStream(): void {
    this.#paths.push({ data: [], x: 0, y: 0 });
  }

  /** The end of a stream with `openSaves` `q` not restored: PDF.js restores them there. */
  endStream(openSaves: number): void {
    this.#paths.pop();
    for (let k = 0; k < openSaves; k++) this.ops.push(RESTORE);
  }

  formBegin(matrix: number[] | null): void {
    this.ops.push({ op: "formBegin", matrix: matrix ? Float32Array.from(matrix) : null });
  }

  formEnd(): void {
    this.ops.push(FORM_END);
  }

  /** One operator of the stream, its operands already counted by text.ts. */
  operator(op: string, args: readonly PdfObject[], resources: Dict): void {
    const path = this.#paths[this.#paths.length - 1];
    switch (op) {
      case "q":
        this.ops.push(SAVE);
        return;
      case "Q":
        this.ops.push(RESTORE);
        return;
      case "cm":
        this.ops.push({ op: "transform", matrix: numbers(op, args) });
        return;
      case "m":
      case "l": {
        const x = num(op, args, 0), y = num(op, args, 1);
        if (this.#room(3)) path.data.push(op === "m" ? MOVE_TO : LINE_TO, x, y);
        path.x = x;
        path.y = y;
        return;
      }
      case "c": {
        const x1 = num(op, args, 0), y1 = num(op, args, 1), x2 = num(op, args, 2), y2 = num(op, args, 3);
        const x3 = num(op, args, 4), y3 = num(op, args, 5);
        if (this.#room(7)) path.data.push(CURVE_TO, x1, y1, x2, y2, x3, y3);
        path.x = x3;
        path.y = y3;
        return;
      }
      case "v": {
        const x2 = num(op, args, 0), y2 = num(op, args, 1), x3 = num(op, args, 2), y3 = num(op, args, 3);
        if (this.#room(7)) path.data.push(CURVE_TO, path.x, path.y, x2, y2, x3, y3);
        path.x = x3;
        path.y = y3;
        return;
      }
      case "y": {
        const x1 = num(op, args, 0), y1 = num(op, args, 1), x3 = num(op, args, 2), y3 = num(op, args, 3);
        if (this.#room(7)) path.data.push(CURVE_TO, x1, y1, x3, y3, x3, y3);
        path.x = x3;
        path.y = y3;
        return;
      }
      case "h":
        if (this.#room(1)) path.data.push(CLOSE_PATH);
        return;
      case "re": {
        const x = num(op, args, 0), y = num(op, args, 1), width = num(op, args, 2), height = num(op, args, 3);
        const x1 = x + width, y1 = y + height;
        if (width === 0 || height === 0) {
          if (this.#room(7)) path.data.push(MOVE_TO, x, y, LINE_TO, x1, y1, CLOSE_PATH);
        } else if (this.#room(13)) {
          path.data.push(MOVE_TO, x, y, LINE_TO, x1, y, LINE_TO, x1, y1, LINE_TO, x, y1, CLOSE_PATH);
        }
        path.x = x;
        path.y = y;
        return;
      }
      case "gs":
        if (softMask(resources, args[0])) this.uncertain ??= "a soft mask (PDF.js draws its form)";
        return;
      case "SCN":
      case "scn":
      case "SC":
      case "sc":
        if ((op === "SCN" || op === "scn") && !knownPattern(resources, args[args.length - 1])) {
          this.uncertain ??= "a pattern colour (PDF.js's drawing may end at it)";
        }
        // PDF.js reads the colour from its operands: with none, its drawing ends there (a TypeError).
        if (args.length === 0) this.uncertain ??= "a colour without operands (PDF.js's drawing ends at it)";
        return;
    }
    const paint = PAINTS[op];
    if (paint === undefined) return;
    if ((op === "s" || op === "b" || op === "b*") && this.#room(1)) path.data.push(CLOSE_PATH);
    if (path.data.length === 0) return; // PDF.js's constructPath without data: no rule
    if (paint !== null) this.ops.push({ op: paint, path: Float32Array.from(path.data) });
    path.data = [];
  }

  /**
   * Whether `count` more numbers of path data fit in what pterm records for a page; past that the
   * drawing is told uncertain and the numbers are not kept.
   */
  #room(count: number): boolean {
    this.#numbers += count;
    if (this.#numbers > MAX_PATH_NUMBERS) {
      this.uncertain ??= "more drawing than pterm records for a page";
      return false;
    }
    return true;
  }
}

/** Whether `gs` sets a soft mask that PDF.js draws (a dictionary; /None draws nothing). */
function softMask(resources: Dict, name: PdfObject | undefined): boolean {
  const states = resources.get("ExtGState");
  const state = states instanceof Dict && name instanceof Name ? states.get(name.name) : undefined;
  if (!(state instanceof Dict)) return false; // text.ts refuses it
  const raw = state.getRaw("SMask");
  return (raw instanceof Ref ? state.get("SMask") : raw) instanceof Dict;
}

/**
 * Whether an `SCN`/`scn` operand leaves PDF.js's drawing going: no pattern name, or one naming a
 * tiling (a stream of /PatternType 1) or shading pattern (a dictionary of /PatternType 2) — their
 * own drawing goes to a list of their own. Any other name ends PDF.js's list under a pattern
 * colour space ("Unknown PatternName/PatternType").
 */
function knownPattern(resources: Dict, name: PdfObject | undefined): boolean {
  if (!(name instanceof Name)) return true;
  const patterns = resources.get("Pattern");
  const pattern = patterns instanceof Dict ? patterns.get(name.name) : undefined;
  if (pattern instanceof Stream) return pattern.dict.get("PatternType") === 1;
  return pattern instanceof Dict && pattern.get("PatternType") === 2;
}

/** The operands as numbers (a copy: text.ts reuses its array). */
function numbers(op: string, args: readonly PdfObject[]): number[] {
  for (const arg of args) if (typeof arg !== "number") unsupported(`${op} with an operand that is not a number`);
  return args.slice() as number[];
}

/** Operand `k` of a path operator, which must be a number. */
function num(op: string, args: readonly PdfObject[], k: number): number {
  const value = args[k];
  return typeof value === "number" ? value : unsupported(`${op} with an operand that is not a number`);
}
