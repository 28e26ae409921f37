/** `doc extract` and `doc info`. */

import { safeWriteFileSync } from "../../core/fs/safe_fs.ts";
import type { CommandContext, Handler } from "../../core/context.ts";
import { PtermError } from "../../core/errors.ts";
import { quoteWord } from "../../core/grammar.ts";
import { lazyImport } from "../../core/lazy.ts";
import type { ConfinedPath } from "../../core/fs/paths.ts";
import {
  boundJson,
  boundPieces,
  hasText,
  type Mode,
  type Output,
  renderPieces,
  toJsonBlock,
  TRUNCATED_MARKER,
} from "./blocks.ts";
import { dropControlCharacters } from "./controls.ts";
import { declaredXmlEncoding, decodeDocumentText } from "./text_decode.ts";
import { article, detect, type Detection } from "./detect.ts";
import { type DocFormat, OUTPUT_FORMATS } from "./formats.ts";
import type { OfficePackage } from "./ooxml/ooxml.ts";
import { type DocConfig, docConfig } from "./config.ts";
import { boundText, TRUNCATION_MARKER, utf8Length } from "../../core/truncate.ts";
import type { docPositionals, extractFlags, infoFlags } from "./flags.ts";
import { type DocInfo, type ExtractedRange, type Extraction, NO_METADATA, type UnitSelection } from "./types.ts";
import { InflateBudget, ZipArchive } from "./zip.ts";
import { csvLine, sheetFileNames, sheetsOf, SPREADSHEET_FORMATS, toCsv } from "./csv_out.ts";

type PdfReader = typeof import("./pdf/pdf.ts");
type DocxReader = typeof import("./ooxml/docx.ts");
type PptxReader = typeof import("./ooxml/pptx.ts");
type XlsxReader = typeof import("./ooxml/xlsx.ts");
type HtmlReader = typeof import("./html.ts");
type CsvReader = typeof import("./csv.ts");
type DataTextReader = typeof import("./data_text.ts");
type EpubReader = typeof import("./epub.ts");
type OdfReader = typeof import("./odf.ts");
/** Each reader, with its library, is loaded only when its format is met (see core/lazy.ts). */
const readers = {
  pdf: () => lazyImport<PdfReader>(new URL("./pdf/pdf.ts", import.meta.url)),
  docx: () => lazyImport<DocxReader>(new URL("./ooxml/docx.ts", import.meta.url)),
  pptx: () => lazyImport<PptxReader>(new URL("./ooxml/pptx.ts", import.meta.url)),
  xlsx: () => lazyImport<XlsxReader>(new URL("./ooxml/xlsx.ts", import.meta.url)),
  html: () => lazyImport<HtmlReader>(new URL("./html.ts", import.meta.url)),
  csv: () => lazyImport<CsvReader>(new URL("./csv.ts", import.meta.url)),
  dataText: () => lazyImport<DataTextReader>(new URL("./data_text.ts", import.meta.url)),
  epub: () => lazyImport<EpubReader>(new URL("./epub.ts", import.meta.url)),
  odf: () => lazyImport<OdfReader>(new URL("./odf.ts", import.meta.url)),
};

/** What `doc extract` writes: a rendering of the blocks, or (for spreadsheets) one sheet per CSV file. */
type OutputMode = Mode | "csv";

const MIME: Record<Mode, string> = { md: "text/markdown", text: "text/plain", json: "application/json" };
const EXTENSION: Record<Mode, string> = { md: "md", text: "txt", json: "json" };

function configOf(ctx: CommandContext): DocConfig {
  return docConfig(ctx.config);
}

