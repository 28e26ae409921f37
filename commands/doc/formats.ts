/** What `doc` reads and writes, by name: the document formats it detects and the output modes `--format` also takes. */

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
