/** The flags and argument of `doc extract` and `doc info`: declared by spec.ts, typed in handler.ts. */

import type { FlagSpec, PositionalSpec } from "../../core/declaration.ts";
import { FORMATS, OUTPUT_FORMATS } from "./formats.ts";

const inFlag = {
  name: "in",
  short: "i",
  aliases: ["input"],
  type: "string",
  path: "read",
  valueName: "path",
  description: "The document to read, relative to the workspace root (PDF, DOCX, PPTX, XLSX, ODT, ODS, ODP, HTML, " +
    "CSV/TSV, JSON, XML or EPUB; detected from its " +
    "content). The same as the <file> argument; give one of them.",
} as const satisfies FlagSpec;

const fileArgument = {
  name: "file",
  path: "read",
  description: "The document to read (the same as --in).",
} as const satisfies PositionalSpec;

export const extractFlags = [
  inFlag,
  {
    name: "out",
    short: "o",
    aliases: ["output"],
    type: "string",
    path: "write",
    valueName: "path",
    description: "Write the result here (relative to the root) instead of an artifact of the run; replaced " +
      "atomically, never half-written. stdout is then only the summary. `-o -` means stdout (the default).",
  },
  {
    name: "format",
    type: "string",
    // `json` and `csv` name a document format and an output mode; each is listed once, among the output modes.
    choices: ["auto", ...FORMATS.filter((format) => format !== "json" && format !== "csv"), ...OUTPUT_FORMATS],
    default: "auto",
    description: "pdf, docx, pptx, xlsx, html, xml, epub: the format the document must have (a mismatch is refused: " +
      "UnsupportedFormat); auto detects it. md, markdown, text, json, csv: the output mode, the same as --mode.",
  },
  {
    name: "max-chars",
    type: "number",
    min: 200,
    max: 100_000_000,
    valueName: "N",
    description: "Bound what stdout shows of the text to N characters, cut at a clean boundary and marked " +
      "[...TRUNCATED...] (default: doc.max_chars in pterm.json, 1000000). The saved file always holds the whole text.",
  },
  {
    name: "pages",
    type: "string",
    valueName: "A-B",
    description: "Read only these PDF pages, PPTX slides or XLSX sheets, counted from 1: `3-7`, `5`, `390-` (to the " +
      "end); for a workbook also a sheet's name. A range past the end stops at the last one. Not for DOCX.",
  },
  {
    name: "mode",
    type: "string",
    choices: ["md", "markdown", "text", "json", "csv"],
    description: "md (the default; markdown is the same): Markdown (headings, lists, tables, slide/page markers); " +
      "text: the same without markup; json: blocks for programs; csv: a spreadsheet (XLSX, ODS, CSV/TSV) as " +
      "RFC 4180 CSV, one sheet per file — without --out the first sheet (or the one --pages names) on stdout, " +
      "with --out <folder>/ every sheet as <folder>/<name>.<sheet>.csv, with --out x.csv one sheet there and " +
      "several as x.<sheet>.csv.",
  },
] as const satisfies readonly FlagSpec[];

export const infoFlags = [inFlag] as const satisfies readonly FlagSpec[];
export const docPositionals = [fileArgument] as const satisfies readonly PositionalSpec[];
