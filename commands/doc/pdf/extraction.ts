/**
 * The extraction from a page source: the selected page range read page by page (progress told
 * as each is read, the character budget checked before each), control characters dropped,
 * unreadable and empty pages collected into warnings, and the whole assembled as an Extraction.
 */

import { compactRanges } from "../controls.ts";
import { PtermError } from "../../../core/errors.ts";
import { Unsupported } from "./reader/reader.ts";
import { type Block, textLength } from "../blocks.ts";
import { type Extraction, type ExtractOptions, selectedUnits } from "../types.ts";
import type { PageTable } from "./tables.ts";
import { pageContent, place, type Placed } from "./layout.ts";
import type { PageSource } from "./page_source.ts";

export async function extractFrom(source: PageSource, options: ExtractOptions): Promise<Extraction> {
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
        items = place(page.pieces, page.view);
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

/** No page could be read (or the tree counts none): the file is damaged, not an empty document. */
function brokenPageTree(pages: number, warnings: readonly string[]): PtermError {
  const why = pages === 0 ? "its page tree holds no pages" : warnings.slice(0, 3).join("; ");
  return new PtermError(
    "CorruptInput",
    `the PDF's page tree is damaged (${why}); no page could be read — re-export or re-download it, ` +
      "or repair it with a PDF tool (qpdf, Ghostscript) and extract the repaired copy.",
  );
}
