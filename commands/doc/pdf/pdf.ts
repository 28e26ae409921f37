/**
 * PDF through unpdf's serverless build of PDF.js: text items per page in content order, with the
 * text of the page's annotations (form fields, free-text notes) added where they sit, placed on
 * the page as displayed (/Rotate, rotated text), accents drawn as glyphs of their own composed
 * with their letters, then put back into lines (PDF.js marks line ends; right-to-left lines read
 * from the right) and paragraphs (by the vertical gaps between lines).
 */

import { compactRanges } from "../controls.ts";
import type { getDocumentProxy } from "unpdf";
import {
  alignedTables,
  drawingOf,
  type DrawingOp,
  mayHoldTable,
  type Ops,
  type RuledTable,
  ruledTables,
  type TablePiece,
} from "./tables.ts";
import { columnedLines } from "./columns.ts";
import { PtermError } from "../../../core/errors.ts";
import { boundFontPrograms } from "./reader/font_guard.ts";
import { openPdf, type PdfText, type ReadPage, readPdfInfo, Unsupported } from "./reader/reader.ts";
import { type Block, textLength } from "../blocks.ts";
import { type DocInfo, type Extraction, type ExtractOptions, selectedUnits } from "../types.ts";

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

type Unpdf = typeof import("unpdf");
let unpdfModule: Promise<Unpdf> | null = null;

/** unpdf (PDF.js), loaded only when PDF.js reads the document: ~60–75 ms pterm's own reader does not pay. */
function unpdf(): Promise<Unpdf> {
  return unpdfModule ??= import("unpdf");
}

interface TextPiece {
  readonly str: string;
  readonly transform: number[];
  readonly width: number;
  readonly height: number;
  readonly hasEOL: boolean;
  readonly dir?: string;
  readonly fontName?: string | null;
}

/** What pterm reads of an annotation (PDF.js's `getAnnotations` data). */
interface AnnotationData {
  readonly subtype?: string;
  readonly fieldType?: string;
  readonly fieldValue?: unknown;
  /** The text of the annotation's appearance stream, as PDF.js extracts it (what a viewer draws). */
  readonly textContent?: string[];
  readonly rect?: number[];
  readonly hidden?: boolean;
  readonly noView?: boolean;
  readonly hasAppearance?: boolean;
  /** Choice fields: a drop-down (`combo`) or a list box, its options and selection. */
  readonly combo?: boolean;
  readonly options?: { displayValue?: string; exportValue?: string }[];
}

type PdfPage = Awaited<ReturnType<PdfDocument["getPage"]>>;

async function annotationsOf(page: PdfPage): Promise<AnnotationData[]> {
  try {
    return (await page.getAnnotations({ intent: "display" })) as AnnotationData[];
  } catch {
    return []; // a damaged annotation list does not cost the page its text
  }
}

/** PDF.js's numbers for the annotation types whose text pterm reads, and the flags that hide one from view. */
const FREE_TEXT = 3;
const WIDGET = 20;
const INVISIBLE = 1;
const NO_VIEW = 32;

/** `AnnotationData` as `getAnnotationsByType` gives it: with its page and flags. */
interface FoundAnnotation extends AnnotationData {
  readonly annotationType?: number;
  readonly annotationFlags?: number;
  readonly pageIndex?: number;
  readonly quadPoints?: unknown;
}

/**
 * The annotations whose text pterm reads (free-text notes and form fields: the only kinds whose
 * appearance text PDF.js extracts, and the fields' values), for the whole document in one call,
 * by page number; null when PDF.js cannot list them that way (then each page asks on its own).
 *
 * Why not each page's `getAnnotations`: for a page with links or text markup (highlights,
 * underlines) PDF.js then extracts the page's whole text a second time, to find the text under
 * each of them (`overlaidText`, which pterm does not use) — twice the work on every page of a
 * document with hyperlinks. `getAnnotationsByType` skips that. It lists what `getAnnotations`
 * lists for a viewer, in the same order, after the same filter: a widget is always listed, any
 * other annotation unless flagged invisible or not-for-view (PDF.js's `viewable`); widgets come
 * after the other annotations of their page, as in `getAnnotations`.
 */
async function textAnnotationsByPage(pdf: PdfDocument): Promise<Map<number, AnnotationData[]> | null> {
  let found: FoundAnnotation[] | null;
  try {
    found = (await pdf.getAnnotationsByType(new Set([FREE_TEXT, WIDGET]), new Set())) as FoundAnnotation[] | null;
  } catch {
    return null;
  }
  if (!Array.isArray(found)) return null;
  const byPage = new Map<number, FoundAnnotation[]>();
  for (const annotation of found) {
    if (typeof annotation.pageIndex !== "number") return null;
    const flags = annotation.annotationFlags ?? 0;
    const viewable = annotation.annotationType === WIDGET ||
      (annotation.quadPoints !== null && (flags === 0 || (flags & (INVISIBLE | NO_VIEW)) === 0));
    if (!viewable) continue;
    const number = annotation.pageIndex + 1;
    if (!byPage.has(number)) byPage.set(number, []);
    byPage.get(number)!.push(annotation);
  }
  const ordered = new Map<number, AnnotationData[]>();
  for (const [number, annotations] of byPage) {
    ordered.set(number, [
      ...annotations.filter((a) => a.annotationType !== WIDGET),
      ...annotations.filter((a) => a.annotationType === WIDGET),
    ]);
  }
  return ordered;
}

