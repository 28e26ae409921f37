/**
 * A page's content stream read for its text, building the very pieces PDF.js's
 * `getTextContent({ disableNormalization: true })` gives (its `buildTextContentItem`,
 * `compareWithLastPosition`, `addFakeSpaces` and `appendEOL`, re-implemented): the same strings,
 * transforms, widths, heights and line ends, so that pterm's layout gives the same text.
 *
 * Operators and states this reader does not follow exactly (inline images, a font set through a
 * graphics state, vertical writing, right-to-left text) are `Unsupported`.
 */

import { Cmd, Dict, EOF, Name, Parser, type PdfObject, Ref, Stream, unsupported } from "./objects.ts";
import { loadSimpleFont, type SimpleFont, UNCERTAIN } from "./fonts.ts";
import { DRAWING_OPERATORS, type DrawingRecorder } from "./drawing.ts";

export interface TextPiece {
  str: string;
  dir: string;
  width: number;
  height: number;
  transform: number[];
  fontName: string | null;
  hasEOL: boolean;
}

type Matrix = number[];

function transform(m1: ArrayLike<number>, m2: ArrayLike<number>): Matrix {
  return [
    m1[0] * m2[0] + m1[2] * m2[1],
    m1[1] * m2[0] + m1[3] * m2[1],
    m1[0] * m2[2] + m1[2] * m2[3],
    m1[1] * m2[2] + m1[3] * m2[3],
    m1[0] * m2[4] + m1[2] * m2[5] + m1[4],
    m1[1] * m2[4] + m1[3] * m2[5] + m1[5],
  ];
}

class TextState {
  ctm: ArrayLike<number> = new Float32Array([1, 0, 0, 1, 0, 0]);
  fontName: string | null = null;
  fontSize = 0;
  loadedName: string | null = null;
  font: SimpleFont | null = null;
  textMatrix: Matrix = [1, 0, 0, 1, 0, 0];
  textLineMatrix: Matrix = [1, 0, 0, 1, 0, 0];
  charSpacing = 0;
  wordSpacing = 0;
  leading = 0;
  textHScale = 1;
  textRise = 0;

  translateTextMatrix(x: number, y: number): void {
    const m = this.textMatrix;
    m[4] = m[0] * x + m[2] * y + m[4];
    m[5] = m[1] * x + m[3] * y + m[5];
  }
  translateTextLineMatrix(x: number, y: number): void {
    const m = this.textLineMatrix;
    m[4] = m[0] * x + m[2] * y + m[4];
    m[5] = m[1] * x + m[3] * y + m[5];
  }
  carriageReturn(): void {
    this.translateTextLineMatrix(0, -this.leading);
    this.textMatrix = this.textLineMatrix.slice();
  }
  clone(): TextState {
    const copy = Object.assign(Object.create(TextState.prototype), this) as TextState;
    copy.textMatrix = this.textMatrix.slice();
    copy.textLineMatrix = this.textLineMatrix.slice();
    return copy;
  }
}

class StateManager {
  stack: TextState[] = [];
  constructor(public state: TextState) {}
  save(): void {
    const old = this.state;
    this.stack.push(old);
    this.state = old.clone();
  }
  restore(): void {
    const previous = this.stack.pop();
    if (previous) this.state = previous;
  }
  transform(args: ArrayLike<number>): void {
    this.state.ctm = transform(this.state.ctm, args);
  }
}

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

// PDF.js's `getCharUnicodeCategory`.
const SPECIAL_CHAR = /^(\s)|(\p{Mn})|(\p{Cf})$/u;
/** Characters already categorised; bounded, as a warm server keeps it across documents that map codes to any text. */
const categories = new Map<string, number>();
const MAX_CATEGORISED = 4096;
const WHITESPACE = 1, ZERO_WIDTH_DIACRITIC = 2, INVISIBLE_FORMAT_MARK = 4;
function category(char: string): number {
  let found = categories.get(char);
  if (found === undefined) {
    const groups = char.match(SPECIAL_CHAR);
    found = (groups?.[1] ? WHITESPACE : 0) | (groups?.[2] ? ZERO_WIDTH_DIACRITIC : 0) |
      (groups?.[3] ? INVISIBLE_FORMAT_MARK : 0);
    if (categories.size < MAX_CATEGORISED) categories.set(char, found);
  }
  return found;
}