function baseName(rel: string): string {
  return rel.split("/").pop() ?? rel;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The document named by `--in` (`-i`, `--input`) or the `<file>` argument, and how to name it in messages. */
function documentArgument(flags: { in?: string }, positionals: { file?: string }, command: string) {
  const flag = flags.in;
  const positional = positionals.file;
  if (flag !== undefined && positional !== undefined && flag !== positional) {
    throw new PtermError(
      "InvalidArgs",
      `${command}: two documents given (\`${positional}\` and --in \`${flag}\`); name one: ` +
        `\`${command} ${positional}\`.`,
      { helpFor: command },
    );
  }
  if (positional !== undefined) return { given: positional, label: "<file>" };
  if (flag !== undefined) return { given: flag, label: "--in" };
  throw new PtermError(
    "InvalidArgs",
    `${command}: missing the document; write \`${command} <file>\` (or --in <file>), e.g. \`${command} docs/report.pdf\`.`,
    { helpFor: command },
  );
}

/**
 * Starts loading the reader a document's name points to (only PDF's is large: ~4 ms to load),
 * so that it loads while the document is resolved and read. The format is still decided by the
 * bytes; a misnamed file only loaded a reader it does not use.
 */
function preloadReaderFor(given: string): void {
  if (/\.pdf$/i.test(given)) readers.pdf().catch(() => {/* reported when the reader is used */});
}

/** Resolves the document, checks it is a file within the size limit, and reads it. */
async function readInput(ctx: CommandContext, given: string, config: DocConfig, label = "--in") {
  const input = await ctx.workspace.resolve(given, "read", { label });
  if (!input.exists) {
    // Files with that name elsewhere under the root, each as the line that extracts it.
    const { filesNamed } = await lazyImport<typeof import("../files/visible.ts")>(
      new URL("../files/visible.ts", import.meta.url),
    );
    const name = given.split("/").filter(Boolean).pop() ?? given;
    const candidates = filesNamed(ctx.workspace.root, name).filter((rel) => rel !== input.rel);
    const elsewhere = candidates.length
      ? ` A file with that name is at: ${candidates.map((rel) => `\`${ctx.command} ${quoteWord(rel)}\``).join(", ")}.`
      : " `find . -name '" + name.replace(/'/g, "") + "'` searches the root for it.";
    throw new PtermError(
      "NotFound",
      `${label} \`${given}\` does not exist; check the path (relative to the workspace root).${elsewhere}`,
    );
  }
  const stat = await Deno.stat(input.abs);
  if (!stat.isFile) throw new PtermError("InvalidArgs", `${label} \`${given}\` is not a file; name a document file.`);
  const tooLarge = (size: number) =>
    new PtermError(
      "InputTooLarge",
      `${label} \`${given}\` is ${formatBytes(size)}, more than the ${
        formatBytes(config.max_input_bytes)
      } doc reads (doc.max_input_bytes in pterm.json); split the document or raise the limit.`,
    );
  if (stat.size > config.max_input_bytes) throw tooLarge(stat.size);
  const bytes = await Deno.readFile(input.abs);
  if (bytes.length > config.max_input_bytes) throw tooLarge(bytes.length);
  return { input, bytes };
}

function detectFormat(bytes: Uint8Array, config: DocConfig): Promise<Detection> {
  const budget = new InflateBudget(config.max_inflated_bytes);
  return detect(bytes, (b) => ZipArchive.open(b, budget));
}

function unsupported(given: string, description: string, label = "--in"): PtermError {
  return new PtermError(
    "UnsupportedFormat",
    `${label} \`${given}\` is ${description}, not a format doc reads (PDF, DOCX, PPTX, XLSX, ODT, ODS, ODP, HTML, CSV/TSV, JSON, XML, EPUB); ` +
      "convert it to one of those first.",
  );
}

/**
 * UnsupportedFormat for another format; CorruptInput for an Office package that names a Word,
 * PowerPoint or Excel main part it does not hold (a damaged document, not another format).
 */
function unsupportedOrDamaged(
  given: string,
  detection: Extract<Detection, { kind: "unsupported" | "damaged" }>,
  label = "--in",
): PtermError {
  if (detection.kind === "unsupported") return unsupported(given, detection.description, label);
  return new PtermError(
    "CorruptInput",
    `${label} \`${given}\` is ${detection.description}; the file is damaged — re-save it from the program that made it.`,
  );
}

function encryptedOffice(given: string, label = "--in"): PtermError {
  return new PtermError(
    "EncryptedDocument",
    `${label} \`${given}\` is a password-protected Office document; pterm takes no passwords — remove the ` +
      "password in Word/Excel/PowerPoint or LibreOffice, save a copy into the workspace and extract that.",
  );
}

/** The Office package detection found, with its main part; only called for DOCX, PPTX and XLSX. */
function officePackage(detection: Detection): OfficePackage {
  if (detection.kind !== "supported" || !detection.zip || detection.mainPart === undefined) {
    throw new Error("an Office reader was called without the package detection found");
  }
  return { zip: detection.zip, mainPart: detection.mainPart };
}

