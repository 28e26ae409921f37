/**
 * pterm's own text-only PDF reader: the one entry point. It reads a PDF's pages into the text
 * pieces PDF.js's `getTextContent({ disableNormalization: true })` gives, with each page's
 * viewport transform, or says why it does not read this document exactly ("unsupported: …"),
 * and the caller then reads the whole document with PDF.js instead.
 *
 * It is synchronous and small on purpose: a one-page pdfTeX document is read in a few
 * milliseconds, where loading PDF.js alone costs ~60–75 ms.
 */

import { Budget, Dict, Name, type PdfObject, Ref, Stream, Unsupported, unsupported, XRef } from "./objects.ts";

export { Unsupported };
import { contentText, FontCache } from "./text.ts";
import { StateManager, TextState } from "./text_state.ts";
import type { TextPiece } from "./text_runs.ts";
import { DrawingRecorder } from "./drawing.ts";
import type { DrawingOp } from "../tables.ts";

export type { TextPiece };

export interface ReadPage {
  readonly items: TextPiece[];
  /** PDF.js's `page.getViewport({ scale: 1 }).transform`: /Rotate applied, y flipped. */
  readonly view: number[];
  /** The page's drawing as PDF.js's operator list gives it to table detection (tables.ts). */
  readonly drawing: readonly DrawingOp[];
  /** Why `drawing` may not be what PDF.js's operator list gives; null when it is. */
  readonly drawingUncertain: string | null;
}

export interface ReadDocument {
  readonly pages: ReadPage[];
  /** PDF.js's `styles` for the pieces' font names: "monospace" where it would say so. */
  readonly styles: Record<string, { fontFamily: string }>;
}

/** Reads every page, or says why not ("unsupported: …" for anything not read exactly as PDF.js would). */
export function readPdfText(bytes: Uint8Array, maxInflatedBytes: number): ReadDocument | { unsupported: string } {
  try {
    return readDocument(bytes, maxInflatedBytes);
  } catch (error) {
    // Anything unexpected (a damaged file PDF.js may repair, a bug here) goes to PDF.js too.
    const reason = error instanceof Unsupported
      ? error.message
      : `${(error as Error)?.name}: ${(error as Error)?.message}`;
    return { unsupported: reason };
  }
}

export interface ReadInfo {
  readonly pages: number;
  /** The Info dictionary's text entries pterm reports, as PDF.js's `getMetadata().info` has them. */
  readonly info: Record<string, string>;
}

/** `doc info`'s facts (page count, Info strings) without reading any page, or why not. */
export function readPdfInfo(bytes: Uint8Array, maxInflatedBytes: number): ReadInfo | { unsupported: string } {
  try {
    const { xref, pageDicts } = openDocument(bytes, maxInflatedBytes);
    const info: Record<string, string> = {};
    const dict = xref.trailer.get("Info");
    if (dict instanceof Dict) {
      for (const key of ["Title", "Author", "Subject", "Creator", "Producer", "CreationDate", "ModDate"]) {
        const value = dict.get(key);
        if (typeof value === "string") info[key] = pdfText(value);
      }
    }
    return { pages: pageDicts.length, info };
  } catch (error) {
    const reason = error instanceof Unsupported
      ? error.message
      : `${(error as Error)?.name}: ${(error as Error)?.message}`;
    return { unsupported: reason };
  }
}

/**
 * A text string as PDF.js's `stringToPDFString` reads it: UTF-16 or UTF-8 after a byte-order
 * mark; plain printable ASCII as it is. PDFDocEncoding's other characters and language escapes
 * are left to PDF.js.
 */
function pdfText(raw: string): string {
  const encoding = raw.startsWith("\xFE\xFF")
    ? "utf-16be"
    : raw.startsWith("\xFF\xFE")
    ? "utf-16le"
    : raw.startsWith("\xEF\xBB\xBF")
    ? "utf-8"
    : null;
  if (encoding) {
    let bytes = Uint8Array.from(raw, (c) => c.charCodeAt(0));
    if (encoding !== "utf-8" && bytes.length % 2 === 1) bytes = bytes.subarray(0, -1);
    let text: string;
    try {
      text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
    } catch {
      return unsupported("an Info string that does not decode");
    }
    if (text.includes("\x1B")) unsupported("an Info string with a language escape");
    return text;
  }
  if (!/^[\x20-\x7e\t\n\r]*$/.test(raw)) unsupported("an Info string in PDFDocEncoding");
  return raw;
}

