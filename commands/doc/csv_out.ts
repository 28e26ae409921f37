/**
 * `--mode csv` (`--format csv`): a spreadsheet's sheets as CSV, one per sheet. Fields are quoted as
 * RFC 4180 and Python's csv module (QUOTE_MINIMAL) quote them: only a field holding the comma, a
 * double quote or a line break is quoted, a quote inside doubled; a row of one empty field is `""`
 * so that it stays a row. Lines end with `\n`, as LibreOffice's CSV export writes them on Linux.
 */

import type { Block } from "./blocks.ts";
import type { DocFormat } from "./formats.ts";

/** The inputs CSV output is for: workbooks and tables. */
export const SPREADSHEET_FORMATS: readonly DocFormat[] = ["xlsx", "ods", "csv"];

export interface CsvSheet {
  readonly name: string;
  readonly rows: readonly (readonly string[])[];
}

function csvField(field: string): string {
  return /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}

/** One row as a CSV line (with its `\n`). */
export function csvLine(row: readonly string[]): string {
  if (row.length === 1 && row[0] === "") return '""\n';
  return row.map(csvField).join(",") + "\n";
}

export function toCsv(rows: readonly (readonly string[])[]): string {
  return rows.map(csvLine).join("");
}

/** The sheets of an extraction: a workbook's sheet blocks, or a CSV/TSV file's one table named `tableName`. */
export function sheetsOf(blocks: readonly Block[], tableName: string): CsvSheet[] {
  const sheets: CsvSheet[] = [];
  for (const block of blocks) {
    if (block.type === "sheet") sheets.push({ name: block.name, rows: block.rows });
    else if (block.type === "table") sheets.push({ name: tableName, rows: block.rows });
  }
  return sheets;
}

/**
 * The file name part a sheet's name becomes: characters a file name cannot hold on some system
 * (path separators, `:*?"<>|`, control characters) and leading dots become `_`; an empty result is `sheet<n>`.
 */
function fileNamePart(name: string, number: number): string {
  // deno-lint-ignore no-control-regex
  const safe = name.replace(/[\/\\:*?"<>|\x00-\x1f\x7f]/g, "_").replace(/^\.+/, (dots) => "_".repeat(dots.length))
    .trim();
  return safe === "" ? `sheet${number}` : safe;
}

/**
 * One file name per sheet, `<stem>.<sheet>.csv`, distinct even where two names differ only in case
 * or in characters replaced (the later one gets `-<its number>`).
 */
export function sheetFileNames(stem: string, sheets: readonly CsvSheet[], firstNumber: number): string[] {
  const taken = new Set<string>();
  return sheets.map((sheet, i) => {
    const part = fileNamePart(sheet.name, firstNumber + i);
    let name = `${stem}.${part}.csv`;
    if (taken.has(name.toLowerCase())) name = `${stem}.${part}-${firstNumber + i}.csv`;
    taken.add(name.toLowerCase());
    return name;
  });
}
