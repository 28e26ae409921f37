/** What every format's reader returns. */

import type { Block } from "./blocks.ts";
import type { DocFormat } from "./detect.ts";

export interface ExtractOptions {
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