/** The text a viewer shows for an annotation: its appearance's text, else a text field's value. */
function annotationText(annotation: AnnotationData): string[] {
  if (annotation.hidden || annotation.noView) return [];
  const shown = (annotation.textContent ?? []).map((line) => line.trim()).filter(Boolean);
  if (shown.length > 0) return shown;
  if (!annotation.hasAppearance) return [];
  if (annotation.fieldType === "Tx" && typeof annotation.fieldValue === "string") {
    return annotation.fieldValue.split(/\r\n|\r|\n/).map((line) => line.trim()).filter(Boolean);
  }
  if (annotation.fieldType === "Ch") {
    // A drop-down shows its selection; a list box shows its options.
    const values = annotation.combo
      ? [annotation.fieldValue].flat()
      : (annotation.options ?? []).map((option) => option.displayValue ?? option.exportValue);
    return values.filter((value): value is string => typeof value === "string" && value.trim() !== "")
      .map((value) => value.trim());
  }
  return [];
}

/**
 * The page's pieces with the text of its annotations (form fields' values, free-text notes)
 * added where they sit, as pdftotext shows them: each line of an annotation becomes a piece at
 * its rectangle, put before the first drawn piece below it so that it joins its line.
 */
function withAnnotationText(pieces: readonly TextPiece[], annotations: readonly AnnotationData[]): TextPiece[] {
  if (!annotations.some((annotation) => annotationText(annotation).length > 0)) return pieces as TextPiece[];
  const sizes = pieces.map((p) => Math.abs(p.transform[3])).filter((size) => size > 0);
  const size = median(sizes) || 10;
  const out = [...pieces];
  for (const annotation of annotations) {
    const lines = annotationText(annotation);
    const rect = annotation.rect;
    if (lines.length === 0 || !rect || rect.length < 4) continue;
    const [x1, y1, x2, y2] = [
      Math.min(rect[0], rect[2]),
      Math.min(rect[1], rect[3]),
      Math.max(rect[0], rect[2]),
      Math.max(rect[1], rect[3]),
    ];
    const height = y2 - y1;
    // One line: on the box's middle; several: from its top down.
    const first = lines.length === 1 ? y1 + Math.max(0, (height - size) / 2) : y2 - size;
    lines.forEach((line, i) => {
      const y = first - i * size * 1.2;
      const piece: TextPiece = {
        str: line,
        transform: [size, 0, 0, size, x1, y],
        width: Math.min(x2 - x1, line.length * size * 0.5),
        height: size,
        hasEOL: true,
      };
      const below = out.findIndex((p) => p.str.trim() !== "" && p.transform[5] < y - size * 0.5);
      out.splice(below < 0 ? out.length : below, 0, piece);
    });
  }
  return out;
}

/** Spacing accents as fonts without composed glyphs draw them, and the combining marks they stand for. */
const COMBINING: Record<string, string> = {
  "\u00B4": "\u0301", // ´ acute
  "\u0060": "\u0300", // ` grave
  "\u02C6": "\u0302", // ˆ circumflex
  "\u005E": "\u0302", // ^
  "\u02DC": "\u0303", // ˜ tilde
  "\u007E": "\u0303", // ~
  "\u00A8": "\u0308", // ¨ diaeresis
  "\u00AF": "\u0304", // ¯ macron
  "\u02C9": "\u0304", // ˉ
  "\u02D8": "\u0306", // ˘ breve
  "\u02D9": "\u0307", // ˙ dot above
  "\u02DA": "\u030A", // ˚ ring
  "\u02C7": "\u030C", // ˇ caron
  "\u02DD": "\u030B", // ˝ double acute
  "\u00B8": "\u0327", // ¸ cedilla
  "\u02DB": "\u0328", // ˛ ogonek
};
const BELOW = new Set(["\u0327", "\u0328"]);

/** A letter with an accent, composed (NFC); a dotless ı or ȷ under an accent above is the plain letter. */
function composeWith(letter: string, accent: string): string {
  const mark = COMBINING[accent];
  const base = BELOW.has(mark) ? letter : letter === "\u0131" ? "i" : letter === "\u0237" ? "j" : letter;
  return (base + mark).normalize("NFC");
}

const isLetter = (char: string | undefined) => char !== undefined && /\p{L}/u.test(char);

/**
 * Accents drawn as separate glyphs over their letter (pdfTeX's Computer Modern fonts draw `´`
 * and then move back to draw `e`; other producers draw the letter first) are composed with it,
 * as pdftotext does: `M´` + `etro` → `Métro`, `avia¸` + `c˜` + `ao` → `aviação`. Only where the
 * second piece starts back over the first (the accent overlaps its letter), so a `~` or `^` that
 * stands on its own in the text is left alone.
 */
