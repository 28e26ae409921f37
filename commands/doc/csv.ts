/**
 * CSV and TSV as one table (a Markdown table in md, tab-separated rows in text), read by RFC 4180's
 * rules: fields separated by the delimiter, quoted fields may hold delimiters, line breaks and
 * doubled quotes. Bounded: reading stops at the output budget, and a row wider than any
 * spreadsheet's (16,384 columns) is refused rather than rendered.
 */

import { PtermError } from "../../core/errors.ts";
import type { Block } from "./blocks.ts";
import { decodeDocumentText } from "./text_decode.ts";
import type { Extraction, ExtractOptions } from "./types.ts";

const MAX_COLUMNS = 16384;
/**
 * Memory a field costs while the table is held (a string and its slot in a row, estimated, not
 * measured): a file of more fields than the memory ceiling holds is refused before it is read.
 */
const BYTES_PER_FIELD = 64;
const BASELINE_BYTES = 256 * 1024 * 1024;

/** The rows of `text`, split by `delimiter`; stops (and says so) once they hold more than `charBudget` characters. */
export function parseDelimited(
  text: string,
  delimiter: string,
  charBudget: number,
  memoryBytes = Number.POSITIVE_INFINITY,
): { rows: string[][]; stoppedEarly: boolean } {
  const maxFields = Math.max(1_000_000, (memoryBytes - BASELINE_BYTES) / BYTES_PER_FIELD);
  let fields = 0;
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let chars = 0;
  const endField = () => {
    row.push(field);
    chars += field.length + 3;
    if (++fields > maxFields) {
      throw new PtermError(
        "InputTooLarge",
        `the table has more than ${Math.floor(maxFields)} fields, more than the memory ceiling ` +
          "(limits.memory_bytes in pterm.json) holds; split the file, or raise limits.memory_bytes.",
      );
    }
    field = "";
    if (row.length > MAX_COLUMNS) {
      throw new PtermError(
        "InputTooLarge",
        `row ${rows.length + 1} of the table has more than ${MAX_COLUMNS} fields, more than any spreadsheet holds; ` +
          "pterm does not render it — check the delimiter, or split the file.",
      );
    }
  };
  const endRow = () => {
    endField();
    if (!(row.length === 1 && row[0] === "")) rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
      continue;
    }
    if (c === '"' && field === "") quoted = true;
    else if (c === delimiter) endField();
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRow();
      if (chars > charBudget) return { rows, stoppedEarly: i + 1 < text.length };
    } else field += c;
  }
  if (field !== "" || row.length > 0) endRow();
  return { rows, stoppedEarly: false };
}

/**
 * The delimiter when `text` reads as a table: the one of tab, comma and semicolon that splits its
 * first lines alike (as wide as the header line); null when none does (plain text).
 */
export function delimiterOf(text: string): "\t" | "," | ";" | null {
  const lines = text.split(/\r?\n/, 21).filter((line) => line.trim() !== "").slice(0, 20);
  if (lines.length < 2) return null;
  for (const delimiter of ["\t", ",", ";"] as const) {
    const widths = lines.map((line) => parseDelimited(line, delimiter, Infinity).rows[0]?.length ?? 0);
    // Most lines as wide as the header; or (trailing empty fields left out, as distro-info's CSV does)
    // every line at least 2 and at most the header's width, when the header has 3 or more.
    const agreeing = widths.filter((w) => w === widths[0]).length >= Math.ceil(lines.length * 0.8);
    const ragged = widths[0] >= 3 && widths.every((w) => w >= 2 && w <= widths[0]);
    if (widths[0] >= 2 && (agreeing || ragged)) return delimiter;
  }
  return null;
}

function squareRows(rows: string[][]): string[][] {
  const width = rows.reduce((w, row) => Math.max(w, row.length), 0);
  return rows.map((row) => row.length === width ? row : [...row, ...Array(width - row.length).fill("")]);
}

export function extractCsv(bytes: Uint8Array, options: ExtractOptions): Extraction {
  options.signal.throwIfAborted();
  const text = decodeDocumentText(bytes, "the CSV file");
  const delimiter = delimiterOf(text) ?? ",";
  const { rows, stoppedEarly } = parseDelimited(text, delimiter, options.charBudget, options.memoryBytes);
  const blocks: Block[] = rows.length ? [{ type: "table", rows: squareRows(rows) }] : [];
  return { format: "csv", blocks, counts: {}, warnings: [], stoppedEarly };
}
