/** What every format's reader returns. */

import { PtermError } from "../../core/errors.ts";
import type { Block } from "./blocks.ts";
import type { DocFormat } from "./formats.ts";

/** What `--pages` asks for: pages, slides or sheets by number (1-based, inclusive), or one sheet by name. */
export type UnitSelection =
  & ({ readonly first: number; readonly last: number } | { readonly name: string })
  /** The document as the call named it, for the line an error suggests. */
  & { readonly given: string };

/** The pages, slides or sheets an extraction holds, of how many the document has. */
export interface ExtractedRange {
  readonly unit: "page" | "slide" | "sheet";
  readonly first: number;
  /** The last unit read: below the range's end when the reader stopped early. */
  readonly last: number;
  /** The end of the range that was asked for (the document's last unit without --pages). */
  readonly wanted: number;
  readonly total: number;
}

export interface ExtractOptions {
  /** `--pages`: only these units are read (readers of documents without pages never get one). */
  readonly selection?: UnitSelection;
  readonly signal: AbortSignal;
  /** Told after each page (PDF) is read, for callers that show progress. */
  readonly progress?: (report: { progress: number; total: number; message: string }) => void;
  /**
   * Characters the output may hold. Readers may stop early once they have produced clearly
   * more than this (the rest would be cut anyway); they then set `stoppedEarly`.
   */
  readonly charBudget: number;
  /** The kernel's memory ceiling (limits.memory_bytes): readers that hold a whole part in memory size it against this. */
  readonly memoryBytes: number;
  /** doc.max_inflated_bytes: what a reader may inflate in all (pterm's PDF reader leaves a document past it to PDF.js). */
  readonly maxInflatedBytes?: number;
}

export interface Counts {
  pages?: number | null;
  slides?: number;
  sheets?: number;
  paragraphs?: number;
  tables?: number;
}

export interface Extraction {
  readonly format: DocFormat;
  readonly blocks: Block[];
  readonly counts: Counts;
  readonly warnings: string[];
  /**
   * Control characters a reader dropped itself before laying out the text (by page number); the
   * shared output filter (controls.ts) counts them with its own in one warning.
   */
  readonly droppedControls?: ReadonlyMap<number, number>;
  /** The pages, slides or sheets read (documents without such units have none). */
  readonly range?: ExtractedRange;
  /** The reader stopped before the end because the output budget was used up. */
  readonly stoppedEarly: boolean;
}

export interface DocInfo {
  /** `encrypted-office`: a password-protected OOXML package, whose kind is sealed inside it. */
  format: DocFormat | "encrypted-office";
  pages?: number | null;
  slides?: number;
  sheets?: number;
  sheet_names?: string[];
  title: string | null;
  author: string | null;
  subject: string | null;
  created: string | null;
  modified: string | null;
  encrypted: boolean;
  password_required: boolean;
  producer: string | null;
}

/** The metadata fields a document that records none reports: every one null, in the order `info` prints them. */
export const NO_METADATA: Readonly<
  Pick<DocInfo, "title" | "author" | "subject" | "created" | "modified" | "producer">
> = {
  title: null,
  author: null,
  subject: null,
  created: null,
  modified: null,
  producer: null,
};

/**
 * The 1-based numbers `selection` names among `total` units (by number, or the one sheet by name
 * among `names`); InvalidArgs, with the document's real extent, when it names none of them.
 */
export function selectedUnits(
  selection: UnitSelection | undefined,
  total: number,
  unit: "page" | "slide" | "sheet",
  names: readonly string[] = [],
): { first: number; last: number } {
  if (selection === undefined) return { first: 1, last: total };
  if ("name" in selection) {
    const index = names.indexOf(selection.name);
    if (index >= 0) return { first: index + 1, last: index + 1 };
    throw new PtermError(
      "InvalidArgs",
      `--pages \`${selection.name}\`: the workbook has no sheet of that name; its sheets are ${
        names.map((n) => `\`${n}\``).join(", ")
      }: \`doc extract ${selection.given} --pages 1-${Math.max(total, 1)}\`.`,
    );
  }
  if (selection.first > total) {
    throw new PtermError(
      "InvalidArgs",
      `--pages ${selection.first}-${selection.last}: the document has ${total} ${unit}(s); ` +
        `give a range within 1-${total}: \`doc extract ${selection.given} --pages 1-${Math.max(total, 1)}\`.`,
    );
  }
  return { first: selection.first, last: Math.min(selection.last, total) };
}
