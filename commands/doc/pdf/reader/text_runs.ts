/**
 * Text-run collection: the glyphs a content stream shows, built into the very pieces PDF.js's
 * `getTextContent({ disableNormalization: true })` gives (its `buildTextContentItem`,
 * `compareWithLastPosition`, `addFakeSpaces` and `appendEOL`, re-implemented): the same strings,
 * transforms, widths, heights and line ends. The operator interpreter (text.ts) keeps the text
 * state; this turns each shown string into glyphs and the glyphs into pieces.
 */

import { type SimpleFont, UNCERTAIN } from "./fonts.ts";
import { unsupported } from "./objects.ts";
import type { Matrix, TextState } from "./text_state.ts";

export interface TextPiece {
  str: string;
  dir: string;
  width: number;
  height: number;
  transform: number[];
  fontName: string | null;
  hasEOL: boolean;
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
/** A font's table of its codes' categories (UNKNOWN_CATEGORY until `categoryOf` works one out). */
function categoriesOf(font: SimpleFont): Uint8Array {
  let found = fontCategories.get(font);
  if (!found) fontCategories.set(font, found = new Uint8Array(256).fill(UNKNOWN_CATEGORY));
  return found;
}
/** A code's category, worked out at its first use (a regular expression per code of every font costs more). */
function categoryOf(font: SimpleFont, categories: Uint8Array, code: number): number {
  let cat = categories[code];
  if (cat === UNKNOWN_CATEGORY) {
    const unicode = font.unicode[code];
    cat = categories[code] = category(unicode) | (RIGHT_TO_LEFT.test(unicode) ? RIGHT_TO_LEFT_TEXT : 0);
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

/** The run being built (PDF.js's `textContentItem`): one piece until it is flushed. */
interface Run {
  initialized: boolean;
  str: string[];
  totalWidth: number;
  totalHeight: number;
  width: number;
  height: number;
  vertical: boolean;
  /** PDF.js's `prevTransform`: where the last visible glyph ended (`prev`, valid once `hasPrev`). */
  hasPrev: boolean;
  prev: Matrix;
  prevTextRise: number;
  textAdvanceScale: number;
  spaceInFlowMin: number;
  spaceInFlowMax: number;
  trackingSpaceMin: number;
  negativeSpaceMax: number;
  notASpace: number;
  transform: Matrix | null;
  fontName: string | null;
  hasEOL: boolean;
}

/**
 * The pieces of one content stream (a page's, or a form's within it), appended to `items` as
 * its text is shown. A form's stream gets its own: a run never continues across a form.
 */
export class TextRuns {
  readonly #items: TextPiece[];
  /** The page's crop box: glyphs outside it are not text (PDF.js's `viewBox` test). */
  readonly #viewBox: readonly number[];
  readonly #item: Run = {
    initialized: false,
    str: [],
    totalWidth: 0,
    totalHeight: 0,
    width: 0,
    height: 0,
    vertical: false,
    hasPrev: false,
    prev: [0, 0, 0, 0, 0, 0],
    prevTextRise: 0,
    textAdvanceScale: 0,
    spaceInFlowMin: 0,
    spaceInFlowMax: 0,
    trackingSpaceMin: Infinity,
    negativeSpaceMax: -Infinity,
    notASpace: -Infinity,
    transform: null,
    fontName: null,
    hasEOL: false,
  };
  /** The last two characters shown (PDF.js's `twoLastChars`): a space is added after a lone one. */
  readonly #twoLastChars = [" ", " "];
  #twoLastCharsPos = 0;
  /** The text state the operators change now (the state manager's current one). */
  #textState!: TextState;
  /** The state the run's font and size were taken from: a change of either ends the run. */
  #runState: TextState | null = null;
  /** The current glyph's transform, reused glyph by glyph. */
  readonly #current = [0, 0, 0, 0, 0, 0];

  constructor(items: TextPiece[], viewBox: readonly number[]) {
    this.#items = items;
    this.#viewBox = viewBox;
  }

  /** Follows the state manager's current state; called before each operator takes effect. */
  follow(textState: TextState): void {
    this.#textState = textState;
    this.#runState ??= textState.clone();
  }

  #saveLastChar(char: string): boolean {
    const twoLastChars = this.#twoLastChars;
    const nextPos = (this.#twoLastCharsPos + 1) % 2;
    const ret = twoLastChars[this.#twoLastCharsPos] !== " " && twoLastChars[nextPos] === " ";
    twoLastChars[this.#twoLastCharsPos] = char;
    this.#twoLastCharsPos = nextPos;
    return ret;
  }

  #shouldAddWhitespace(): boolean {
    const twoLastChars = this.#twoLastChars;
    return twoLastChars[this.#twoLastCharsPos] !== " " && twoLastChars[(this.#twoLastCharsPos + 1) % 2] === " ";
  }

  #resetLastChars(): void {
    this.#twoLastChars[0] = this.#twoLastChars[1] = " ";
    this.#twoLastCharsPos = 0;
  }

  /** A whitespace item; at `item.prev` unless given a transform (a copy: `prev` is overwritten glyph by glyph). */
  #pushWhitespace(
    { width = 0, height = 0, transform, fontName = this.#item.fontName }: {
      width?: number;
      height?: number;
      transform?: Matrix;
      fontName?: string | null;
    },
  ): void {
    this.#items.push({
      str: " ",
      dir: "ltr",
      width,
      height,
      transform: transform ?? this.#item.prev.slice(),
      fontName,
      hasEOL: false,
    });
  }

