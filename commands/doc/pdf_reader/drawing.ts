/**
 * A page's drawing as ruled-table detection reads it (pdf_tables.ts's `DrawingOp`), built while
 * text.ts walks the content stream, the same as PDF.js's operator list reduces to:
 *
 * - one path per content stream (PDF.js's `pathBuffer`: `q`/`Q` leave it alone, a form starts its
 *   own), `re` as PDF.js's `buildPath` writes it (a rectangle of zero width or height as a line),
 *   kept until a painting operator, which emits it in single precision (`new Float32Array`) and
 *   empties it — `s`, `b` and `b*` closing it first, `n` and `W n` emitting it unpainted;
 * - `q`, `Q` (an unmatched `Q` too: it is in PDF.js's list) and `cm` as they come, and at the end
 *   of each stream one `Q` per `q` left open (PDF.js's `closePendingRestoreOPS`);
 * - a form between `formBegin` (its /Matrix in single precision) and `formEnd`.
 *
 * What is not reproduced is told in `uncertain` (the caller then leaves a page that needs its
 * rules to PDF.js): PDF.js's operator list optimizer folds `q cm <path> Q` into one path
 * transformed in single precision (`save, transform, constructPath, restore` next to each other
 * in the list, for a fill or for a stroke under a translation), where these rules would be
 * computed in double precision; a pattern colour (a missing or odd pattern ends PDF.js's list
 * there); and more path data than pterm keeps for one page.
 */

import { type DrawingOp, FORM_END, RESTORE, SAVE } from "../pdf_tables.ts";
import { Name, type PdfObject, unsupported } from "./objects.ts";

/** PDF.js's path data codes. */
const MOVE_TO = 0, LINE_TO = 1, CURVE_TO = 2, CLOSE_PATH = 4;

/** Numbers of path data a page may hold before pterm stops recording its drawing (a map, a chart). */
const MAX_PATH_NUMBERS = 2_000_000;

/** How an operator shows in PDF.js's operator list, for spotting `save, transform, constructPath, restore`. */
const enum Emits {
  /** No operation at all (path construction, colour spaces, marked points, compatibility sections). */
  Nothing,
  /** Perhaps none (an operand PDF.js skips, a graphics state with nothing it keeps, an image it cannot decode). */
  MaybeNothing,
  /** One or more operations that are none of the four. */
  Other,
}

const EMITS: Record<string, Emits> = {
  m: Emits.Nothing,
  l: Emits.Nothing,
  c: Emits.Nothing,
  v: Emits.Nothing,
  y: Emits.Nothing,
  h: Emits.Nothing,
  re: Emits.Nothing,
  cs: Emits.Nothing,
  CS: Emits.Nothing,
  MP: Emits.Nothing,
  DP: Emits.Nothing,
  BX: Emits.Nothing,
  EX: Emits.Nothing,
  gs: Emits.MaybeNothing,
  w: Emits.MaybeNothing,
  d: Emits.MaybeNothing,
  sh: Emits.MaybeNothing,
  Do: Emits.MaybeNothing,
  SCN: Emits.MaybeNothing,
  scn: Emits.MaybeNothing,
};

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

export class DrawingRecorder {
  readonly ops: DrawingOp[] = [];
  /** Why PDF.js's rules for this page may differ from what `ops` gives; null when they cannot. */
  uncertain: string | null = null;
  #paths: Path[] = [];
  #numbers = 0;
  /** How far the last operations went into `save, transform, constructPath, restore` (0–3). */
  #stage = 0;
  /** The `transform` of that sequence is a translation (PDF.js folds a stroke only then). */
  #translation = false;

  beginStream(): void {
    this.#paths.push({ data: [], x: 0, y: 0 });
  }

  /** The end of a stream with `openSaves` `q` not restored: PDF.js restores them there. */
  endStream(openSaves: number): void {
    this.#paths.pop();
    for (let k = 0; k < openSaves; k++) this.#emit(RESTORE, 3);
  }

  formBegin(matrix: number[] | null): void {
    this.#emit({ op: "formBegin", matrix: matrix ? Float32Array.from(matrix) : null }, -1);
  }

  formEnd(): void {
    this.#emit(FORM_END, -1);
  }

