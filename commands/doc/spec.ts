/**
 * `doc`: turn PDF, DOCX, PPTX and XLSX into text and Markdown an agent can use (PRD-0011's
 * v1 command set). No network; reads and writes only under the workspace root.
 */

import type { CommandSpec, FlagSpec, LeafSpec } from "../../core/declaration.ts";
import { lazyImport } from "../../core/lazy.ts";

type Schemas = typeof import("./schema.ts");
type Handlers = typeof import("./handler.ts");
const schemas = () => lazyImport<Schemas>(new URL("./schema.ts", import.meta.url));
const HANDLERS = new URL("./handler.ts", import.meta.url).href;

const inFlag = {
  name: "in",
  type: "string",
  required: true,
  path: "read",
  valueName: "path",
  description:
    "The document to read, relative to the workspace root (PDF, DOCX, PPTX or XLSX; detected from its content).",
} as const satisfies FlagSpec;

export const extractFlags = [
  inFlag,
  {
    name: "out",
    type: "string",
    path: "write",
    valueName: "path",
    description:
      "Write the result here (relative to the root) instead of an artifact of the run; replaced atomically, " +
      "never half-written.",
  },
  {
    name: "format",
    type: "string",
    choices: ["auto", "pdf", "docx", "pptx", "xlsx"],
    default: "auto",
    description: "The format the document must have; auto detects it. A mismatch is refused (UnsupportedFormat).",
  },
  {
    name: "max-chars",
    type: "number",
    min: 200,
    max: 100_000_000,
    valueName: "N",
    description: "Bound the output to N characters, cut at a clean boundary and marked [...TRUNCATED...] " +
      "(default: doc.max_chars in pterm.json, 1000000).",
  },
  {
    name: "mode",
    type: "string",
    choices: ["md", "text", "json"],
    default: "md",
    description: "md: Markdown (headings, lists, tables, slide/page markers); text: the same without markup; " +
      "json: blocks for programs.",
  },
] as const satisfies readonly FlagSpec[];

export const infoFlags = [inFlag] as const satisfies readonly FlagSpec[];

const extract: LeafSpec = {
  name: "extract",
  summary: "Extract a PDF, DOCX, PPTX or XLSX as Markdown, plain text or JSON blocks into a file.",
  description: "The output goes to an artifact of the run (or --out); stdout is a short summary and the result says " +
    "format, pages/slides/sheets, characters and whether the output was truncated. Markdown follows markitdown: " +
    "`<!-- Slide number: N -->` and `### Notes:` for slides, `## <sheet>` plus a table per sheet, " +
    "`<!-- Page number: N -->` per PDF page. Password-protected, damaged, oversized or unsupported files are " +
    "refused with EncryptedDocument, CorruptInput, InputTooLarge or UnsupportedFormat, and nothing is written.",
  flags: extractFlags,
  capabilities: ["fs.read", "fs.write"],
  limits: { timeoutMs: 120_000 },
  examples: [
    { command: "doc extract --in docs/report.pdf", description: "Markdown of a PDF, one page marker per page." },
    {
      command: "doc extract --in slides/deck.pptx --out notes/deck.md",
      description: "Slides with titles, tables and speaker notes into notes/deck.md.",
    },
    {
      command: "doc extract --in data/book.xlsx --mode text --max-chars 20000",
      description: "Each sheet as tab-separated rows, at most 20000 characters.",
    },
    { command: "doc extract --in docs/spec.docx --mode json", description: "Heading/paragraph/list/table blocks." },
  ],
  result: async () => (await schemas()).extractResultSchema,
  handler: { module: HANDLERS, export: "extract" satisfies keyof Handlers },
};

const info: LeafSpec = {
  name: "info",
  summary: "Show a document's format, page/slide/sheet count, title, author and encryption without extracting it.",
  description: "Works on password-protected files too (it reports them as encrypted).",
  flags: infoFlags,
  capabilities: ["fs.read"],
  examples: [
    { command: "doc info --in docs/report.pdf", description: "Pages, title, author and encryption of a PDF." },
    { command: "doc info --in data/book.xlsx", description: "Sheet count and sheet names of a workbook." },
  ],
  result: async () => (await schemas()).infoResultSchema,
  handler: { module: HANDLERS, export: "info" satisfies keyof Handlers },
};

export const docSpec: CommandSpec = {
  name: "doc",
  summary: "Turn PDF, DOCX, PPTX and XLSX documents into Markdown or text an agent can read.",
  description: "Runs with no network; reads and writes only under the workspace root. Start with " +
    "`doc info` for a quick look, then `doc extract` and read the output file.",
  zone: "ready",
  examples: [
    { command: "doc extract --in docs/report.pdf", description: "Extract a document as Markdown." },
    { command: "doc info --in docs/report.pdf", description: "Look at a document before extracting it." },
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
    "cat *.pdf": "A document is read with `doc extract --in {1}` (it prints the text).",
    "cat *.docx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "cat *.pptx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "cat *.xlsx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "head *.pdf": "A document is read with `doc extract --in {1}` (it prints the text).",
    "head *.docx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "head *.pptx": "A document is read with `doc extract --in {1}` (it prints the text).",
    "head *.xlsx": "A document is read with `doc extract --in {1}` (it prints the text).",
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