function composeAccents(items: readonly Placed[]): Placed[] {
  const out: Placed[] = [];
  for (const item of items) {
    const previous = out[out.length - 1];
    const overlaps = previous !== undefined && previous.turn === item.turn &&
      Math.abs(previous.y - item.y) < Math.max(previous.size, item.size) * 0.5 &&
      item.x < previous.x + previous.width - previous.size * 0.05 && item.x > previous.x - previous.size * 0.5;
    if (overlaps) {
      const accentBefore = previous.str.at(-1)!;
      const accentAfter = item.str[0];
      let joined: string | null = null;
      if (COMBINING[accentBefore] && isLetter(item.str[0])) {
        joined = previous.str.slice(0, -1) + composeWith(item.str[0], accentBefore) + item.str.slice(1);
      } else if (COMBINING[accentAfter] && isLetter(previous.str.at(-1))) {
        joined = previous.str.slice(0, -1) + composeWith(previous.str.at(-1)!, accentAfter) + item.str.slice(1);
      }
      if (joined !== null) {
        out[out.length - 1] = {
          ...previous,
          str: joined,
          width: Math.max(previous.x + previous.width, item.x + item.width) - previous.x,
          hasEOL: item.hasEOL,
        };
        continue;
      }
    }
    out.push(item);
  }
  return out;
}

/** ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ as their letters. */
function expandLatinLigatures(piece: TextPiece): TextPiece {
  if (!/[\uFB00-\uFB06]/.test(piece.str)) return piece;
  return { ...piece, str: piece.str.replace(/[\uFB00-\uFB06]/g, (ligature) => ligature.normalize("NFKC")) };
}

/**
 * A piece placed for reading: `x` along its baseline's direction and `y` across it (larger is
 * earlier, as PDF's own y), after the page's /Rotate and the text matrix's own rotation.
 */
interface Placed {
  readonly str: string;
  readonly x: number;
  readonly y: number;
  readonly size: number;
  readonly width: number;
  readonly hasEOL: boolean;
  readonly rtl: boolean;
  /** The baseline's direction on the displayed page, in quarter turns clockwise (0: left to right). */
  readonly turn: number;
}

/**
 * Places each piece on the page as displayed (`view`: PDF.js's viewport transform, which applies
 * /Rotate and flips y down) and measures it along its own baseline, so rotated pages and text set
 * at 90°/180°/270° read like upright text.
 */
function place(items: readonly TextPiece[], view: readonly number[]): Placed[] {
  const [a, b, c, d, e, f] = view;
  return items.map((item) => {
    const [ia, ib, ic, id, ix, iy] = item.transform;
    // The piece's matrix on the displayed page (device space, y down).
    const ma = a * ia + c * ib;
    const mb = b * ia + d * ib;
    const mc = a * ic + c * id;
    const md = b * ic + d * id;
    const dx = a * ix + c * iy + e;
    const dy = b * ix + d * iy + f;
    const turn = ((Math.round(Math.atan2(mb, ma) / (Math.PI / 2)) % 4) + 4) % 4;
    const along = [dx, dy, -dx, -dy][turn];
    const across = [-dy, dx, dy, -dx][turn];
    const size = Math.hypot(mc, md) || item.height || 1;
    return {
      str: item.str,
      x: along,
      y: across,
      size,
      width: item.width,
      hasEOL: item.hasEOL,
      rtl: item.dir === "rtl",
      turn,
    };
  });
}

interface Line {
  text: string;
  /** Most of its letters are right-to-left (Arabic, Hebrew): pieces on one baseline read from the right. */
  rtl: boolean;
  /** Baseline, in PDF units from the bottom of the page. */
  y: number;
  /** Where the line starts and ends horizontally. */
  x: number;
  end: number;
  size: number;
}

const endsWithSpace = (text: string) => /\s$/.test(text);
const startsWithSpace = (text: string) => /^\s/.test(text);

/**
 * Items into lines. PDF.js marks line ends; in addition a jump back to the left or to another
 * baseline starts a line, and a visible gap between two items gets a space (text boxes placed
 * side by side are separate objects with no space between them).
 */
function linesOf(items: readonly Placed[]): Line[] {
  const lines: Line[] = [];
  let current: (Line & { pieces: Placed[] }) | null = null;
  const finish = () => {
    if (current !== null && current.pieces.length > 0) lines.push(lineText(current, current.pieces));
    current = null;
  };
  for (const item of items) {
    const { x, y, size } = item;
    if (item.str !== "") {
      if (current !== null && current.pieces.length > 0) {
        const otherBaseline = Math.abs(y - current.y) > Math.max(size, current.size) * 0.5;
        const jumpedBack = x < current.end - Math.max(size, current.size) * 0.5;
        if (otherBaseline || jumpedBack) finish();
      }
      current ??= { text: "", rtl: false, y, x, end: x, size, pieces: [] };
      current.pieces.push(item);
      current.end = Math.max(current.end, x + item.width);
    }
    if (item.hasEOL) finish();
  }
  finish();
  const cleaned = lines.map((l) => {
    const text = l.text.trimEnd(); // the same white space as /\s+$/, without a regular expression's backtracking
    return text === l.text ? l : { ...l, text };
  }).filter((l) => l.text !== "");
  return mergeSameBaseline(cleaned);
}

/**
 * A line's text from its pieces: in content order, or from the right when its letters are mostly
 * right-to-left (PDF.js gives each right-to-left piece in logical order, but the pieces of a line
 * in the order they were drawn, usually left to right); a visible gap between two pieces gets a
 * space (text boxes side by side are separate objects with no space between them).
 */
