/**
 * A page's content stream read for its text, building the very pieces PDF.js's
 * `getTextContent({ disableNormalization: true })` gives, so that pterm's layout gives the same
 * text. Three stages: the operand reader (`contentText`: operands gathered until their operator),
 * the operator interpreter (`applyOperator`: the text state, forms, the checks), and text-run
 * collection (text_runs.ts: glyphs into pieces).
 *
 * Operators and states this reader does not follow exactly (inline images, a font set through a
 * graphics state, vertical writing, right-to-left text) are `Unsupported`.
 */

import { Cmd, Dict, EOF, Name, Parser, type PdfObject, Ref, Stream, unsupported } from "./objects.ts";
import { loadSimpleFont, type SimpleFont } from "./fonts.ts";
import { DRAWING_OPERATORS, type DrawingRecorder } from "./drawing.ts";
import { StateManager, type TextState } from "./text_state.ts";
import { type TextPiece, TextRuns } from "./text_runs.ts";

/** Operators and their operand counts; -1: any number (colours). */
const OPERATORS: Record<string, number> = {
  w: 1,
  J: 1,
  j: 1,
  M: 1,
  d: 2,
  ri: 1,
  i: 1,
  gs: 1,
  q: 0,
  Q: 0,
  cm: 6,
  m: 2,
  l: 2,
  c: 6,
  v: 4,
  y: 4,
  h: 0,
  re: 4,
  S: 0,
  s: 0,
  f: 0,
  F: 0,
  "f*": 0,
  B: 0,
  "B*": 0,
  b: 0,
  "b*": 0,
  n: 0,
  W: 0,
  "W*": 0,
  BT: 0,
  ET: 0,
  Tc: 1,
  Tw: 1,
  Tz: 1,
  TL: 1,
  Tf: 2,
  Tr: 1,
  Ts: 1,
  Td: 2,
  TD: 2,
  Tm: 6,
  "T*": 0,
  Tj: 1,
  TJ: 1,
  "'": 1,
  '"': 3,
  d0: 2,
  d1: 6,
  CS: 1,
  cs: 1,
  SC: -1,
  SCN: -1,
  sc: -1,
  scn: -1,
  G: 1,
  g: 1,
  RG: 3,
  rg: 3,
  K: 4,
  k: 4,
  sh: 1,
  Do: 1,
  MP: 1,
  DP: 2,
  BMC: 1,
  BDC: 2,
  EMC: 0,
  BX: 0,
  EX: 0,
};

/** Everything a page's text needs from the document: fonts by reference, loaded once. */
export class FontCache {
  readonly #byRef = new Map<number, SimpleFont>();
  readonly #loadedNames = new Map<SimpleFont, string>();
  load(resources: Dict, name: string): { font: SimpleFont; loadedName: string } {
    const fonts = resources.get("Font");
    if (!(fonts instanceof Dict)) return unsupported("a Tf without a /Font resource");
    const raw = fonts.getRaw(name);
    let font: SimpleFont;
    if (raw instanceof Ref) {
      let cached = this.#byRef.get(raw.num);
      if (!cached) {
        const dict = fonts.get(name);
        if (!(dict instanceof Dict)) return unsupported("a font that is not a dictionary");
        cached = loadSimpleFont(dict);
        this.#byRef.set(raw.num, cached);
      }
      font = cached;
    } else if (raw instanceof Dict) {
      font = loadSimpleFont(raw);
    } else return unsupported(`a missing font /${name}`);
    let loadedName = this.#loadedNames.get(font);
    if (!loadedName) this.#loadedNames.set(font, loadedName = `f${this.#loadedNames.size + 1}`);
    return { font, loadedName };
  }
  /** The monospace fonts' loaded names (page_source.ts's `styles[fontName].fontFamily === "monospace"`). */
  styles(): Record<string, { fontFamily: string }> {
    const styles: Record<string, { fontFamily: string }> = {};
    for (const [font, name] of this.#loadedNames) {
      styles[name] = { fontFamily: font.monospace ? "monospace" : "serif" };
    }
    return styles;
  }
}

/** What every content stream of one page shares: the page's crop box, fonts, pieces and drawing. */
export interface PageReading {
  readonly viewBox: number[];
  readonly fonts: FontCache;
  /** The page's text pieces, in content order; each stream appends its own. */
  readonly items: TextPiece[];
  /** The forms being read (their object numbers): a form that draws itself is refused. */
  readonly forms: Set<number>;
  /** The page's drawing (the rules table detection reads). */
  readonly drawing: DrawingRecorder;
}

/** One content stream to read: a page's, or a form's within it. */
export interface ContentStream {
  readonly data: Uint8Array;
  readonly resources: Dict;
  /** The text state at the stream's start (a form's: its caller's, with the form's /Matrix). */
  readonly state: StateManager;
  /** How many forms this stream is nested in. */
  readonly depth: number;
  readonly page: PageReading;
}

