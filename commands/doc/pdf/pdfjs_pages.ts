/**
 * The pages through PDF.js: each page's text items in content order, with the text of the
 * page's annotations (form fields, free-text notes) added where they sit, and its tables, their
 * rules read from PDF.js's operator list.
 */

import { drawingOf, type DrawingOp, mayHoldTable, type Ops, type PageTable } from "./tables.ts";
import { metadata, open, type PdfDocument, pdfjsShortcuts, unpdf } from "./pdfjs_open.ts";
import { median, type TextPiece } from "./layout.ts";
import { markedPieces, type PageSource, tablesIn } from "./page_source.ts";

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

let operators: Ops | null = null;

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

/** The document's pages through PDF.js. */
export async function pdfjsSource(bytes: Uint8Array, maxInflatedBytes: number): Promise<PageSource> {
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
