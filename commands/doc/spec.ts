/**
 * `doc`: turn PDF, Office, OpenDocument, HTML, CSV, JSON, XML and EPUB files into text and Markdown an agent can use.
 * No network; reads and writes only under the workspace root.
 */

import type { CommandSpec, FlagSpec, LeafSpec, PositionalSpec } from "../../core/declaration.ts";
import { lazyImport } from "../../core/lazy.ts";

type Schemas = typeof import("./schema.ts");
type Handlers = typeof import("./handler.ts");
const schemas = () => lazyImport<Schemas>(new URL("./schema.ts", import.meta.url));
const HANDLERS = new URL("./handler.ts", import.meta.url).href;

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

/** The document formats pterm reads, as `info` names them and `--format` accepts them. */
export const FORMATS = [
  "pdf",
  "docx",
  "pptx",
  "xlsx",
  "odt",
  "ods",
  "odp",
  "html",
  "csv",
  "json",
  "xml",
  "epub",
] as const;
export type DocFormat = typeof FORMATS[number];

/** `--format` values that name an output mode rather than a document format (`--format md` = `--mode md`). */
export const OUTPUT_FORMATS = ["md", "markdown", "text", "json", "csv"] as const;

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

const extract: LeafSpec = {
  name: "extract",
  // The verbs agents reach for when they mean "give me the text".
  aliases: ["read", "show"],
  summary: "Extract a PDF, Office, OpenDocument, HTML, CSV, JSON, XML or EPUB file as Markdown, text or JSON blocks " +
    "(a spreadsheet also as CSV), printed and saved to a file.",
  description: "Without --out the text is printed on stdout after a one-line summary (cut at --max-chars, and a " +
    "long text as its head, [...TRUNCATED...] and its tail) and saved whole as an artifact of the run; with --out it " +
    "is written there and stdout is only the summary. --pages reads a range of pages, slides or sheets. The result says format, pages/slides/sheets, characters, where the text is and " +
    "whether it was truncated. Markdown follows markitdown: " +
    "`<!-- Slide number: N -->` and `### Notes:` for slides, `## <sheet>` plus a table per sheet, " +
    "`<!-- Page number: N -->` per PDF page. Password-protected, damaged, oversized or unsupported files are " +
    "refused with EncryptedDocument, CorruptInput, InputTooLarge or UnsupportedFormat, and nothing is written.",
  flags: extractFlags,
  positionals: docPositionals,
  capabilities: ["fs.read", "fs.write"],
  limits: { timeoutMs: 120_000 },
  examples: [
    {
      command: "doc extract docs/report.pdf",
      description: "Markdown of a PDF, one page marker per page, printed and saved as an artifact.",
    },
    {
      command: "doc extract slides/deck.pptx -o notes/deck.md",
      description: "Slides with titles, tables and speaker notes into notes/deck.md.",
    },
    {
      command: "doc extract --in data/book.xlsx --mode text --max-chars 20000",
      description: "Each sheet as tab-separated rows; stdout shows at most 20000 characters, the artifact all.",
    },
    {
      command: "doc extract manuals/guide.pdf --pages 380-397",
      description: "Only pages 380 to 397 of a long PDF (slides of a PPTX, sheets of an XLSX likewise).",
    },
    {
      command: "doc extract data/book.xlsx --format csv",
      description: "The first sheet as CSV on stdout; `--pages 2` or `--pages Notes` picks another.",
    },
    {
      command: "doc extract data/book.xlsx --format csv --out csv/",
      description: "Every sheet as its own file: csv/book.Budget.csv, csv/book.Notes.csv.",
    },
    { command: "doc extract --in docs/spec.docx --mode json", description: "Heading/paragraph/list/table blocks." },
    { command: "doc extract docs/spec.docx --format text", description: "--format text is --mode text." },
  ],
  result: async () => (await schemas()).extractResultSchema,
  handler: { module: HANDLERS, export: "extract" satisfies keyof Handlers },
};

const info: LeafSpec = {
  name: "info",
  summary: "Show a document's format, page/slide/sheet count, title, author and encryption without extracting it.",
  description: "Works on password-protected files too (it reports them as encrypted).",
  flags: infoFlags,
  positionals: docPositionals,
  capabilities: ["fs.read"],
  examples: [
    { command: "doc info docs/report.pdf", description: "Pages, title, author and encryption of a PDF." },
    { command: "doc info --in data/book.xlsx", description: "Sheet count and sheet names of a workbook." },
  ],
  result: async () => (await schemas()).infoResultSchema,
  handler: { module: HANDLERS, export: "info" satisfies keyof Handlers },
};

export const docSpec: CommandSpec = {
  name: "doc",
  summary:
    "Turn PDF, Office, OpenDocument, HTML, CSV, JSON, XML and EPUB documents into Markdown or text an agent can read.",
  description: "Runs with no network; reads and writes only under the workspace root. Start with " +
    "`doc info` for a quick look, then `doc extract <file>`: the text is printed and saved as an artifact.",
  zone: "ready",
  examples: [
    { command: "doc extract docs/report.pdf", description: "Extract a document as Markdown and print it." },
    { command: "doc info docs/report.pdf", description: "Look at a document before extracting it." },
  ],
  subcommands: [extract, info],
  // Other programs' names for reading a document: the error names the doc line instead.
  replaces: {
    pdftotext: "Documents are read with `doc extract --in {1}` (it prints the text; --out saves it to a file).",
    markitdown: "Documents are read with `doc extract --in {1}` (it prints the text; --out saves it to a file).",
    pandoc: "Documents are read with `doc extract --in {1}` (it prints the text; --out saves it to a file).",
    docx2txt: "Documents are read with `doc extract --in {1}` (it prints the text; --out saves it to a file).",
    pdf2txt: "Documents are read with `doc extract --in {1}` (it prints the text; --out saves it to a file).",
    pdfplumber: "Documents are read with `doc extract --in {1}` (it prints the text; --out saves it to a file).",
    catdoc: "Documents are read with `doc extract --in {1}` (it prints the text; --out saves it to a file).",
    antiword: "Documents are read with `doc extract --in {1}` (it prints the text; --out saves it to a file).",
    textutil: "Documents are read with `doc extract --in {1}` (it prints the text; --out saves it to a file).",
    mutool: "Documents are read with `doc extract --in {1}` (it prints the text; --out saves it to a file).",
    "less *.pdf": "A document is read with `doc extract --in {1}` (it prints the text).",
    "less *.docx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "less *.pptx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "less *.xlsx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "more *.pdf": "A document is read with `doc extract --in {1}` (it prints the text).",
    "more *.docx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "more *.pptx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "more *.xlsx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "strings *.pdf": "A document is read with `doc extract --in {1}` (it prints the text).",
    "strings *.docx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "strings *.pptx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "strings *.xlsx": "A document is read with `doc extract --in {1}` (it prints the text).",
  },
  config: async () => (await schemas()).docConfigSchema,
};