async function runReader(
  format: DocFormat,
  detection: Detection,
  bytes: Uint8Array,
  ctx: CommandContext,
  budget: number,
  config: DocConfig,
  selection: UnitSelection | undefined,
) {
  const options = {
    selection,
    signal: ctx.signal,
    progress: ctx.progress,
    charBudget: budget,
    memoryBytes: ctx.limits.memory_bytes,
    maxInflatedBytes: config.max_inflated_bytes,
  };
  switch (format) {
    case "pdf":
      return await (await readers.pdf()).extractPdf(bytes, options);
    case "docx":
      return await (await readers.docx()).extractDocx(officePackage(detection), options);
    case "pptx":
      return await (await readers.pptx()).extractPptx(officePackage(detection), options);
    case "xlsx":
      return await (await readers.xlsx()).extractXlsx(officePackage(detection), options);
    case "html":
      return (await readers.html()).extractHtml(bytes, options);
    case "csv":
      return (await readers.csv()).extractCsv(bytes, options);
    case "json":
    case "xml":
      return (await readers.dataText()).extractDataText(format, bytes, options);
    case "epub":
      return await (await readers.epub()).extractEpub(zipOf(detection), options);
    case "odt":
    case "ods":
    case "odp": {
      const odf = await readers.odf();
      return odf.extractOdf(format, await odfSource(odf, detection, bytes, ctx.limits.memory_bytes), options);
    }
  }
}

/** A packaged (zip) or flat (one XML file) OpenDocument file's parts. */
async function odfSource(odf: OdfReader, detection: Detection, bytes: Uint8Array, memoryBytes: number) {
  if (detection.kind === "supported" && detection.zip) return await odf.odfFromZip(detection.zip, memoryBytes);
  const xml = decodeDocumentText(bytes, "the flat OpenDocument file", declaredXmlEncoding(bytes));
  return odf.odfFromFlat(xml, memoryBytes);
}

function zipOf(detection: Detection): ZipArchive {
  if (detection.kind !== "supported" || !detection.zip) {
    throw new Error("a package reader was called without the package detection opened");
  }
  return detection.zip;
}

/**
 * The whole rendering of what the reader read: what the artifact (or --out) holds. When the reader
 * stopped at the output limit, it ends with `note`, saying where it stopped and how to get the rest.
 */
function renderWhole(extraction: Extraction, mode: Mode, source: string, note: string | null): string {
  if (mode === "json") {
    const header = { format: extraction.format, source, ...extraction.counts };
    const blocks = extraction.blocks.map(toJsonBlock);
    const tail = note === null ? { truncated: false } : { truncated: true, note: `${TRUNCATED_MARKER} ${note}` };
    return JSON.stringify({ ...header, ...tail, blocks }, null, 1);
  }
  const text = renderPieces(extraction.blocks, mode).join("");
  return note === null ? text : `${text.replace(/\s+$/, "")}\n\n${TRUNCATED_MARKER} ${note}\n`;
}

/** What stdout may show of the text: bounded by --max-chars at a clean boundary. */
function renderForStdout(extraction: Extraction, mode: Mode, source: string, whole: string, maxChars: number): Output {
  if (whole.length <= maxChars) return { text: whole, totalChars: whole.length, truncated: false };
  if (mode === "json") {
    const header = { format: extraction.format, source, ...extraction.counts };
    return boundJson(header, extraction.blocks.map(toJsonBlock), maxChars);
  }
  return boundPieces(renderPieces(extraction.blocks, mode), maxChars);
}

const UNIT_PLURAL = { page: "pages", slide: "slides", sheet: "sheets" } as const;

/** `pages 3-5`, `slide 2`: the units of a range. */
function unitsText(unit: ExtractedRange["unit"], first: number, last: number): string {
  return first === last ? `${unit} ${first}` : `${UNIT_PLURAL[unit]} ${first}-${last}`;
}

/** The `doc extract` line that reads the units the reader did not get to. */
function continuation(given: string, mode: OutputMode, range: ExtractedRange): string {
  return `doc extract ${given}${mode === "md" ? "" : ` --mode ${mode}`} --pages ${range.last + 1}-${range.wanted}`;
}

