/**
 * `doc`: turn PDF, Office, OpenDocument, HTML, CSV, JSON, XML and EPUB files into text and Markdown an agent can use.
 * No network; reads and writes only under the workspace root.
 */

import { DOC_ERROR_CODES } from "./error_codes.ts";
import type { CommandSpec, LeafSpec } from "../../core/declaration.ts";
import { docPositionals, extractFlags, infoFlags } from "./flags.ts";
import { lazyImport } from "../../core/lazy.ts";

type Schemas = typeof import("./schema.ts");
type Handlers = typeof import("./handler.ts");
const schemas = () => lazyImport<Schemas>(new URL("./schema.ts", import.meta.url));
const HANDLERS = new URL("./handler.ts", import.meta.url).href;

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
  errorCodes: DOC_ERROR_CODES,
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