/** The interpreter of one stream: the stream, its runs, and its /XObject resources once a Do asked for them. */
interface Interpreter {
  readonly stream: ContentStream;
  readonly runs: TextRuns;
  xobjects: Dict | null;
}

/**
 * The text pieces of a content stream, appended to `page.items`, and its drawing given to
 * `page.drawing`: operands are gathered until their operator, which is checked and applied.
 */
export function contentText(stream: ContentStream): void {
  if (stream.depth > 12) unsupported("forms nested too deep");
  const { data, resources, page } = stream;
  page.drawing.beginStream();
  const interpreter: Interpreter = { stream, runs: new TextRuns(page.items, page.viewBox), xobjects: null };
  const parser = new Parser(data, 0, resources.xref);
  const args: PdfObject[] = [];
  for (;;) {
    const obj = parser.object(false);
    if (obj === EOF) break;
    if (!(obj instanceof Cmd)) {
      args.push(obj);
      if (args.length > 33) unsupported("too many operands");
      continue;
    }
    applyOperator(interpreter, obj.cmd, args);
    args.length = 0;
  }
  interpreter.runs.flush();
  page.drawing.endStream(stream.state.stack.length);
}

/** Operand `k` of `op`, which must be a number. */
function operand(op: string, args: readonly PdfObject[], k: number): number {
  const v = args[k];
  return typeof v === "number" ? v : unsupported(`${op} with an operand that is not a number`);
}

/** One operator with its operands: checked, given to the drawing, then applied to the graphics and text state. */
function applyOperator(interpreter: Interpreter, op: string, args: PdfObject[]): void {
  const { stream, runs } = interpreter;
  const { resources, state: stateManager, page } = stream;
  const expected = OPERATORS[op];
  if (expected === undefined) unsupported(`the operator ${op.slice(0, 10)}`);
  if (expected >= 0 && args.length !== expected) unsupported(`${op} with ${args.length} operands`);
  if (DRAWING_OPERATORS.has(op)) page.drawing.operator(op, args, resources);
  switch (op) {
    case "q":
      stateManager.save();
      break;
    case "Q":
      stateManager.restore();
      break;
    case "cm":
      stateManager.transform([
        operand(op, args, 0),
        operand(op, args, 1),
        operand(op, args, 2),
        operand(op, args, 3),
        operand(op, args, 4),
        operand(op, args, 5),
      ]);
      break;
  }
  const textState = stateManager.state;
  runs.follow(textState);
  if (setsTextState(op, args, textState, runs, stream)) return;
  if (showsText(op, args, textState, runs, stateManager)) return;
  switch (op) {
    case "Do":
      runs.flush();
      drawXObject(interpreter, args);
      break;
    case "gs": {
      const name = args[0];
      if (!(name instanceof Name)) unsupported("gs without a name");
      const states = resources.get("ExtGState");
      if (!(states instanceof Dict)) unsupported("gs without an /ExtGState resource");
      const state = states.get(name.name);
      if (!(state instanceof Dict)) unsupported("a graphics state that is not a dictionary");
      if (state.has("Font")) unsupported("a font set through a graphics state");
      break;
    }
    case "d0":
    case "d1":
      unsupported("Type 3 glyph operators in a page");
      break;
    case "BDC":
    case "DP":
      if (!(args[0] instanceof Name)) unsupported(`${op} without a tag`);
      if (!(args[1] instanceof Dict) && !(args[1] instanceof Name)) unsupported(`${op} with odd properties`);
      break;
  }
}

/** The text state operators (font, rise, scale, leading, positioning, spacing, BT); false for any other. */
function setsTextState(
  op: string,
  args: readonly PdfObject[],
  textState: TextState,
  runs: TextRuns,
  stream: ContentStream,
): boolean {
  switch (op) {
    case "Tf": {
      const name = args[0];
      if (!(name instanceof Name)) unsupported("Tf without a font name");
      const size = operand(op, args, 1);
      if (textState.font && name.name === textState.fontName && size === textState.fontSize) break;
      textState.fontName = name.name;
      textState.fontSize = size;
      const loaded = stream.page.fonts.load(stream.resources, name.name);
      textState.loadedName = loaded.loadedName;
      textState.font = loaded.font;
      break;
    }
    case "Ts":
      textState.textRise = operand(op, args, 0);
      break;
    case "Tz":
      textState.textHScale = operand(op, args, 0) / 100;
      break;
    case "TL":
      textState.leading = operand(op, args, 0);
      break;
    case "Td":
      textState.translateTextLineMatrix(operand(op, args, 0), operand(op, args, 1));
      textState.textMatrix = textState.textLineMatrix.slice();
      break;
    case "TD":
      textState.leading = -operand(op, args, 1);
      textState.translateTextLineMatrix(operand(op, args, 0), operand(op, args, 1));
      textState.textMatrix = textState.textLineMatrix.slice();
      break;
    case "T*":
      textState.carriageReturn();
      break;
    case "Tm": {
      for (let k = 0; k < 6; k++) operand(op, args, k); // all six checked before any is set
      for (let k = 0; k < 6; k++) textState.textMatrix[k] = args[k] as number;
      for (let k = 0; k < 6; k++) textState.textLineMatrix[k] = args[k] as number;
      runs.updateAdvanceScale();
      break;
    }
    case "Tc":
      textState.charSpacing = operand(op, args, 0);
      break;
    case "Tw":
      textState.wordSpacing = operand(op, args, 0);
      break;
    case "BT":
      textState.textMatrix = [1, 0, 0, 1, 0, 0];
      textState.textLineMatrix = [1, 0, 0, 1, 0, 0];
      break;
    default:
      return false;
  }
  return true;
}

