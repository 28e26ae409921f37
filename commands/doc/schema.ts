import { z } from "zod";
import { FORMATS } from "./formats.ts";

import { DOC_DEFAULTS } from "./config.ts";

const MiB = 1024 * 1024;

/** The `doc` section of pterm.json. */
export const docConfigSchema = z.strictObject({
  max_input_bytes: z.number().int().min(1).max(2048 * MiB).default(DOC_DEFAULTS.max_input_bytes)
    .describe("Largest document `doc` reads, in bytes (InputTooLarge past it)."),
  max_inflated_bytes: z.number().int().min(1).max(16384 * MiB).default(DOC_DEFAULTS.max_inflated_bytes)
    .describe(
      "Most bytes a docx/pptx/xlsx may unpack to, counted while inflating (stops zip bombs; InputTooLarge past it).",
    ),
  max_chars: z.number().int().min(200).max(100_000_000).default(DOC_DEFAULTS.max_chars)
    .describe("Default --max-chars of `doc extract`: what stdout shows is cut at a clean boundary past it."),
  max_output_chars: z.number().int().min(200).max(500_000_000).default(DOC_DEFAULTS.max_output_chars)
    .describe(
      "Most characters one `doc extract` writes to its file: a reader stops past it, and the summary names the " +
        "--pages line that reads the rest.",
    ),
});

const count = z.number().int().nonnegative();

export const extractResultSchema = z.strictObject({
  ok: z.literal(true),
  command: z.literal("doc extract"),
  status: z.enum(["complete", "truncated", "empty"]).describe(
    "complete: the output holds all text of the document (or of the --pages range); truncated: the reader stopped " +
      "at its output limit (doc.max_output_chars) and the summary names the line that reads the rest; " +
      "empty: the document has no extractable text.",
  ),
  format: z.enum(FORMATS),
  mode: z.enum(["text", "md", "json", "csv"]),
  input: z.string().describe("The document, relative to the workspace root."),
  output: z.string().describe("Where the extracted text was written, relative to the workspace root."),
  files: z.array(z.string()).optional().describe(
    "csv: every CSV file written, one per sheet, relative to the workspace root (the first is `output`).",
  ),
  stdout_shows: z.enum(["full", "head", "head_and_tail", "none"]).describe(
    "What stdout holds of the text after the summary: all of it, its head up to --max-chars, its head and tail " +
      "around [...TRUNCATED...] (the whole text is in `output` in both cases), or none (with --out, or when there " +
      "is no text).",
  ),
  extracted_chars: count.describe("Characters written to the output."),
  total_chars: count.nullable().describe(
    "Characters of the whole rendering; null when the reader stopped at its output limit (status truncated).",
  ),
  truncated: z.boolean().describe("The output lacks part of what was asked for (status truncated)."),
  range: z.strictObject({
    unit: z.enum(["page", "slide", "sheet"]),
    first: count,
    last: count.describe("The last one read (below the range's end only when the reader stopped early)."),
    of: count.describe("How many the document has."),
  }).optional().describe("The pages, slides or sheets the output holds (PDF, PPTX, XLSX)."),
  pages: count.nullable().optional().describe(
    "PDF: pages; DOCX: the page count its producer stored (null when none).",
  ),
  slides: count.optional(),
  sheets: count.optional(),
  paragraphs: count.optional(),
  tables: count.optional(),
  warnings: z.array(z.string()),
});

export const infoResultSchema = z.strictObject({
  ok: z.literal(true),
  command: z.literal("doc info"),
  input: z.string(),
  format: z.enum([...FORMATS, "encrypted-office"]).describe(
    "encrypted-office: a password-protected Word/Excel/PowerPoint file (which of them cannot be seen without the password).",
  ),
  bytes: count,
  pages: count.nullable().optional(),
  slides: count.optional(),
  sheets: count.optional(),
  sheet_names: z.array(z.string()).optional(),
  title: z.string().nullable(),
  author: z.string().nullable(),
  subject: z.string().nullable(),
  created: z.string().nullable(),
  modified: z.string().nullable(),
  producer: z.string().nullable(),
  encrypted: z.boolean(),
  password_required: z.boolean().describe("True when the document cannot be opened without a password."),
});
