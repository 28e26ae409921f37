/**
 * What a reader gives the extraction for each page (its pieces, its tables, its viewport), and
 * the rule both readers share for finding a page's tables.
 */

import {
  alignedTables,
  type DrawingOp,
  type PageTable,
  type RuledTable,
  ruledTables,
  type TablePiece,
} from "./tables.ts";
import { columnedLines } from "./columns.ts";
import type { TextPiece } from "./layout.ts";

/** The page's pieces marked as table detection reads them: `monospace` where PDF.js's style says so. */
export function markedPieces(
  pieces: readonly TextPiece[],
  styles: Record<string, { fontFamily?: string }>,
): TablePiece[] {
  return pieces.map((piece) => ({ ...piece, monospace: styles[piece.fontName ?? ""]?.fontFamily === "monospace" }));
}

/**
 * The page's tables from its marked pieces and its drawing (tables.ts): ruled ones, then aligned
 * ones, then the lines left in columns (columns.ts).
 */
export function tablesIn(marked: readonly TablePiece[], drawing: readonly DrawingOp[]): PageTable[] {
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

/** A page as pterm's layout takes it: its text pieces, the ruled tables found among them, its viewport. */
export interface PageText {
  readonly pieces: readonly TextPiece[];
  readonly tables: PageTable[];
  /** PDF.js's `getViewport({ scale: 1 }).transform`: /Rotate applied, y flipped. */
  readonly view: readonly number[];
}

/** Where the pages come from: pterm's own reader or PDF.js. */
export interface PageSource {
  readonly numPages: number;
  /** Throws a PtermError to stop the whole extraction, anything else to leave the page out with a warning. */
  page(number: number): Promise<PageText>;
  encrypted(): Promise<boolean>;
  close(): Promise<void>;
}