/** Characters PDF.js's bidi counts as right-to-left: such text is left to PDF.js. */
const RIGHT_TO_LEFT = /[\u0590-\u05f4\u0600-\u08ac\ufb50-\ufdff\ufe70-\ufeff]/;
const RIGHT_TO_LEFT_TEXT = 8;

/** Per font, each code's category (with RIGHT_TO_LEFT_TEXT) and width, worked out once. */
const fontCategories = new WeakMap<SimpleFont, Uint8Array>();
const fontWidths = new WeakMap<SimpleFont, Float64Array>();
const UNKNOWN_CATEGORY = 255;
/** A code's category, worked out at its first use (a regular expression per code of every font costs more). */
function categoryOf(font: SimpleFont, code: number): number {
  let found = fontCategories.get(font);
  if (!found) fontCategories.set(font, found = new Uint8Array(256).fill(UNKNOWN_CATEGORY));
  let cat = found[code];
  if (cat === UNKNOWN_CATEGORY) {
    const unicode = font.unicode[code];
    cat = found[code] = category(unicode) | (RIGHT_TO_LEFT.test(unicode) ? RIGHT_TO_LEFT_TEXT : 0);
  }
  return cat;
}
function widthsOf(font: SimpleFont): Float64Array {
  let found = fontWidths.get(font);
  if (!found) {
    found = new Float64Array(256);
    for (let code = 0; code < 256; code++) {
      const width = font.widths[code];
      found[code] = typeof width === "number" ? width : font.defaultWidth;
    }
    fontWidths.set(font, found);
  }
  return found;
}

const TRACKING_SPACE_FACTOR = 0.102;
const NOT_A_SPACE_FACTOR = 0.03;
const NEGATIVE_SPACE_FACTOR = -0.2;
const SPACE_IN_FLOW_MIN_FACTOR = 0.102;
const SPACE_IN_FLOW_MAX_FACTOR = 0.6;
const VERTICAL_SHIFT_RATIO = 0.25;

export interface PageText {
  items: TextPiece[];
}

/**
 * The text pieces of a content stream (a page's, or a form's within it), appended to `items`,
 * and its drawing given to `drawing` (the rules table detection reads).
 * `depth` counts nested forms; `forms` holds the forms being read (a form that draws itself).
 */