/** The text-showing operators (TJ, Tj, ', "); false for any other. */
function showsText(
  op: string,
  args: readonly PdfObject[],
  textState: TextState,
  runs: TextRuns,
  stateManager: StateManager,
): boolean {
  switch (op) {
    case "TJ": {
      if (!stateManager.state.font) unsupported("text shown before any Tf");
      const array = args[0];
      if (!Array.isArray(array)) unsupported("TJ without an array");
      const spaceFactor = -textState.fontSize / 1000;
      let buffer = "";
      for (const element of array) {
        if (typeof element === "string") buffer += element;
        else if (typeof element === "number") {
          if (element !== 0) {
            const chars = buffer;
            buffer = "";
            runs.show(chars, element * spaceFactor);
          }
        } else unsupported("a TJ element that is neither a string nor a number");
      }
      if (buffer.length > 0) runs.show(buffer, 0);
      break;
    }
    case "Tj":
      if (!stateManager.state.font) unsupported("text shown before any Tf");
      if (typeof args[0] !== "string") unsupported("Tj without a string");
      runs.show(args[0], 0);
      break;
    case "'":
      if (!stateManager.state.font) unsupported("text shown before any Tf");
      if (typeof args[0] !== "string") unsupported("' without a string");
      textState.carriageReturn();
      runs.show(args[0], 0);
      break;
    case '"':
      if (!stateManager.state.font) unsupported("text shown before any Tf");
      if (typeof args[2] !== "string") unsupported('" without a string');
      textState.wordSpacing = operand(op, args, 0);
      textState.charSpacing = operand(op, args, 1);
      textState.carriageReturn();
      runs.show(args[2], 0);
      break;
    default:
      return false;
  }
  return true;
}

/** Do: a form's stream is read in place, in a state of its own; an image draws no text. */
function drawXObject(interpreter: Interpreter, args: readonly PdfObject[]): void {
  const { stream } = interpreter;
  const { resources, page } = stream;
  const { forms, drawing } = page;
  interpreter.xobjects ??= (resources.get("XObject") as Dict | undefined) ?? null;
  const xobjects = interpreter.xobjects;
  const name = args[0];
  if (!(name instanceof Name)) unsupported("Do without a name");
  if (!(xobjects instanceof Dict)) unsupported("Do without an /XObject resource");
  const raw = xobjects.getRaw(name.name);
  const xobject = raw instanceof Ref ? resources.xref!.fetch(raw) : raw;
  if (!(xobject instanceof Stream)) unsupported("an XObject that is not a stream");
  const subtype = xobject.dict.get("Subtype");
  if (!(subtype instanceof Name)) unsupported("an XObject without a /Subtype");
  if (subtype.name !== "Form") return;
  const key = raw instanceof Ref ? raw.num : -1;
  if (forms.has(key)) unsupported("a form that draws itself");
  const formState = new StateManager(stream.state.state.clone());
  const matrix = xobject.dict.get("Matrix");
  if (matrix !== undefined) {
    if (!Array.isArray(matrix) || matrix.length !== 6 || !matrix.every((x) => typeof x === "number")) {
      unsupported("a form with an unusual /Matrix");
    }
    formState.transform(matrix as number[]);
  }
  const formResources = xobject.dict.get("Resources");
  forms.add(key);
  // An /OC that PDF.js cannot parse drops the whole form from its drawing.
  if (xobject.dict.has("OC")) drawing.uncertain ??= "a form with optional content";
  const group = xobject.dict.get("Group");
  if (group !== undefined && !(group instanceof Dict)) drawing.uncertain ??= "a form with an odd /Group";
  drawing.formBegin(matrix === undefined ? null : matrix as number[]);
  contentText({
    data: xobject.bytes(),
    resources: formResources instanceof Dict ? formResources : resources,
    state: formState,
    depth: stream.depth + 1,
    page,
  });
  drawing.formEnd();
  forms.delete(key);
}