function lineText(line: Line, pieces: readonly Placed[]): Line {
  const rtl = pieces.some((p) => p.rtl) && readsRightToLeft([{ text: pieces.map((p) => p.str).join("") }]);
  const ordered = rtl ? [...pieces].sort((a, b) => b.x - a.x) : pieces;
  let text = "";
  ordered.forEach((piece, i) => {
    if (i > 0 && text !== "") {
      const previous = ordered[i - 1];
      const gap = rtl ? previous.x - (piece.x + piece.width) : piece.x - (previous.x + previous.width);
      if (gap > piece.size * 0.25 && !endsWithSpace(text) && !startsWithSpace(piece.str)) text += " ";
    }
    text += piece.str;
  });
  return { text, rtl, y: line.y, x: line.x, end: line.end, size: line.size };
}

/** Right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms). */
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/gu;
const LETTER = /\p{L}/gu;

/** A line whose letters are mostly right-to-left reads from the right, as pdftotext orders it. */
function readsRightToLeft(lines: readonly { text: string }[]): boolean {
  const text = lines.map((l) => l.text).join("");
  const rtl = text.match(RTL_LETTER)?.length ?? 0;
  return rtl > 0 && rtl * 2 >= (text.match(LETTER)?.length ?? 0);
}

/** Consecutive lines on one baseline (cells of a row, boxes side by side) become one line, in reading order. */
function mergeSameBaseline(lines: readonly Line[]): Line[] {
  const merged: Line[] = [];
  let group: Line[] = [];
  const flush = () => {
    if (group.length === 0) return;
    const rtl = group.some((l) => l.rtl) && readsRightToLeft(group);
    const sorted = [...group].sort((a, b) => rtl ? b.x - a.x : a.x - b.x);
    merged.push({
      ...sorted[0],
      rtl,
      text: sorted.map((l) => l.text.trim()).join(" "),
      end: Math.max(...sorted.map((l) => l.end)),
    });
    group = [];
  };
  for (const line of lines) {
    const last = group[group.length - 1];
    if (last && Math.abs(line.y - last.y) > Math.min(line.size, last.size) * 0.3) flush();
    group.push(line);
  }
  flush();
  return merged;
}

/**
 * Pieces grouped by the direction of their baselines, the page's main direction first (most
 * characters), then text set at other angles (a vertical margin note), each read on its own.
 */
function byDirection(items: readonly Placed[]): Placed[][] {
  const groups = new Map<number, Placed[]>();
  const weight = new Map<number, number>();
  for (const item of items) {
    if (!groups.has(item.turn)) groups.set(item.turn, []);
    groups.get(item.turn)!.push(item);
    weight.set(item.turn, (weight.get(item.turn) ?? 0) + item.str.trim().length);
  }
  return [...groups.keys()].sort((a, b) => weight.get(b)! - weight.get(a)! || a - b).map((turn) => groups.get(turn)!);
}

/** Joins a word hyphenated across a line break, as pdftotext does: `manip-` + `ulation.` → `manipulation.`. */
function dehyphenate(lines: string[]): string[] {
  const out = [...lines];
  for (let i = 0; i + 1 < out.length; i++) {
    if (!/\p{Ll}-$/u.test(out[i]) || !/^\p{Ll}/u.test(out[i + 1])) continue;
    const [first, ...rest] = out[i + 1].split(/(?<=\S)\s+/);
    out[i] = out[i].slice(0, -1) + first;
    out[i + 1] = rest.join(" ");
  }
  return out.filter((line) => line !== "");
}

/**
 * PDF.js's predefined CMaps (UniGB-UCS2-H, 90ms-RKSJ-H, …: CJK fonts that are not embedded or
 * carry no ToUnicode map), vendored from pdfjs-dist 6.1.200 — the PDF.js build unpdf 1.8.1
 * bundles — into pterm's own code folder: the sandbox worker may read it, the compiled binary
 * includes it, and nothing is fetched at run time. Without them such a PDF loses all its text.
 */
const CMAP_DIR = new URL("./cmaps/", import.meta.url);

/** CMap names are PDF names chosen by the document: only plain file names are looked up. */
const CMAP_FILE = /^[A-Za-z0-9_.+-]+\.bcmap$/;

/** PDF.js's binary-data hook (its `BinaryDataFactory` option): reads CMaps from CMAP_DIR only. */
class VendoredBinaryData {
  constructor(_options: unknown) {}
  async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
    if (kind !== "cMapUrl" || !CMAP_FILE.test(filename)) {
      throw new Error(`no ${kind} data "${filename}" is shipped with pterm`);
    }
    try {
      return await Deno.readFile(new URL(filename, CMAP_DIR));
    } catch {
      throw new Error(`no CMap "${filename}" is shipped with pterm`);
    }
  }
}

/**
 * A copy of a message as `structuredClone` makes it, for the data PDF.js sends between its two
 * sides: plain objects and arrays copied member by member (class instances become plain objects
 * of their own enumerable properties), Maps and Sets copied, binary data passed as it is (PDF.js
 * sends it transferred or never touches it again). Anything else (errors, dates) goes through
 * `structuredClone`, and so does a message this cannot copy (a cycle).
 */
function copyMessage(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = copyMessage(value[i]);
    return copy;
  }
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value;
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [copyMessage(k), copyMessage(v)]));
  if (value instanceof Set) return new Set([...value].map(copyMessage));
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null && !isPlainClass(prototype)) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyMessage((value as Record<string, unknown>)[key]);
  return copy;
}