export function contentText(
  data: Uint8Array,
  resources: Dict,
  stateManager: StateManager,
  viewBox: number[],
  fonts: FontCache,
  items: TextPiece[],
  forms: Set<number>,
  depth: number,
  drawing: DrawingRecorder,
): void {
  if (depth > 12) unsupported("forms nested too deep");
  drawing.beginStream();
  const item = {
    initialized: false,
    str: [] as string[],
    totalWidth: 0,
    totalHeight: 0,
    width: 0,
    height: 0,
    vertical: false,
    /** PDF.js's `prevTransform`: where the last visible glyph ended (`prev`, valid once `hasPrev`). */
    hasPrev: false,
    prev: [0, 0, 0, 0, 0, 0] as Matrix,
    prevTextRise: 0,
    textAdvanceScale: 0,
    spaceInFlowMin: 0,
    spaceInFlowMax: 0,
    trackingSpaceMin: Infinity,
    negativeSpaceMax: -Infinity,
    notASpace: -Infinity,
    transform: null as Matrix | null,
    fontName: null as string | null,
    hasEOL: false,
  };
  const twoLastChars = [" ", " "];
  let twoLastCharsPos = 0;
  const saveLastChar = (char: string) => {
    const nextPos = (twoLastCharsPos + 1) % 2;
    const ret = twoLastChars[twoLastCharsPos] !== " " && twoLastChars[nextPos] === " ";
    twoLastChars[twoLastCharsPos] = char;
    twoLastCharsPos = nextPos;
    return ret;
  };
  const shouldAddWhitespace = () =>
    twoLastChars[twoLastCharsPos] !== " " && twoLastChars[(twoLastCharsPos + 1) % 2] === " ";
  const resetLastChars = () => {
    twoLastChars[0] = twoLastChars[1] = " ";
    twoLastCharsPos = 0;
  };

  let textState!: TextState;
  let currentTextState: TextState | null = null;

  /** A whitespace item; at `item.prev` unless given a transform (a copy: `prev` is overwritten glyph by glyph). */
  const pushWhitespace = (
    { width = 0, height = 0, transform, fontName = item.fontName }: {
      width?: number;
      height?: number;
      transform?: Matrix;
      fontName?: string | null;
    },
  ) => {
    items.push({
      str: " ",
      dir: "ltr",
      width,
      height,
      transform: transform ?? item.prev.slice(),
      fontName,
      hasEOL: false,
    });
  };

  // PDF.js's `Util.transform(ctm, Util.transform(textMatrix, [size * hScale, 0, 0, size, 0, rise]))`,
  // in the same operations, without its two arrays per call (two calls per glyph).
  const current = [0, 0, 0, 0, 0, 0];
  const computeTextTransform = (out: number[]): number[] => {
    const m = textState.textMatrix, c = textState.ctm;
    const t0 = textState.fontSize * textState.textHScale, t5 = textState.textRise;
    let t3 = textState.fontSize;
    // A Type 3 font at size 1 or less: PDF.js stretches the height by the glyph height (its `tsm[3] *=`).
    const type3HeightScale = textState.font?.type3HeightScale;
    if (type3HeightScale !== undefined && textState.fontSize <= 1) t3 *= type3HeightScale;
    const a = m[0] * t0 + m[2] * 0, b = m[1] * t0 + m[3] * 0;
    const cc = m[0] * 0 + m[2] * t3, d = m[1] * 0 + m[3] * t3;
    const e = m[0] * 0 + m[2] * t5 + m[4], f = m[1] * 0 + m[3] * t5 + m[5];
    out[0] = c[0] * a + c[2] * b;
    out[1] = c[1] * a + c[3] * b;
    out[2] = c[0] * cc + c[2] * d;
    out[3] = c[1] * cc + c[3] * d;
    out[4] = c[0] * e + c[2] * f + c[4];
    out[5] = c[1] * e + c[3] * f + c[5];
    return out;
  };
  const getCurrentTextTransform = (): Matrix => computeTextTransform([0, 0, 0, 0, 0, 0]);

  const ensureTextContentItem = () => {
    if (item.initialized) return item;
    item.fontName = textState.loadedName;
    const trm = item.transform = getCurrentTextTransform();
    item.width = item.totalWidth = 0;
    item.height = item.totalHeight = Math.hypot(trm[2], trm[3]);
    item.vertical = false;
    const scaleLineX = Math.hypot(textState.textLineMatrix[0], textState.textLineMatrix[1]);
    const scaleCtmX = Math.hypot(textState.ctm[0], textState.ctm[1]);
    item.textAdvanceScale = scaleCtmX * scaleLineX;
    const { fontSize } = textState;
    item.trackingSpaceMin = fontSize * TRACKING_SPACE_FACTOR;
    item.notASpace = fontSize * NOT_A_SPACE_FACTOR;
    item.negativeSpaceMax = fontSize * NEGATIVE_SPACE_FACTOR;
    item.spaceInFlowMin = fontSize * SPACE_IN_FLOW_MIN_FACTOR;
    item.spaceInFlowMax = fontSize * SPACE_IN_FLOW_MAX_FACTOR;
    item.hasEOL = false;
    item.initialized = true;
    return item;
  };

  const updateAdvanceScale = () => {
    if (!item.initialized) return;
    const scaleLineX = Math.hypot(textState.textLineMatrix[0], textState.textLineMatrix[1]);
    const scaleFactor = Math.hypot(textState.ctm[0], textState.ctm[1]) * scaleLineX;
    if (scaleFactor === item.textAdvanceScale) return;
    item.totalWidth += item.width * item.textAdvanceScale;
    item.width = 0;
    item.textAdvanceScale = scaleFactor;
  };

  const flushTextContentItem = () => {
    if (!item.initialized) return;
    item.totalWidth += item.width * item.textAdvanceScale;
    const str = item.str.join("");
    items.push({
      str,
      dir: "ltr",
      width: Math.abs(item.totalWidth),
      height: Math.abs(item.totalHeight),
      transform: item.transform!,
      fontName: item.fontName,
      hasEOL: item.hasEOL,
    });
    item.initialized = false;
    item.str.length = 0;
  };

  const appendEOL = () => {
    resetLastChars();
    if (item.initialized) {
      item.hasEOL = true;
      flushTextContentItem();
    } else {
      items.push({
        str: "",
        dir: "ltr",
        width: 0,
        height: 0,
        transform: getCurrentTextTransform(),
        fontName: textState.loadedName,
        hasEOL: true,
      });
    }
  };

  const addFakeSpaces = (width: number, textOrientation: number) => {
    if (textOrientation * item.spaceInFlowMin <= width && width <= textOrientation * item.spaceInFlowMax) {
      if (item.initialized) {
        resetLastChars();
        item.str.push(" ");
      }
      return false;
    }
    const fontName = item.fontName;
    flushTextContentItem();
    resetLastChars();
    pushWhitespace({
      width: Math.abs(width),
      height: 0,
      transform: item.hasPrev ? item.prev.slice() : getCurrentTextTransform(),
      fontName,
    });
    return true;
  };

  const applyInverseRotation = (x: number, y: number, m: Matrix) => {
    const scale = Math.hypot(m[0], m[1]);
    return [(m[0] * x + m[1] * y) / scale, (m[2] * x + m[3] * y) / scale];
  };

  const compareWithLastPosition = (glyphWidth: number): boolean => {
    computeTextTransform(current);
    let posX = current[4], posY = current[5];
    if (posX + glyphWidth < viewBox[0] || posX > viewBox[2] || posY < viewBox[1] || posY > viewBox[3]) return false;
    if (!textState.font || !item.hasPrev) return true;
    let lastPosX = item.prev[4], lastPosY = item.prev[5];
    if (lastPosX === posX && lastPosY === posY) return true;
    let rotate = -1;
    if (current[0] && current[1] === 0 && current[2] === 0) rotate = current[0] > 0 ? 0 : 180;
    else if (current[1] && current[0] === 0 && current[3] === 0) rotate = current[1] > 0 ? 90 : 270;
    switch (rotate) {
      case 0:
        break;
      case 90:
        [posX, posY] = [posY, posX];
        [lastPosX, lastPosY] = [lastPosY, lastPosX];
        break;
      case 180:
        [posX, posY, lastPosX, lastPosY] = [-posX, -posY, -lastPosX, -lastPosY];
        break;
      case 270:
        [posX, posY] = [-posY, -posX];
        [lastPosX, lastPosY] = [-lastPosY, -lastPosX];
        break;
      default:
        [posX, posY] = applyInverseRotation(posX, posY, current);
        [lastPosX, lastPosY] = applyInverseRotation(lastPosX, lastPosY, item.prev);
    }
    const advanceX = (posX - lastPosX) / item.textAdvanceScale;
    const advanceY = posY - lastPosY;
    const textOrientation = Math.sign(item.width || item.totalWidth);
    if (advanceX < textOrientation * item.negativeSpaceMax) {
      if (Math.abs(advanceY) > 0.5 * item.height) {
        appendEOL();
        return true;
      }
      resetLastChars();
      flushTextContentItem();
      return true;
    }
    const riseDelta = textState.textRise - item.prevTextRise;
    const corrected = riseDelta === 0 ? advanceY : advanceY - current[3] / textState.fontSize * riseDelta;
    if (Math.abs(corrected) > item.height) {
      appendEOL();
      return true;
    }
    if (advanceX <= textOrientation * item.notASpace) resetLastChars();
    if (advanceX <= textOrientation * item.trackingSpaceMin) {
      if (shouldAddWhitespace()) {
        resetLastChars();
        flushTextContentItem();
        pushWhitespace({ width: Math.abs(advanceX) });
      } else {
        item.width += advanceX;
      }
    } else if (!addFakeSpaces(advanceX, textOrientation)) {
      if (item.str.length === 0) {
        resetLastChars();
        pushWhitespace({ width: Math.abs(advanceX) });
      } else {
        item.width += advanceX;
      }
    }
    if (Math.abs(advanceY) > item.height * VERTICAL_SHIFT_RATIO) flushTextContentItem();
    return true;
  };

  const buildTextContentItem = (chars: string, extraSpacing: number) => {
    const cur = currentTextState!;
    if (
      cur !== textState &&
      (cur.fontSize !== textState.fontSize ||
        (cur.fontName !== textState.fontName && cur.font!.name !== textState.font!.name))
    ) {
      flushTextContentItem();
      currentTextState = textState.clone();
    }
    const font = textState.font!;
    const baseCharSpacing = textState.charSpacing;
    if (!chars) {
      const charSpacing = baseCharSpacing + extraSpacing;
      if (charSpacing) textState.translateTextMatrix(charSpacing * textState.textHScale, 0);
      return;
    }
    // PDF.js's `fontMatrix[0] * fontSize`: 0.001 but for a font's own matrix (a CFF program's, a Type 3 font's).
    const scale = (font.fontMatrix?.[0] ?? 0.001) * textState.fontSize;
    const composite = font.composite === true;
    if (composite && chars.length % 2 !== 0) unsupported("a string of an odd length in a two-byte font");
    const count = composite ? chars.length / 2 : chars.length;
    for (let i = 0; i < count; i++) {
      let code: number, unicode: string, cat: number, scaledDim: number;
      if (composite) {
        code = (chars.charCodeAt(2 * i) << 8) | chars.charCodeAt(2 * i + 1);
        unicode = font.unicode[code] || String.fromCharCode(code);
        cat = category(unicode) | (RIGHT_TO_LEFT.test(unicode) ? RIGHT_TO_LEFT_TEXT : 0);
        const width = font.widths[code];
        scaledDim = (typeof width === "number" ? width : font.defaultWidth) * scale;
      } else {
        code = chars.charCodeAt(i);
        unicode = font.unicode[code];
        cat = categoryOf(font, code);
        scaledDim = widthsOf(font)[code] * scale;
      }
      if (unicode === UNCERTAIN) unsupported(`a glyph whose Unicode PDF.js would guess (${font.name}, code ${code})`);
      if (cat & RIGHT_TO_LEFT_TEXT) unsupported("right-to-left text");
      if (cat & INVISIBLE_FORMAT_MARK) continue;
      let charSpacing = baseCharSpacing + (i + 1 === count ? extraSpacing : 0);
      if (code === 0x20) charSpacing += textState.wordSpacing;
      if (cat & WHITESPACE) {
        charSpacing += scaledDim;
        textState.translateTextMatrix(charSpacing * textState.textHScale, 0);
        saveLastChar(" ");
        continue;
      }
      if (!(cat & ZERO_WIDTH_DIACRITIC) && !compareWithLastPosition(scaledDim)) {
        textState.translateTextMatrix(scaledDim * textState.textHScale, 0);
        continue;
      }
      const chunk = ensureTextContentItem();
      if (cat & ZERO_WIDTH_DIACRITIC) scaledDim = 0;
      scaledDim *= textState.textHScale;
      textState.translateTextMatrix(scaledDim, 0);
      chunk.width += scaledDim;
      if (scaledDim) {
        computeTextTransform(chunk.prev);
        chunk.hasPrev = true;
        chunk.prevTextRise = textState.textRise;
      }
      if (saveLastChar(unicode)) chunk.str.push(" ");
      chunk.str.push(unicode);
      if (charSpacing) textState.translateTextMatrix(charSpacing * textState.textHScale, 0);
    }
  };

  const parser = new Parser(data, 0, resources.xref);
  const args: PdfObject[] = [];
  let xobjects: Dict | null = null;
  for (;;) {
    const obj = parser.object(false);
    if (obj === EOF) break;
    if (!(obj instanceof Cmd)) {
      args.push(obj);
      if (args.length > 33) unsupported("too many operands");
      continue;
    }
    const op = obj.cmd;
    const expected = OPERATORS[op];
    if (expected === undefined) unsupported(`the operator ${op.slice(0, 10)}`);
    if (expected >= 0 && args.length !== expected) unsupported(`${op} with ${args.length} operands`);
    const num = (k: number): number => {
      const v = args[k];
      return typeof v === "number" ? v : unsupported(`${op} with an operand that is not a number`);
    };
    if (DRAWING_OPERATORS.has(op)) drawing.operator(op, args, resources);
    switch (op) {
      case "q":
        stateManager.save();
        break;
      case "Q":
        stateManager.restore();
        break;
      case "cm":
        stateManager.transform([num(0), num(1), num(2), num(3), num(4), num(5)]);
        break;
    }
    textState = stateManager.state;
    currentTextState ??= textState.clone();
    switch (op) {
      case "Tf": {
        const name = args[0];
        if (!(name instanceof Name)) unsupported("Tf without a font name");
        const size = num(1);
        if (textState.font && name.name === textState.fontName && size === textState.fontSize) break;
        textState.fontName = name.name;
        textState.fontSize = size;
        const loaded = fonts.load(resources, name.name);
        textState.loadedName = loaded.loadedName;
        textState.font = loaded.font;
        break;
      }
      case "Ts":
        textState.textRise = num(0);
        break;
      case "Tz":
        textState.textHScale = num(0) / 100;
        break;
      case "TL":
        textState.leading = num(0);
        break;
      case "Td":
        textState.translateTextLineMatrix(num(0), num(1));
        textState.textMatrix = textState.textLineMatrix.slice();
        break;
      case "TD":
        textState.leading = -num(1);
        textState.translateTextLineMatrix(num(0), num(1));
        textState.textMatrix = textState.textLineMatrix.slice();
        break;
      case "T*":
        textState.carriageReturn();
        break;
      case "Tm": {
        const m = [num(0), num(1), num(2), num(3), num(4), num(5)];
        for (let k = 0; k < 6; k++) textState.textMatrix[k] = m[k];
        for (let k = 0; k < 6; k++) textState.textLineMatrix[k] = m[k];
        updateAdvanceScale();
        break;
      }
      case "Tc":
        textState.charSpacing = num(0);
        break;
      case "Tw":
        textState.wordSpacing = num(0);
        break;
      case "BT":
        textState.textMatrix = [1, 0, 0, 1, 0, 0];
        textState.textLineMatrix = [1, 0, 0, 1, 0, 0];
        break;
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
              buildTextContentItem(chars, element * spaceFactor);
            }
          } else unsupported("a TJ element that is neither a string nor a number");
        }
        if (buffer.length > 0) buildTextContentItem(buffer, 0);
        break;
      }
      case "Tj":
        if (!stateManager.state.font) unsupported("text shown before any Tf");
        if (typeof args[0] !== "string") unsupported("Tj without a string");
        buildTextContentItem(args[0], 0);
        break;
      case "'":
        if (!stateManager.state.font) unsupported("text shown before any Tf");
        if (typeof args[0] !== "string") unsupported("' without a string");
        textState.carriageReturn();
        buildTextContentItem(args[0], 0);
        break;
      case '"':
        if (!stateManager.state.font) unsupported("text shown before any Tf");
        if (typeof args[2] !== "string") unsupported('" without a string');
        textState.wordSpacing = num(0);
        textState.charSpacing = num(1);
        textState.carriageReturn();
        buildTextContentItem(args[2], 0);
        break;
      case "Do": {
        flushTextContentItem();
        xobjects ??= (resources.get("XObject") as Dict | undefined) ?? null;
        const name = args[0];
        if (!(name instanceof Name)) unsupported("Do without a name");
        if (!(xobjects instanceof Dict)) unsupported("Do without an /XObject resource");
        const raw = xobjects.getRaw(name.name);
        const xobject = raw instanceof Ref ? resources.xref!.fetch(raw) : raw;
        if (!(xobject instanceof Stream)) unsupported("an XObject that is not a stream");
        const subtype = xobject.dict.get("Subtype");
        if (!(subtype instanceof Name)) unsupported("an XObject without a /Subtype");
        if (subtype.name !== "Form") break;
        const key = raw instanceof Ref ? raw.num : -1;
        if (forms.has(key)) unsupported("a form that draws itself");
        const formState = new StateManager(stateManager.state.clone());
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
        contentText(
          xobject.bytes(),
          formResources instanceof Dict ? formResources : resources,
          formState,
          viewBox,
          fonts,
          items,
          forms,
          depth + 1,
          drawing,
        );
        drawing.formEnd();
        forms.delete(key);
        break;
      }
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
    args.length = 0;
  }
  flushTextContentItem();
  drawing.endStream(stateManager.stack.length);
}

export { StateManager, TextState };