  /** One operator of the stream, its operands already counted by text.ts. */
  operator(op: string, args: readonly PdfObject[]): void {
    const path = this.#paths[this.#paths.length - 1];
    switch (op) {
      case "q":
        this.#emit(SAVE, 0);
        return;
      case "Q":
        this.#emit(RESTORE, 3);
        return;
      case "cm": {
        const matrix = numbers(op, args);
        this.#emit({ op: "transform", matrix }, 1);
        this.#translation = matrix[0] === 1 && matrix[1] === 0 && matrix[2] === 0 && matrix[3] === 1;
        return;
      }
      case "m":
      case "l": {
        const [x, y] = numbers(op, args);
        this.#push(path, op === "m" ? MOVE_TO : LINE_TO, x, y);
        path.x = x;
        path.y = y;
        return;
      }
      case "c": {
        const [x1, y1, x2, y2, x3, y3] = numbers(op, args);
        this.#push(path, CURVE_TO, x1, y1, x2, y2, x3, y3);
        path.x = x3;
        path.y = y3;
        return;
      }
      case "v": {
        const [x2, y2, x3, y3] = numbers(op, args);
        this.#push(path, CURVE_TO, path.x, path.y, x2, y2, x3, y3);
        path.x = x3;
        path.y = y3;
        return;
      }
      case "y": {
        const [x1, y1, x3, y3] = numbers(op, args);
        this.#push(path, CURVE_TO, x1, y1, x3, y3, x3, y3);
        path.x = x3;
        path.y = y3;
        return;
      }
      case "h":
        this.#push(path, CLOSE_PATH);
        return;
      case "re": {
        const [x, y, width, height] = numbers(op, args);
        const [x1, y1] = [x + width, y + height];
        if (width === 0 || height === 0) this.#push(path, MOVE_TO, x, y, LINE_TO, x1, y1, CLOSE_PATH);
        else this.#push(path, MOVE_TO, x, y, LINE_TO, x1, y, LINE_TO, x1, y1, LINE_TO, x, y1, CLOSE_PATH);
        path.x = x;
        path.y = y;
        return;
      }
    }
    const paint = PAINTS[op];
    if (paint !== undefined) {
      if (op === "s" || op === "b" || op === "b*") this.#push(path, CLOSE_PATH);
      const data = path.data;
      if (data.length === 0) {
        this.#emit(null, -1);
        return;
      }
      path.data = [];
      // What PDF.js's optimizer folds into the path, were `save, transform` just before and `restore` next.
      const foldable = paint === "fill" || (paint === "stroke" && this.#translation);
      if (paint !== null) this.#emit({ op: paint, path: Float32Array.from(data) }, foldable ? 2 : -1);
      else this.#emit(null, -1);
      return;
    }
    if ((op === "SCN" || op === "scn") && args[args.length - 1] instanceof Name) {
      this.uncertain ??= "a pattern colour (PDF.js's drawing may end at it)";
    }
    const emits = EMITS[op] ?? Emits.Other;
    if (emits === Emits.Other) this.#stage = 0;
  }

  /**
   * Records an operation that is, in `save, transform, constructPath, restore`, the `position`th
   * (0–3; -1 for none of them), and whether the four have just come together.
   */
  #emit(op: DrawingOp | null, position: number): void {
    if (op !== null) this.ops.push(op);
    if (position === 0) this.#stage = 1;
    else if (position > 0 && this.#stage === position) {
      this.#stage = position + 1;
      if (this.#stage === 4) {
        this.uncertain ??= "a path drawn as `q cm <path> Q` (PDF.js's operator list folds it in single precision)";
        this.#stage = 0;
      }
    } else this.#stage = 0;
  }

  #push(path: Path, ...values: number[]): void {
    this.#numbers += values.length;
    if (this.#numbers > MAX_PATH_NUMBERS) {
      this.uncertain ??= "more drawing than pterm records for a page";
      return;
    }
    path.data.push(...values);
  }
}

/** The operands as numbers (a copy: text.ts reuses its array). */
function numbers(op: string, args: readonly PdfObject[]): number[] {
  for (const arg of args) if (typeof arg !== "number") unsupported(`${op} with an operand that is not a number`);
  return args.slice() as number[];
}