function openDocument(bytes: Uint8Array, maxInflatedBytes: number): { xref: XRef; pageDicts: Dict[] } {
  const xref = XRef.open(bytes, new Budget(maxInflatedBytes));
  const root = xref.trailer.get("Root");
  if (!(root instanceof Dict)) return unsupported("no document catalog");
  // A form's fields are read from the pages' widget annotations (see readPage), as pdfjs_pages.ts's
  // PDF.js path reads them; the catalog's /AcroForm alone adds no text.
  if (root.has("Collection")) return unsupported("a portfolio");
  const pagesRoot = root.get("Pages");
  if (!(pagesRoot instanceof Dict)) return unsupported("no page tree");
  const pageDicts: Dict[] = [];
  const pageRefs: number[] = [];
  collectPages(pagesRoot, -1, xref, pageDicts, pageRefs, new Set(), 0);
  const count = pagesRoot.get("Count");
  if (count !== pageDicts.length || pageDicts.length === 0) return unsupported("a page tree whose /Count is off");
  // A linearized file: PDF.js counts its /N pages and reads the first page's object directly.
  const lin = xref.linearization;
  if (lin && (lin.numPages !== pageDicts.length || pageRefs[lin.pageFirst] !== lin.firstPageObject)) {
    return unsupported("a linearization dictionary that disagrees with the page tree");
  }
  return { xref, pageDicts };
}

function readDocument(bytes: Uint8Array, maxInflatedBytes: number): ReadDocument {
  const pdf = openPdf(bytes, maxInflatedBytes);
  const pages = Array.from({ length: pdf.numPages }, (_, i) => pdf.page(i + 1));
  return { pages, styles: pdf.styles() };
}

/** A document opened for reading page by page (so that a reader may stop early). */
export interface PdfText {
  readonly numPages: number;
  /** Page `number` (from 1); throws `Unsupported` where the page is not read exactly as PDF.js would. */
  page(number: number): ReadPage;
  /** PDF.js's `styles` for the pieces' font names read so far: "monospace" where it would say so. */
  styles(): Record<string, { fontFamily: string }>;
}

/** Opens the document (cross-reference, catalog, page tree); throws `Unsupported` where it cannot. */
export function openPdf(bytes: Uint8Array, maxInflatedBytes: number): PdfText {
  const { pageDicts } = openDocument(bytes, maxInflatedBytes);
  const fonts = new FontCache();
  return {
    numPages: pageDicts.length,
    page: (number) => readPage(pageDicts[number - 1], fonts),
    styles: () => fonts.styles(),
  };
}

function collectPages(
  node: Dict,
  ref: number,
  xref: XRef,
  out: Dict[],
  refs: number[],
  seen: Set<Dict>,
  depth: number,
): void {
  if (depth > 50 || seen.has(node)) unsupported("a loop in the page tree");
  seen.add(node);
  const type = node.get("Type");
  if (!(type instanceof Name)) return unsupported("a page-tree node without /Type");
  if (type.name === "Page") {
    out.push(node);
    refs.push(ref);
    return;
  }
  if (type.name !== "Pages") return unsupported(`a page-tree node of type ${type.name}`);
  const kids = node.get("Kids");
  if (!Array.isArray(kids)) return unsupported("a page-tree node without /Kids");
  const before = out.length;
  for (const kid of kids) {
    if (!(kid instanceof Ref)) return unsupported("a direct page-tree kid");
    const child = xref.fetch(kid);
    if (!(child instanceof Dict)) return unsupported("a page-tree kid that is not a dictionary");
    collectPages(child, kid.num, xref, out, refs, seen, depth + 1);
  }
  if (node.get("Count") !== out.length - before) unsupported("a page-tree node whose /Count is off");
}

/** A page's inherited entry as PDF.js's `getInheritableProperty` and `Dict.merge` give it. */
function inherited(page: Dict, key: string): PdfObject | undefined {
  const found: PdfObject[] = [];
  let node: Dict | undefined = page;
  for (let depth = 0; node && depth < 100; depth++) {
    const value = node.get(key);
    if (value !== undefined) found.push(value);
    const parent: PdfObject | undefined = node.get("Parent");
    node = parent instanceof Dict ? parent : undefined;
  }
  if (found.length > 1 && found[0] instanceof Dict) {
    // PDF.js merges the dictionaries found on the way up: the nearest one's entry wins.
    const merged = new Dict(page.xref);
    for (const dict of found) {
      if (!(dict instanceof Dict)) continue;
      for (const [k, v] of dict.map) if (!merged.map.has(k)) merged.map.set(k, v);
    }
    return merged;
  }
  return found[0];
}

function box(page: Dict, key: string): number[] | null {
  const value = inherited(page, key);
  if (!Array.isArray(value) || value.length !== 4 || !value.every((x) => typeof x === "number")) {
    if (value !== undefined) unsupported(`an unusual /${key}`);
    return null;
  }
  const r = (value as number[]).slice();
  if (r[0] > r[2]) [r[0], r[2]] = [r[2], r[0]];
  if (r[1] > r[3]) [r[1], r[3]] = [r[3], r[1]];
  if (!(r[2] - r[0] > 0 && r[3] - r[1] > 0)) return unsupported(`an empty /${key}`);
  return r;
}