  // PDF.js's `Util.transform(ctm, Util.transform(textMatrix, [size * hScale, 0, 0, size, 0, rise]))`,
  // in the same operations, without its two arrays per call (two calls per glyph).
  #computeTextTransform(out: number[]): number[] {
    const textState = this.#textState;
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
  }

  #getCurrentTextTransform(): Matrix {
    return this.#computeTextTransform([0, 0, 0, 0, 0, 0]);
  }

  #ensureTextContentItem(): Run {
    const item = this.#item;
    if (item.initialized) return item;
    const textState = this.#textState;
    item.fontName = textState.loadedName;
    const trm = item.transform = this.#getCurrentTextTransform();
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
  }

  /** After a Tm: the run's advances so far are kept at the scale they were made at. */
  updateAdvanceScale(): void {
    const item = this.#item;
    if (!item.initialized) return;
    const textState = this.#textState;
    const scaleLineX = Math.hypot(textState.textLineMatrix[0], textState.textLineMatrix[1]);
    const scaleFactor = Math.hypot(textState.ctm[0], textState.ctm[1]) * scaleLineX;
    if (scaleFactor === item.textAdvanceScale) return;
    item.totalWidth += item.width * item.textAdvanceScale;
    item.width = 0;
    item.textAdvanceScale = scaleFactor;
  }

  /** Ends the run being built: it becomes a piece. */
  flush(): void {
    const item = this.#item;
    if (!item.initialized) return;
    item.totalWidth += item.width * item.textAdvanceScale;
    const str = item.str.join("");
    this.#items.push({
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
  }

  #appendEOL(): void {
    this.#resetLastChars();
    if (this.#item.initialized) {
      this.#item.hasEOL = true;
      this.flush();
    } else {
      this.#items.push({
        str: "",
        dir: "ltr",
        width: 0,
        height: 0,
        transform: this.#getCurrentTextTransform(),
        fontName: this.#textState.loadedName,
        hasEOL: true,
      });
    }
  }

  #addFakeSpaces(width: number, textOrientation: number): boolean {
    const item = this.#item;
    if (textOrientation * item.spaceInFlowMin <= width && width <= textOrientation * item.spaceInFlowMax) {
      if (item.initialized) {
        this.#resetLastChars();
        item.str.push(" ");
      }
      return false;
    }
    const fontName = item.fontName;
    this.flush();
    this.#resetLastChars();
    this.#pushWhitespace({
      width: Math.abs(width),
      height: 0,
      transform: item.hasPrev ? item.prev.slice() : this.#getCurrentTextTransform(),
      fontName,
    });
    return true;
  }

  #compareWithLastPosition(glyphWidth: number): boolean {
    const item = this.#item, current = this.#current, viewBox = this.#viewBox, textState = this.#textState;
    this.#computeTextTransform(current);
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
        this.#appendEOL();
        return true;
      }
      this.#resetLastChars();
      this.flush();
      return true;
    }
    const riseDelta = textState.textRise - item.prevTextRise;
    const corrected = riseDelta === 0 ? advanceY : advanceY - current[3] / textState.fontSize * riseDelta;
    if (Math.abs(corrected) > item.height) {
      this.#appendEOL();
      return true;
    }
    if (advanceX <= textOrientation * item.notASpace) this.#resetLastChars();
    if (advanceX <= textOrientation * item.trackingSpaceMin) {
      if (this.#shouldAddWhitespace()) {
        this.#resetLastChars();
        this.flush();
        this.#pushWhitespace({ width: Math.abs(advanceX) });
      } else {
        item.width += advanceX;
      }
    } else if (!this.#addFakeSpaces(advanceX, textOrientation)) {
      if (item.str.length === 0) {
        this.#resetLastChars();
        this.#pushWhitespace({ width: Math.abs(advanceX) });
      } else {
        item.width += advanceX;
      }
    }
    if (Math.abs(advanceY) > item.height * VERTICAL_SHIFT_RATIO) this.flush();
    return true;
  }

  /** Shows `chars` in the current font, then moves by `extraSpacing` (a TJ adjustment) after the last glyph. */
  show(chars: string, extraSpacing: number): void {
    const textState = this.#textState;
    const cur = this.#runState!;
    if (
      cur !== textState &&
      (cur.fontSize !== textState.fontSize ||
        (cur.fontName !== textState.fontName && cur.font!.name !== textState.font!.name))
    ) {
      this.flush();
      this.#runState = textState.clone();
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
    // A simple font's per-code tables, looked up once per string rather than per glyph.
    const categories = composite ? null : categoriesOf(font);
    const widths = composite ? null : widthsOf(font);
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
        cat = categoryOf(font, categories!, code);
        scaledDim = widths![code] * scale;
      }
      if (unicode === UNCERTAIN) unsupported(`a glyph whose Unicode PDF.js would guess (${font.name}, code ${code})`);
      if (cat & RIGHT_TO_LEFT_TEXT) unsupported("right-to-left text");
      if (cat & INVISIBLE_FORMAT_MARK) continue;
      let charSpacing = baseCharSpacing + (i + 1 === count ? extraSpacing : 0);
      if (code === 0x20) charSpacing += textState.wordSpacing;
      if (cat & WHITESPACE) {
        charSpacing += scaledDim;
        textState.translateTextMatrix(charSpacing * textState.textHScale, 0);
        this.#saveLastChar(" ");
        continue;
      }
      if (!(cat & ZERO_WIDTH_DIACRITIC) && !this.#compareWithLastPosition(scaledDim)) {
        textState.translateTextMatrix(scaledDim * textState.textHScale, 0);
        continue;
      }
      const chunk = this.#ensureTextContentItem();
      if (cat & ZERO_WIDTH_DIACRITIC) scaledDim = 0;
      scaledDim *= textState.textHScale;
      textState.translateTextMatrix(scaledDim, 0);
      chunk.width += scaledDim;
      if (scaledDim) {
        this.#computeTextTransform(chunk.prev);
        chunk.hasPrev = true;
        chunk.prevTextRise = textState.textRise;
      }
      if (this.#saveLastChar(unicode)) chunk.str.push(" ");
      chunk.str.push(unicode);
      if (charSpacing) textState.translateTextMatrix(charSpacing * textState.textHScale, 0);
    }
  }
}

function applyInverseRotation(x: number, y: number, m: Matrix): number[] {
  const scale = Math.hypot(m[0], m[1]);
  return [(m[0] * x + m[1] * y) / scale, (m[2] * x + m[3] * y) / scale];
}