/** Where a reader that stopped at the output limit stopped, and the line that reads the rest. */
function stopNote(extraction: Extraction, given: string, mode: OutputMode, limit: number): string {
  const range = extraction.range;
  if (range === undefined || range.last >= range.wanted) {
    return `pterm stopped reading at its output limit of ${limit} characters (doc.max_output_chars in pterm.json); ` +
      "the rest of the document is not here — raise the limit to read the rest.";
  }
  const read = range.last < range.first ? "nothing" : unitsText(range.unit, range.first, range.last);
  return `pterm stopped reading at its output limit of ${limit} characters (doc.max_output_chars) after ${read} ` +
    `of ${range.total}; ` +
    `the rest: \`${continuation(given, mode, range)}\`.`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function countsSummary(extraction: Extraction): string {
  const { pages, slides, sheets, paragraphs } = extraction.counts;
  if (slides !== undefined) return plural(slides, "slide");
  if (sheets !== undefined) return plural(sheets, "sheet");
  if (extraction.format === "pdf" && typeof pages === "number") return plural(pages, "page");
  if (paragraphs !== undefined) return plural(paragraphs, "paragraph");
  return "";
}

async function writeOutput(
  ctx: CommandContext,
  outPath: ConfinedPath | null,
  inputRel: string,
  mode: Mode,
  text: string,
): Promise<string> {
  const description = `doc extract of ${inputRel} (${mode})`;
  if (outPath) {
    // On its canonical path, never through a symlink swapped in while the document was read.
    safeWriteFileSync(ctx.workspace.root, outPath.rel, text, { mkdirs: true, durable: true });
    ctx.artifacts.add({ path: outPath.rel, mime: MIME[mode], description });
    return outPath.rel;
  }
  const stem = baseName(inputRel).replace(/\.[^.]+$/, "") || "document";
  const ref = await ctx.artifacts.save(`${stem}.${EXTENSION[mode]}`, text, { mime: MIME[mode], description });
  return ref.path;
}

/** The output mode from --mode and --format (`--format md|markdown|text|json|csv` names one); disagreeing is refused. */
function outputMode(flags: { mode?: string; format: string }, command: string): { mode: OutputMode; format: string } {
  const normal = (m: string): OutputMode => (m === "markdown" ? "md" : m as OutputMode);
  const fromFormat = (OUTPUT_FORMATS as readonly string[]).includes(flags.format) ? normal(flags.format) : undefined;
  const fromMode = flags.mode === undefined ? undefined : normal(flags.mode);
  if (fromFormat && fromMode && fromFormat !== fromMode) {
    throw new PtermError(
      "InvalidArgs",
      `${command}: --format ${flags.format} asks for ${fromFormat} output but --mode ${flags.mode} for ${fromMode}; ` +
        `give one of them, e.g. \`--mode ${fromMode}\`.`,
      { helpFor: command },
    );
  }
  return { mode: fromFormat ?? fromMode ?? "md", format: fromFormat ? "auto" : flags.format };
}

/** What stdout shows of the extracted text: all of it when it fits, else head + marker + tail. */
function printedText(
  text: string,
  summary: string,
  stdoutBytes: number,
): { text: string; shown: "full" | "head_and_tail" } {
  // Room for the summary and the kernel's own margin, so the kernel never cuts (or spills) this stdout again.
  const room = stdoutBytes - utf8Length(summary) - 64;
  const bounded = boundText(text, Math.max(room, 0));
  return { text: bounded.text, shown: bounded.truncated ? "head_and_tail" : "full" };
}

export const extract: Handler<typeof extractFlags, typeof docPositionals> = async (ctx) => {
  const config = configOf(ctx as CommandContext);
  const flags = ctx.flags;
  const { given, label } = documentArgument(flags, ctx.positionals, ctx.command);
  const { mode, format: wanted } = outputMode(flags, ctx.command);
  const maxChars = flags["max-chars"] ?? config.max_chars;
  preloadReaderFor(given);
  const { input, bytes } = await readInput(ctx as CommandContext, given, config, label);

  let outPath: ConfinedPath | null = null;
  // `-o -` is stdout, as for pdftotext and pandoc: the text is printed (and kept as an artifact), no file named `-`.
  if (flags.out !== undefined && flags.out !== "-") {
    outPath = await ctx.workspace.resolve(flags.out, "write", { label: "--out" });
    if (outPath.abs === input.abs) {
      throw new PtermError("InvalidArgs", "--out names the input document itself; choose another output path.");
    }
    if (mode !== "csv" && outPath.exists && !(await Deno.stat(outPath.abs)).isFile) {
      throw new PtermError("InvalidArgs", `--out \`${flags.out}\` is a folder; give a file path such as notes/out.md.`);
    }
  }

  const detection = await detectFormat(bytes, config);
  if (detection.kind === "unsupported" || detection.kind === "damaged") {
    throw unsupportedOrDamaged(given, detection, label);
  }
  if (detection.kind === "encrypted-office") throw encryptedOffice(given, label);
  const format = detection.format;
  if (wanted !== "auto" && wanted !== format) {
    throw new PtermError(
      "UnsupportedFormat",
      `--format ${wanted} was given, but ${label} \`${given}\` is ${
        article(format.toUpperCase())
      } ${format.toUpperCase()} file (detected from its content); ` +
        `pass --format ${format} or leave --format out.`,
    );
  }

  if (mode === "csv" && !SPREADSHEET_FORMATS.includes(format)) {
    throw new PtermError(
      "UnsupportedFormat",
      `--format csv writes the sheets of a spreadsheet (XLSX, ODS, CSV/TSV) as CSV, but ${label} \`${given}\` is ${
        article(format.toUpperCase())
      } ${format.toUpperCase()} file; for its text: \`doc extract ${quoteWord(given)} --mode text\`.`,
    );
  }

  const selection = unitSelection(flags.pages, format, given);
  // The artifact holds the whole range; only doc.max_output_chars bounds it (a reader stops past it, and says where).
  const outputLimit = config.max_output_chars;
  const extraction = dropControlCharacters(
    await runReader(format, detection, bytes, ctx as CommandContext, outputLimit, config, selection),
  );
  ctx.signal.throwIfAborted();
  const stopped = extraction.stoppedEarly;
  const note = stopped ? stopNote(extraction, given, mode, outputLimit) : null;
  if (mode === "csv") {
    return await writeCsv(ctx as CommandContext, {
      extraction,
      inputRel: input.rel,
      inputAbs: input.abs,
      given,
      out: flags.out === "-" ? undefined : flags.out,
      outPath,
      maxChars,
      note,
    });
  }
  const whole = renderWhole(extraction, mode, input.rel, note);
  const written = await writeOutput(ctx as CommandContext, outPath, input.rel, mode, whole);

  const status = !hasText(extraction.blocks) ? "empty" : stopped ? "truncated" : "complete";
  const counts = countsSummary(extraction);
  const range = extraction.range;
  const partial = range !== undefined && (range.first > 1 || range.wanted < range.total);
  const held = range === undefined || !partial
    ? "the whole document"
    : range.last < range.first
    ? `no ${range.unit}`
    : `${unitsText(range.unit, range.first, range.last)} of ${range.total}`;
  const lines = [
    `${input.rel}: ${format}${counts ? `, ${counts}` : ""}${
      partial ? ` (--pages: ${unitsText(range.unit, range.first, range.wanted)})` : ""
    } → ${whole.length} characters of ${mode} in ${written}`,
    stopped
      ? `Incomplete: ${note}`
      : status === "empty"
      ? "No text found (a scanned document? pterm does not OCR)."
      : `Complete: ${written} holds ${held}.`,
    ...extraction.warnings.map((w) => `warning: ${w}`),
  ];
  let stdoutShows: "full" | "head" | "head_and_tail" | "none" = "none";
  if (outPath === null && status !== "empty") {
    const shown = renderForStdout(extraction, mode, input.rel, whole, maxChars);
    const intro = (what: string) => `${lines.join("\n")}\n${what}\n\n`;
    const fullIntro = intro(`The ${mode} text follows.`);
    const headIntro = intro(
      `The ${mode} text follows up to --max-chars ${maxChars} (${shown.text.length} of ${whole.length} characters); ` +
        `the whole text is in ${written}.`,
    );
    const cutIntro = intro(
      `The ${mode} text follows as its head and tail around ${TRUNCATION_MARKER}; the whole text is in ${written}.`,
    );
    const printed = printedText(shown.text, cutIntro, ctx.limits.stdout_bytes);
    stdoutShows = printed.shown === "head_and_tail" ? "head_and_tail" : shown.truncated ? "head" : "full";
    const text = printed.text.endsWith("\n") ? printed.text : printed.text + "\n";
    const chosen = stdoutShows === "full" ? fullIntro : stdoutShows === "head" ? headIntro : cutIntro;
    ctx.stdout.write(chosen + text);
  } else {
    ctx.stdout.write(lines.join("\n") + "\n");
  }
  return {
    status,
    format,
    mode,
    input: input.rel,
    output: written,
    stdout_shows: stdoutShows,
    extracted_chars: whole.length,
    total_chars: stopped ? null : whole.length,
    truncated: stopped,
    ...(range === undefined
      ? {}
      : { range: { unit: range.unit, first: range.first, last: range.last, of: range.total } }),
    ...extraction.counts,
    warnings: extraction.warnings,
  };
};

interface CsvRequest {
  readonly extraction: Extraction;
  readonly inputRel: string;
  readonly inputAbs: string;
  readonly given: string;
  /** --out as given (`-` already taken as stdout); undefined: stdout and an artifact. */
  readonly out: string | undefined;
  readonly outPath: ConfinedPath | null;
  readonly maxChars: number;
  /** Where the reader stopped at its output limit, and the line that reads the rest; null when it read all. */
  readonly note: string | null;
}

/** The parent folder of a workspace-relative path (`` for the root). */
function parentOf(rel: string): string {
  const at = rel.lastIndexOf("/");
  return at < 0 ? "" : rel.slice(0, at + 1);
}

/**
 * `--mode csv`: each sheet of a spreadsheet as CSV. Without --out, the first sheet read (the one
 * --pages names) is printed and saved as an artifact, and the summary names the line for each other
 * one; with --out naming a folder (existing, or ending in `/`), every sheet is written into it as
 * `<input-stem>.<sheet>.csv`; with --out naming a file, one sheet is written there and several as
 * `<out-stem>.<sheet>.csv` beside it. Every target is checked before the first is written.
 */
async function writeCsv(ctx: CommandContext, request: CsvRequest): Promise<Record<string, unknown>> {
  const { extraction, inputRel, given, out, outPath, note } = request;
  const inputStem = baseName(inputRel).replace(/\.[^.]+$/, "") || "document";
  const fromWorkbook = extraction.format !== "csv";
  const all = sheetsOf(extraction.blocks, inputStem);
  const range = extraction.range;
  const firstNumber = range?.first ?? 1;
  const toStdout = outPath === null;
  const sheets = toStdout ? all.slice(0, 1) : all;
  const sheetWord = (i: number) => fromWorkbook ? `sheet ${firstNumber + i} \`${sheets[i].name}\`` : "the table";

  // Where each sheet goes, relative to the root.
  let targets: string[];
  if (outPath === null) {
    targets = [];
  } else {
    const isFolder = out!.endsWith("/") || (outPath.exists && (await Deno.stat(outPath.abs)).isDirectory);
    if (isFolder) {
      const folder = outPath.rel === "." ? "" : `${outPath.rel}/`;
      targets = fromWorkbook
        ? sheetFileNames(inputStem, sheets, firstNumber).map((name) => folder + name)
        : [`${folder}${inputStem}.csv`];
    } else if (sheets.length <= 1) {
      targets = [outPath.rel];
    } else {
      const outStem = baseName(outPath.rel).replace(/\.csv$/i, "") || inputStem;
      targets = sheetFileNames(outStem, sheets, firstNumber).map((name) => parentOf(outPath.rel) + name);
    }
  }
  const resolved: ConfinedPath[] = [];
  for (const target of targets) {
    const path = await ctx.workspace.resolve(target, "write", { label: "--out" });
    if (path.abs === request.inputAbs) {
      throw new PtermError(
        "InvalidArgs",
        `--out would write \`${path.rel}\` over the input document itself; choose another folder, e.g. \`doc extract ${
          quoteWord(given)
        } --format csv --out csv/\`.`,
      );
    }
    if (path.exists && !(await Deno.stat(path.abs)).isFile) {
      throw new PtermError("InvalidArgs", `--out: \`${path.rel}\` is a folder; give another --out path.`);
    }
    resolved.push(path);
  }

  const texts = sheets.map((sheet) => toCsv(sheet.rows));
  const chars = texts.reduce((n, text) => n + text.length, 0);
  const description = (i: number) =>
    `doc extract of ${inputRel} (csv, ${fromWorkbook ? `sheet ${sheets[i].name}` : "table"})`;
  const written: string[] = [];
  if (toStdout) {
    if (sheets.length === 1) {
      const name = fromWorkbook ? sheetFileNames(inputStem, sheets, firstNumber)[0] : `${inputStem}.csv`;
      const ref = await ctx.artifacts.save(name, texts[0], { mime: "text/csv", description: description(0) });
      written.push(ref.path);
    }
  } else {
    resolved.forEach((path, i) => {
      // On its canonical path, never through a symlink swapped in while the document was read.
      safeWriteFileSync(ctx.workspace.root, path.rel, texts[i], { mkdirs: true, durable: true });
      ctx.artifacts.add({ path: path.rel, mime: "text/csv", description: description(i) });
      written.push(path.rel);
    });
  }

  const empty = sheets.every((sheet) => sheet.rows.length === 0);
  const status = empty ? "empty" : note !== null ? "truncated" : "complete";
  const counts = countsSummary(extraction);
  const shownLast = range === undefined ? undefined : firstNumber + Math.max(sheets.length - 1, 0);
  const where = written.length === 0
    ? "nothing written"
    : written.length === 1
    ? written[0]
    : `${written.length} files: ${written.join(", ")}`;
  const lines = [
    `${inputRel}: ${extraction.format}${counts ? `, ${counts}` : ""} → ${chars} characters of csv in ${where}`,
  ];
  const others = toStdout && all.length > 1;
  if (others) {
    const next = firstNumber + 1;
    lines.push(
      `Only ${sheetWord(0)} is here: CSV holds one sheet. The next: \`doc extract ${quoteWord(given)} --format csv ` +
        `--pages ${next}\`; every sheet as its own file: \`doc extract ${quoteWord(given)} --format csv --out ` +
        `${inputStem}-csv/\`.`,
    );
  }
  if (note !== null) lines.push(`Incomplete: ${note}`);
  else if (empty) lines.push("No cells found.");
  else if (!others) {
    lines.push(`Complete: ${sheets.length === 1 ? sheetWord(0) : `${sheets.length} sheets`}, one CSV file each.`);
  }
  lines.push(...extraction.warnings.map((w) => `warning: ${w}`));

  let stdoutShows: "full" | "head" | "head_and_tail" | "none" = "none";
  if (toStdout && !empty) {
    const shown = boundPieces(sheets[0].rows.map(csvLine), request.maxChars);
    const intro = (what: string) => `${lines.join("\n")}\n${what}\n\n`;
    const cutIntro = intro(
      `The csv text follows as its head and tail around ${TRUNCATION_MARKER}; the whole is in ${where}.`,
    );
    const printed = printedText(shown.text, cutIntro, ctx.limits.stdout_bytes);
    stdoutShows = printed.shown === "head_and_tail" ? "head_and_tail" : shown.truncated ? "head" : "full";
    const chosen = stdoutShows === "full" ? intro("The csv text follows.") : stdoutShows === "head"
      ? intro(
        `The csv text follows up to --max-chars ${request.maxChars} (${shown.text.length} of ${texts[0].length} ` +
          `characters); the whole is in ${where}.`,
      )
      : cutIntro;
    ctx.stdout.write(chosen + printed.text);
  } else {
    ctx.stdout.write(lines.join("\n") + "\n");
  }
  return {
    status,
    format: extraction.format,
    mode: "csv",
    input: inputRel,
    output: written[0] ?? "",
    files: written,
    stdout_shows: stdoutShows,
    extracted_chars: chars,
    total_chars: note !== null ? null : chars,
    truncated: note !== null,
    ...(range === undefined || shownLast === undefined
      ? {}
      : { range: { unit: range.unit, first: range.first, last: Math.min(shownLast, range.last), of: range.total } }),
    ...extraction.counts,
    warnings: extraction.warnings,
  };
}

/**
 * `--pages A-B` (also `A`, `A-` to the end): PDF pages, PPTX slides, XLSX sheets by number; for a
 * workbook, a sheet's name. A DOCX has no fixed pages (the program showing it lays them out).
 */
function unitSelection(value: string | undefined, format: DocFormat, given: string): UnitSelection | undefined {
  if (value === undefined) return undefined;
  if (!["pdf", "pptx", "xlsx", "odp", "ods"].includes(format)) {
    const what = format === "docx"
      ? "a Word document, which has no fixed pages (the program showing it lays them out)"
      : `${format === "epub" ? "an EPUB" : `a ${format.toUpperCase()} file`}, which has no pages`;
    throw new PtermError(
      "InvalidArgs",
      `--pages: \`${given}\` is ${what}; leave --pages out: \`doc extract ${given}\`.`,
      { helpFor: "doc extract" },
    );
  }
  const numbers = /^\s*(\d+)\s*(?:-\s*(\d*)\s*)?$/.exec(value);
  if (numbers) {
    const first = Number(numbers[1]);
    const last = numbers[2] === undefined ? first : numbers[2] === "" ? Number.MAX_SAFE_INTEGER : Number(numbers[2]);
    if (first >= 1 && last >= first) return { first, last, given };
  } else if ((format === "xlsx" || format === "ods") && value.trim() !== "") {
    return { name: value, given };
  }
  const unit = format === "pptx" || format === "odp"
    ? "slides"
    : format === "xlsx" || format === "ods"
    ? "sheets (or one sheet's name)"
    : "pages";
  throw new PtermError(
    "InvalidArgs",
    `--pages \`${value}\`: give ${unit} as A-B, counted from 1 (A ≤ B), e.g. \`doc extract ${given} --pages 1-3\`.`,
    { helpFor: "doc extract" },
  );
}

async function describe(
  detection: Detection,
  bytes: Uint8Array,
  maxInflatedBytes: number,
  memoryBytes: number,
): Promise<DocInfo | null> {
  if (detection.kind !== "supported") return null;
  switch (detection.format) {
    case "pdf":
      return await (await readers.pdf()).infoPdf(bytes, maxInflatedBytes);
    case "docx":
      return await (await readers.docx()).infoDocx(officePackage(detection));
    case "pptx":
      return await (await readers.pptx()).infoPptx(officePackage(detection));
    case "xlsx":
      return await (await readers.xlsx()).infoXlsx(officePackage(detection));
    case "html":
      return (await readers.html()).infoHtml(bytes);
    case "csv":
    case "json":
    case "xml":
      return (await readers.dataText()).infoDataText(detection.format);
    case "epub":
      return await (await readers.epub()).infoEpub(zipOf(detection));
    case "odt":
    case "ods":
    case "odp": {
      const odf = await readers.odf();
      return odf.infoOdf(detection.format, await odfSource(odf, detection, bytes, memoryBytes));
    }
  }
}

export const info: Handler<typeof infoFlags, typeof docPositionals> = async (ctx) => {
  const config = configOf(ctx as CommandContext);
  const { given, label } = documentArgument(ctx.flags, ctx.positionals, ctx.command);
  preloadReaderFor(given);
  const { input, bytes } = await readInput(ctx as CommandContext, given, config, label);
  const detection = await detectFormat(bytes, config);
  if (detection.kind === "unsupported" || detection.kind === "damaged") {
    throw unsupportedOrDamaged(given, detection, label);
  }
  const details: DocInfo = await describe(detection, bytes, config.max_inflated_bytes, ctx.limits.memory_bytes) ?? {
    format: "encrypted-office",
    ...NO_METADATA,
    encrypted: true,
    password_required: true,
  };
  const counts = [
    typeof details.pages === "number" ? plural(details.pages, "page") : "",
    details.slides !== undefined ? plural(details.slides, "slide") : "",
    details.sheets !== undefined ? `${plural(details.sheets, "sheet")} (${details.sheet_names?.join(", ")})` : "",
  ].filter(Boolean);
  const lines = [
    `${input.rel}: ${details.format}, ${formatBytes(bytes.length)}${counts.length ? `, ${counts.join(", ")}` : ""}`,
    `title: ${details.title ?? "-"}`,
    `author: ${details.author ?? "-"}`,
    `producer: ${details.producer ?? "-"}`,
    `encrypted: ${
      details.encrypted
        ? (details.password_required ? "yes, a password is needed to open it" : "yes, but it opens without a password")
        : "no"
    }`,
  ];
  ctx.stdout.write(lines.join("\n") + "\n");
  return { input: input.rel, bytes: bytes.length, ...details };
};