function readPage(page: Dict, fonts: FontCache): ReadPage {
  if (page.has("UserUnit")) unsupported("a /UserUnit");
  const annots = inherited(page, "Annots");
  let drawnAnnotation: string | null = null;
  if (annots !== undefined) {
    if (!Array.isArray(annots)) return unsupported("/Annots that is not an array");
    for (const entry of annots) {
      const annotation = entry instanceof Ref ? page.xref!.fetch(entry) : entry;
      if (!(annotation instanceof Dict)) return unsupported("an annotation that is not a dictionary");
      const subtype = annotation.get("Subtype");
      if (!(subtype instanceof Name)) return unsupported("an annotation without /Subtype");
      // pterm reads the text of free-text notes and form fields: those go to PDF.js.
      if (subtype.name === "FreeText" || subtype.name === "Widget") return unsupported(`a ${subtype.name} annotation`);
      // PDF.js's operator list draws an annotation's appearance (given, or made for most kinds).
      if (annotation.has("AP") || (subtype.name !== "Link" && subtype.name !== "Popup")) {
        drawnAnnotation ??= `a ${subtype.name} annotation (PDF.js draws it)`;
      }
    }
  }
  const mediaBox = box(page, "MediaBox") ?? [0, 0, 612, 792];
  const cropBox = box(page, "CropBox") ?? mediaBox;
  let view = mediaBox;
  if (cropBox.some((v, i) => v !== mediaBox[i])) {
    const x0 = Math.max(Math.min(cropBox[0], cropBox[2]), Math.min(mediaBox[0], mediaBox[2]));
    const x1 = Math.min(Math.max(cropBox[0], cropBox[2]), Math.max(mediaBox[0], mediaBox[2]));
    const y0 = Math.max(Math.min(cropBox[1], cropBox[3]), Math.min(mediaBox[1], mediaBox[3]));
    const y1 = Math.min(Math.max(cropBox[1], cropBox[3]), Math.max(mediaBox[1], mediaBox[3]));
    if (x0 <= x1 && y0 <= y1 && x1 - x0 > 0 && y1 - y0 > 0) view = [x0, y0, x1, y1];
    else return unsupported("an empty /CropBox and /MediaBox intersection");
  }
  let rotate = inherited(page, "Rotate") ?? 0;
  if (typeof rotate !== "number") rotate = 0;
  if (rotate % 90 !== 0) rotate = 0;
  else if (rotate >= 360) rotate %= 360;
  else if (rotate < 0) rotate = ((rotate % 360) + 360) % 360;

  const resourcesValue = inherited(page, "Resources");
  const resources = resourcesValue instanceof Dict ? resourcesValue : new Dict(page.xref);
  const contents = page.get("Contents");
  let data: Uint8Array;
  if (contents === undefined || contents === null) data = new Uint8Array(0);
  else if (contents instanceof Stream) data = contents.bytes();
  else if (Array.isArray(contents)) {
    const parts = contents.map((part) => {
      const stream = part instanceof Ref ? page.xref!.fetch(part) : part;
      return stream instanceof Stream ? stream.bytes() : unsupported("a /Contents entry that is not a stream");
    });
    data = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
    let at = 0;
    for (const part of parts) {
      data.set(part, at);
      at += part.length;
    }
  } else return unsupported("/Contents that is neither a stream nor an array");

  const items: TextPiece[] = [];
  const drawing = new DrawingRecorder();
  contentText({
    data,
    resources,
    state: new StateManager(new TextState()),
    depth: 0,
    page: { viewBox: view, fonts, items, forms: new Set(), drawing },
  });
  return {
    items,
    view: viewport(view, rotate),
    drawing: drawing.ops,
    drawingUncertain: drawnAnnotation ?? drawing.uncertain,
  };
}

/** PDF.js's `PageViewport` transform at scale 1. */
function viewport(viewBox: number[], rotation: number): number[] {
  const centerX = (viewBox[2] + viewBox[0]) / 2;
  const centerY = (viewBox[3] + viewBox[1]) / 2;
  const [a, b, c, d] = rotation === 180
    ? [-1, 0, 0, 1]
    : rotation === 90
    ? [0, 1, 1, 0]
    : rotation === 270
    ? [0, -1, -1, 0]
    : [1, 0, 0, -1];
  const scale = 1;
  const offsetX = a === 0 ? Math.abs(centerY - viewBox[1]) * scale : Math.abs(centerX - viewBox[0]) * scale;
  const offsetY = a === 0 ? Math.abs(centerX - viewBox[0]) * scale : Math.abs(centerY - viewBox[1]) * scale;
  return [
    a * scale,
    b * scale,
    c * scale,
    d * scale,
    offsetX - a * scale * centerX - c * scale * centerY,
    offsetY - b * scale * centerX - d * scale * centerY,
  ];
}