/** An instance of a class of PDF.js's own (not a built-in such as Error, Date or RegExp), cloned as a plain object. */
function isPlainClass(prototype: object): boolean {
  for (let p: object | null = prototype; p !== null; p = Object.getPrototypeOf(p)) {
    if (p === Object.prototype) return true;
    if (BUILT_IN_PROTOTYPES.has(p)) return false;
  }
  return true;
}
const BUILT_IN_PROTOTYPES = new Set<object>([
  Error.prototype,
  Date.prototype,
  RegExp.prototype,
  Promise.prototype,
  Number.prototype,
  String.prototype,
  Boolean.prototype,
]);

/**
 * The port between PDF.js's document side and its API side, both in this thread (pterm runs no
 * PDF.js worker of its own: the sandbox worker is the thread). PDF.js's own in-thread port
 * (`LoopbackPort`) copies each message with `structuredClone`, which costs ~10–15% of the CPU of
 * a long document (every text item goes through Deno's serializer); this one copies in
 * JavaScript (`copyMessage`), at the same moment, so a sender that reuses an object after
 * posting it (PDF.js empties its operator-list arrays in place) still cannot reach the copy.
 * Messages are delivered in order, each in its own microtask, as `LoopbackPort` does.
 */
class InThreadPort {
  #listeners = new Set<(event: { data: unknown }) => void>();
  #delivered = Promise.resolve();
  postMessage(message: unknown): void {
    let data: unknown;
    try {
      data = copyMessage(message);
    } catch {
      data = structuredClone(message);
    }
    const event = { data };
    this.#delivered.then(() => {
      for (const listener of this.#listeners) listener.call(this, event);
    });
  }
  addEventListener(_type: string, listener: (event: { data: unknown }) => void): void {
    this.#listeners.add(listener);
  }
  removeEventListener(_type: string, listener: (event: { data: unknown }) => void): void {
    this.#listeners.delete(listener);
  }
  terminate(): void {
    this.#listeners.clear();
  }
}

/**
 * pterm's two shortcuts through PDF.js, each giving what PDF.js's plain path gives at less cost:
 * its `InThreadPort` instead of PDF.js's `LoopbackPort`, and one `getAnnotationsByType` call
 * instead of each page's `getAnnotations` (`textAnnotationsByPage`). Turned off only by the test
 * that compares both ways on real PDFs.
 */
export const pdfjsShortcuts = { inThreadPort: true, annotationsByType: true };

/** PDF.js's `VerbosityLevel.ERRORS`: nothing of PDF.js's own reaches the console unless it fails. */
const PDFJS_ERRORS_ONLY = 0;

/** PDF.js's document side on an `InThreadPort`, as a `worker` for `getDocument`; null to let PDF.js set up its own. */
async function inThreadWorker(): Promise<unknown> {
  if (!pdfjsShortcuts.inThreadPort) return null;
  const pdfjs = await (await unpdf()).getResolvedPDFJS() as unknown as {
    PDFWorker?: new (options: { port: unknown; verbosity: number }) => unknown;
  };
  // The bundle registers its document side here (what PDF.js's own in-thread set-up uses).
  const documentSide =
    (globalThis as { pdfjsWorker?: { WorkerMessageHandler?: { initializeFromPort(port: unknown): void } } })
      .pdfjsWorker?.WorkerMessageHandler;
  if (!pdfjs.PDFWorker || !documentSide) return null;
  const port = new InThreadPort();
  documentSide.initializeFromPort(port);
  // The document side takes its verbosity from this object (its `configure` message), not from
  // getDocument's: without it, PDF.js's warnings went to the process's stderr, past the envelope.
  return new pdfjs.PDFWorker({ port, verbosity: PDFJS_ERRORS_ONLY });
}

async function open(bytes: Uint8Array, maxInflatedBytes: number): Promise<PdfDocument> {
  // No embedded font program reaches PDF.js with a table longer than the program (font_guard.ts).
  const bounded = boundFontPrograms(bytes, maxInflatedBytes);
  try {
    const worker = await inThreadWorker();
    // PDF.js takes over (detaches) the buffer it is given; the caller keeps its own.
    return await (await unpdf()).getDocumentProxy(
      bounded === bytes ? bytes.slice() : bounded,
      {
        // Text only: no font faces, system fonts, image decoders or WASM assets (the sandbox can
        // fetch none of them), and no console noise.
        useSystemFonts: false,
        disableFontFace: true,
        useWasm: false,
        isImageDecoderSupported: false,
        isOffscreenCanvasSupported: false,
        // Drawing operators are read for table rules only: every image is skipped, never decoded
        // (a JBIG2 or JPEG bomb costs nothing).
        maxImageSize: 1,
        verbosity: PDFJS_ERRORS_ONLY,
        // CMaps are read by the main thread's factory (there is no separate PDF.js worker here).
        useWorkerFetch: false,
        cMapUrl: "pterm-cmaps/",
        cMapPacked: true,
        BinaryDataFactory: VendoredBinaryData,
        ...(worker ? { worker } : {}),
      } as Parameters<typeof getDocumentProxy>[1],
    );
  } catch (error) {
    throw classify(error);
  }
}

function classify(error: unknown): PtermError {
  const name = (error as { name?: string })?.name ?? "";
  const message = (error as Error)?.message ?? String(error);
  if (name === "PasswordException") {
    return new PtermError(
      "EncryptedDocument",
      "the PDF is password-protected; pterm takes no passwords — open it with its password elsewhere, " +
        "save an unprotected copy into the workspace and extract that.",
    );
  }
  return new PtermError(
    "CorruptInput",
    `the PDF cannot be read (${message}); it may be truncated or damaged — re-export or re-download it.`,
  );
}

