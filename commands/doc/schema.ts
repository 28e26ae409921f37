import { z } from "zod";
import { FORMATS } from "./detect.ts";

const MiB = 1024 * 1024;

export const DOC_DEFAULTS = {
  max_input_bytes: 50 * MiB,
  max_inflated_bytes: 500 * MiB,
  max_chars: 1_000_000,
} as const;

/** The `doc` section of pterm.json. */
export const docConfigSchema = z.strictObject({
  max_input_bytes: z.number().int().min(1).max(2048 * MiB).default(DOC_DEFAULTS.max_input_bytes)
    .describe("Largest document `doc` reads, in bytes (InputTooLarge past it)."),
  max_inflated_bytes: z.number().int().min(1).max(16384 * MiB).default(DOC_DEFAULTS.max_inflated_bytes)
    .describe(
      "Most bytes a docx/pptx/xlsx may unpack to, counted while inflating (stops zip bombs; InputTooLarge past it).",
    ),
  max_chars: z.number().int().min(200).max(100_000_000).default(DOC_DEFAULTS.max_chars)
    .describe("Default --max-chars of `doc extract`: the output is cut at a clean boundary past it."),
});

export type DocConfig = z.infer<typeof docConfigSchema>;

const count = z.number().int().nonnegative();

export const extractResultSchema = z.strictObject({
  ok: z.literal(true),
  command: z.literal("doc extract"),
  status: z.enum(["complete", "truncated", "empty"]).describe(
    "complete: all text is in the output; truncated: cut at --max-chars; empty: the document has no extractable text.",
  ),
  format: z.enum(FORMATS),
  mode: z.enum(["text", "md", "json"]),
  input: z.string().describe("The document, relative to the workspace root."),
  output: z.string().describe("Where the extracted text was written, relative to the workspace root."),
  stdout_shows: z.enum(["full", "head_and_tail", "none"]).describe(
    "What stdout holds of the text after the summary: all of it, its head and tail around [...TRUNCATED...] " +
      "(the whole text is in `output`), or none (with --out, or when there is no text).",
  ),
  extracted_chars: count.describe("Characters written to the output."),
  total_chars: count.nullable().describe(
    "Characters of the whole rendering before any cut; null when reading stopped early because of --max-chars.",
  ),
  truncated: z.boolean(),
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
