/**
 * PDF extraction and information: which reader reads the document. pterm's own reader
 * (reader/) where it reads everything in the document exactly as PDF.js would, else PDF.js
 * (pdfjs_pages.ts); both give their pages to the same extraction (extraction.ts).
 */

import { PtermError } from "../../../core/errors.ts";
import { openPdf, type PdfText, type ReadPage, readPdfInfo, Unsupported } from "./reader/reader.ts";
import type { DocInfo, Extraction, ExtractOptions } from "../types.ts";
import { mayHoldTable, type PageTable } from "./tables.ts";
import { markedPieces, type PageSource, tablesIn } from "./page_source.ts";
import { extractFrom } from "./extraction.ts";
import { pdfjsSource } from "./pdfjs_pages.ts";
import { metadata, open, type PdfDocument } from "./pdfjs_open.ts";
import { docInfo } from "./info.ts";

/**
 * Which reader extracts a PDF: pterm's own (commands/doc/pdf/reader/) where it reads everything in
 * the document exactly as PDF.js would, else PDF.js. Turned off only by the test that compares both.
 */
export const pdfReaders = { ptermFirst: true };

/** doc.max_inflated_bytes's default, for callers that give none. */
const DEFAULT_INFLATE_LIMIT = 512 * 1024 * 1024;

/**
 * The document through pterm's own reader, or why not: it reads no PDF it does not handle
 * exactly (see reader/reader.ts). A page whose text suggests a table has its rules from the
 * reader's drawing (reader/drawing.ts) unless that may differ from PDF.js's operator list;
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