/** No page could be read (or the tree counts none): the file is damaged, not an empty document. */
function brokenPageTree(pages: number, warnings: readonly string[]): PtermError {
  const why = pages === 0 ? "its page tree holds no pages" : warnings.slice(0, 3).join("; ");
  return new PtermError(
    "CorruptInput",
    `the PDF's page tree is damaged (${why}); no page could be read — re-export or re-download it, ` +
      "or repair it with a PDF tool (qpdf, Ghostscript) and extract the repaired copy.",
  );
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Groups lines into paragraphs: a gap clearly wider than the usual line spacing, a jump up (next column) or a change of size starts one. */
function paragraphsOf(lines: readonly Line[]): string[] {
  const steps = lines.slice(1).map((line, i) => lines[i].y - line.y).filter((step) => step > 0);
  const typical = median(steps) || median(lines.map((l) => l.size)) * 1.2 || 12;
  const paragraphs: string[] = [];
  let current: string[] = [];
  lines.forEach((line, i) => {
    if (i > 0) {
      const previous = lines[i - 1];
      const step = previous.y - line.y;
      const resized = Math.abs(line.size - previous.size) > Math.max(line.size, previous.size) * 0.2;
      if (step > typical * 1.45 || step < -typical * 0.5 || resized) {
        paragraphs.push(dehyphenate(current).join("\n"));
        current = [];
      }
    }
    current.push(line.text);
  });
  if (current.length) paragraphs.push(dehyphenate(current).join("\n"));
  return paragraphs;
}

/** C0 controls (tab and line ends aside), DEL and C1 controls: what fonts without a Unicode map yield. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
// deno-lint-ignore no-control-regex -- the same class, for a test that keeps no state between calls
const HAS_CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/**
 * Drops control characters from the pieces' text; returns how many were dropped from the pieces
 * that are read as text (`inText`): a table's cells are made from the pieces as they came, and the
 * output filter after every reader counts what it drops from them — each character counted once.
 */
function dropControlCharacters<T extends { readonly str: string }>(
  items: T[],
  inText: (index: number) => boolean,
): { items: T[]; dropped: number } {
  // One test over the page's text: most pages have none, and a test per piece costs more than the join.
  if (!HAS_CONTROL_CHARACTER.test(items.map((item) => item.str).join(""))) return { items, dropped: 0 };
  let dropped = 0;
  const clean = items.map((item, index) => {
    const str = item.str.replace(CONTROL_CHARACTERS, () => {
      if (inText(index)) dropped++;
      return "";
    });
    return str === item.str ? item : { ...item, str };
  });
  return { items: clean, dropped };
}

let operators: Ops | null = null;

/** The page's pieces marked as table detection reads them: `monospace` where PDF.js's style says so. */
function markedPieces(pieces: readonly TextPiece[], styles: Record<string, { fontFamily?: string }>): TablePiece[] {
  return pieces.map((piece) => ({ ...piece, monospace: styles[piece.fontName ?? ""]?.fontFamily === "monospace" }));
}

/** A table, or lines in columns without a table's certainty (columns.ts): tab-separated in text only. */
type PageTable = RuledTable & { readonly uncertain?: true };

/**
 * The page's tables from its marked pieces and its drawing (tables.ts): ruled ones, then aligned
 * ones, then the lines left in columns (columns.ts).
 */
function tablesIn(marked: readonly TablePiece[], drawing: readonly DrawingOp[]): PageTable[] {
  let ruled: RuledTable[] = [];
  try {
    ruled = ruledTables(drawing, marked);
  } catch {
    // drawing that cannot be read: only tables without rules are looked for
  }
  const taken = new Set(ruled.flatMap((table) => [...table.members]));
  const tables = [...ruled, ...alignedTables(marked, taken)];
  for (const table of tables) for (const i of table.members) taken.add(i);
  const columns = columnedLines(marked, taken).map((lines): PageTable => ({ ...lines, uncertain: true }));
  return [...tables, ...columns];
}

/** The page's tables through PDF.js, looked for only where the text's layout suggests one. */
async function tablesOf(
  page: PdfPage,
  pieces: readonly TextPiece[],
  styles: Record<string, { fontFamily?: string }>,
): Promise<PageTable[]> {
  const marked = markedPieces(pieces, styles);
  if (!mayHoldTable(marked)) return [];
  operators ??= (await (await unpdf()).getResolvedPDFJS()).OPS as unknown as Ops;
  let drawing: DrawingOp[] = [];
  try {
    drawing = drawingOf(await page.getOperatorList(), operators);
  } catch {
    // drawing that cannot be read: only tables without rules are looked for
  }
  return tablesIn(marked, drawing);
}

/**
 * The page's paragraphs, with each table in the place of its first piece: the text between
 * tables is laid out on its own, and a page without tables reads as one run, as before.
 */
function pageContent(items: readonly Placed[], tables: readonly PageTable[], members: Int32Array): Block[] {
  const paragraphs = (run: readonly Placed[]): Block[] =>
    byDirection(composeAccents(run)).flatMap((group) => paragraphsOf(linesOf(group)))
      .map((text) => ({ type: "paragraph", spans: [{ text }] }));
  if (tables.length === 0) return paragraphs(items);
  const out: Block[] = [];
  const placed = new Set<number>();
  let run: Placed[] = [];
  items.forEach((item, i) => {
    const table = members[i];
    if (table < 0) {
      run.push(item);
      return;
    }
    if (placed.has(table)) return;
    placed.add(table);
    out.push(...paragraphs(run));
    run = [];
    out.push({ type: tables[table].uncertain ? "columns" : "table", rows: tables[table].rows });
  });
  out.push(...paragraphs(run));
  return out;
}

/** A page as pterm's layout takes it: its text pieces, the ruled tables found among them, its viewport. */
interface PageText {
  readonly pieces: readonly TextPiece[];
  readonly tables: PageTable[];
  /** PDF.js's `getViewport({ scale: 1 }).transform`: /Rotate applied, y flipped. */
  readonly view: readonly number[];
}

/** Where the pages come from: pterm's own reader or PDF.js. */
interface PageSource {
  readonly numPages: number;
  /** Throws a PtermError to stop the whole extraction, anything else to leave the page out with a warning. */
  page(number: number): Promise<PageText>;
  encrypted(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Which reader extracts a PDF: pterm's own (commands/doc/pdf/reader/) where it reads everything in
 * the document exactly as PDF.js would, else PDF.js. Turned off only by the test that compares both.
 */
export const pdfReaders = { ptermFirst: true };

/** doc.max_inflated_bytes's default, for callers that give none. */
const DEFAULT_INFLATE_LIMIT = 512 * 1024 * 1024;

/**
 * The document through pterm's own reader, or why not: it reads no PDF it does not handle
 * exactly (see pdf_reader/reader.ts). A page whose text suggests a table has its rules from the
 * reader's drawing (pdf_reader/drawing.ts) unless that may differ from PDF.js's operator list;
 * such a document goes to PDF.js as well.
 */
export async function extractWithPtermReader(
  bytes: Uint8Array,
  options: ExtractOptions,
): Promise<Extraction | { unsupported: string }> {
  let pdf: PdfText;
  try {
    pdf = openPdf(bytes, options.maxInflatedBytes ?? DEFAULT_INFLATE_LIMIT);
  } catch (error) {
    return { unsupported: unsupportedReason(error) };
  }
  const source: PageSource = {
    numPages: pdf.numPages,
    page(number) {
      let page: ReadPage;
      try {
        page = pdf.page(number);
      } catch (error) {
        // Not a page to leave out (as a damaged page is under PDF.js): the whole document goes to PDF.js.
        throw new Unsupported(unsupportedReason(error));
      }
      const marked = markedPieces(page.items, pdf.styles());
      let tables: PageTable[] = [];
      if (mayHoldTable(marked)) {
        if (page.drawingUncertain !== null) {
          throw new Unsupported(`a page that may hold a table, with ${page.drawingUncertain}`);
        }
        tables = tablesIn(marked, page.drawing);
      }
      return Promise.resolve({ pieces: page.items, tables, view: page.view });
    },
    encrypted: () => Promise.resolve(false),
    close: () => Promise.resolve(),
  };
  // Progress is told live, page by page. Should the document fall back to PDF.js midway, its reports
  // start again from page 1; an MCP client sees none of them until they pass this one (progress there
  // must increase), and the shell's progress line is redrawn by each report.
  try {
    return await extractFrom(source, options);
  } catch (error) {
    if (error instanceof Unsupported) return { unsupported: error.message };
    throw error;
  }
}

function unsupportedReason(error: unknown): string {
  return error instanceof Unsupported ? error.message : `${(error as Error)?.name}: ${(error as Error)?.message}`;
}

export async function extractPdf(bytes: Uint8Array, options: ExtractOptions): Promise<Extraction> {
  if (pdfReaders.ptermFirst) {
    const fast = await extractWithPtermReader(bytes, options);
    if (!("unsupported" in fast)) return fast;
  }
  return await extractFrom(await pdfjsSource(bytes, options.maxInflatedBytes ?? DEFAULT_INFLATE_LIMIT), options);
}

/** The document's pages through PDF.js. */
async function pdfjsSource(bytes: Uint8Array, maxInflatedBytes: number): Promise<PageSource> {
  const pdf = await open(bytes, maxInflatedBytes);
  let annotationsByPage: Map<number, AnnotationData[]> | null | undefined;
  return {
    numPages: pdf.numPages,
    async page(number) {
      annotationsByPage ??= pdfjsShortcuts.annotationsByType ? await textAnnotationsByPage(pdf) : null;
      const page = await pdf.getPage(number);
      // PDF.js makes up a blank page when the tree leads to no page dictionary (Kids missing,
      // /Pages pointing nowhere); poppler calls those syntax errors, and so does pterm.
      if (page.ref === null) throw new Error("the page tree has no page dictionary for it");
      // PDF.js's normalization (NFKC) splits an Arabic ligature and then reverses it with its
      // right-to-left piece (اﳋ → اخل); pterm keeps the glyphs' own characters, as pdftotext
      // does, and spells out only the Latin ligatures (ﬁ → fi) itself.
      const content = await page.getTextContent({ disableNormalization: true });
      const drawn = content.items.filter((i): i is typeof i & TextPiece => "str" in i) as TextPiece[];
      const annotations = annotationsByPage ? annotationsByPage.get(number) ?? [] : await annotationsOf(page);
      const pieces = withAnnotationText(drawn, annotations);
      const tables = await tablesOf(page, pieces, content.styles);
      const view = page.getViewport({ scale: 1 }).transform;
      page.cleanup();
      return { pieces, tables, view };
    },
    async encrypted() {
      return Boolean((await metadata(pdf)).EncryptFilterName);
    },
    async close() {
      await pdf.loadingTask.destroy().catch(() => {});
    },
  };
}

async function extractFrom(source: PageSource, options: ExtractOptions): Promise<Extraction> {
  const warnings: string[] = [];
  const blocks: Block[] = [];
  const empty: number[] = [];
  const unreadable: number[] = [];
  const droppedControls = new Map<number, number>();
  let chars = 0;
  let stoppedAt: number | null = null;
  try {
    const { first, last } = selectedUnits(options.selection, source.numPages, "page");
    for (let number = first; number <= last; number++) {
      options.signal.throwIfAborted();
      if (chars > options.charBudget) {
        stoppedAt = number;
        break;
      }
      let items: Placed[];
      let tables: PageTable[] = [];
      let members = new Int32Array(0);
      try {
        const page = await source.page(number);
        tables = page.tables;
        members = new Int32Array(page.pieces.length).fill(-1);
        tables.forEach((table, k) => table.members.forEach((i) => members[i] = k));
        items = place(page.pieces.map(expandLatinLigatures), page.view);
      } catch (error) {
        if (error instanceof PtermError || error instanceof Unsupported) throw error;
        warnings.push(`page ${number} could not be read (${(error as Error).message}); it is left out`);
        unreadable.push(number);
        continue;
      }
      options.progress?.({ progress: number - first + 1, total: last - first + 1, message: "pages read" });
      const cleaned = dropControlCharacters(items, (index) => members[index] < 0);
      if (cleaned.dropped > 0) droppedControls.set(number, cleaned.dropped);
      const pageBlocks = pageContent(cleaned.items, tables, members);
      if (pageBlocks.length === 0) empty.push(number);
      chars += textLength(pageBlocks);
      blocks.push({ type: "page", number, blocks: pageBlocks });
    }
    if (stoppedAt === null && source.numPages > 0 && unreadable.length === last - first + 1) {
      throw brokenPageTree(source.numPages, warnings);
    }
    if (empty.length > 0) {
      const which = empty.length === 1 ? `page ${empty[0]} has` : `pages ${compactRanges(empty)} have`;
      warnings.push(`${which} no text layer (scanned images?); pterm does not OCR them`);
    }
    if (await source.encrypted()) {
      warnings.push("the PDF is encrypted without a password to open it; its text was extracted");
    }
    return {
      format: "pdf",
      blocks,
      counts: { pages: source.numPages },
      warnings,
      droppedControls,
      range: {
        unit: "page",
        first,
        last: stoppedAt === null ? last : stoppedAt - 1,
        wanted: last,
        total: source.numPages,
      },
      stoppedEarly: stoppedAt !== null,
    };
  } finally {
    await source.close();
  }
}

async function metadata(pdf: PdfDocument): Promise<Record<string, unknown>> {
  try {
    return ((await pdf.getMetadata()).info ?? {}) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function infoString(info: Record<string, unknown>, key: string): string | null {
  const value = info[key];
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

/** `D:20220429171908Z` / `D:20080522102541+02'00'` → ISO 8601, or the raw string when it does not parse. */
export function pdfDate(raw: string | null): string | null {
  if (!raw) return null;
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz]|[+-]\d{2}'?\d{2}'?)?/.exec(raw);
  if (!m) return raw;
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00", zone] = m;
  let offset = "";
  if (zone && /^[+-]/.test(zone)) offset = `${zone.slice(0, 3)}:${zone.replace(/'/g, "").slice(3, 5) || "00"}`;
  else if (zone) offset = "Z";
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`;
}

function docInfo(pages: number, info: Record<string, unknown>): DocInfo {
  return {
    format: "pdf",
    pages,
    title: infoString(info, "Title"),
    author: infoString(info, "Author"),
    subject: infoString(info, "Subject"),
    created: pdfDate(infoString(info, "CreationDate")),
    modified: pdfDate(infoString(info, "ModDate")),
    encrypted: Boolean(info.EncryptFilterName),
    password_required: false,
    producer: infoString(info, "Producer"),
  };
}

export async function infoPdf(bytes: Uint8Array, maxInflatedBytes = DEFAULT_INFLATE_LIMIT): Promise<DocInfo> {
  if (pdfReaders.ptermFirst) {
    // The page count and the Info strings through pterm's own reader, where it reads them as PDF.js would.
    const read = readPdfInfo(bytes, maxInflatedBytes);
    if (!("unsupported" in read)) return docInfo(read.pages, read.info);
  }
  let pdf: PdfDocument;
  try {
    pdf = await open(bytes, maxInflatedBytes);
  } catch (error) {
    if (error instanceof PtermError && error.code === "EncryptedDocument") {
      return {
        format: "pdf",
        pages: null,
        title: null,
        author: null,
        subject: null,
        created: null,
        modified: null,
        encrypted: true,
        password_required: true,
        producer: null,
      };
    }
    throw error;
  }
  try {
    return docInfo(pdf.numPages, await metadata(pdf));
  } finally {
    await pdf.loadingTask.destroy().catch(() => {});
  }
}
