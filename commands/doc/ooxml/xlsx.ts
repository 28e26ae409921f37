/**
 * XLSX read straight from its XML parts (no spreadsheet library): the workbook's sheet list,
 * shared strings, the number formats of the cell styles, and each worksheet streamed cell by
 * cell. Values are shown as displayed where practical: formatted numbers and dates, shared and
 * inline strings, booleans, errors, and formulas' cached values (formulas are not recomputed).
 */

import { PtermError } from "../../../core/errors.ts";
import { type Block, textLength } from "../blocks.ts";
import { builtinFormat, formatNumber } from "./numfmt.ts";
import {
  type OfficePackage,
  readProperties,
  readRelationships,
  type Relationship,
  relationshipOfKind,
} from "./ooxml.ts";
import { type DocInfo, type Extraction, type ExtractOptions, selectedUnits } from "../types.ts";
import { child, childElements, parseXml, path, relationshipAttr, saxParse, StopParsing } from "./xml.ts";
import type { ZipArchive } from "../zip.ts";

interface SheetRef {
  readonly name: string;
  readonly part: string | null;
  readonly hidden: boolean;
  readonly chart: boolean;
}

interface Workbook {
  readonly sheets: SheetRef[];
  readonly date1904: boolean;
  readonly rels: Map<string, Relationship>;
}

/** The workbook, at the part the package's root relationship names (found by detection). */
async function readWorkbook({ zip, mainPart: part }: OfficePackage): Promise<Workbook> {
  const xml = await zip.readText(part);
  if (xml === null) {
    throw new PtermError(
      "CorruptInput",
      `the spreadsheet package has no workbook part (${part}); the file is damaged — re-save it from Excel or LibreOffice.`,
    );
  }
  const root = parseXml(xml, part);
  const rels = await readRelationships(zip, part);
  const pr = child(root, "workbookPr");
  const date1904 = pr?.attrs.date1904 === "1" || pr?.attrs.date1904 === "true";
  const sheets = childElements(child(root, "sheets") ?? root, "sheet").map((sheet) => {
    const rel = rels.get(relationshipAttr(sheet, "id") ?? "");
    return {
      name: sheet.attrs.name ?? "Sheet",
      part: rel && !rel.external ? rel.target : null,
      hidden: sheet.attrs.state === "hidden" || sheet.attrs.state === "veryHidden",
      chart: rel?.type.endsWith("/chartsheet") ?? false,
    };
  });
  return { sheets, date1904, rels };
}

function partOfKind(workbook: Workbook, kind: string, fallback: string): string {
  const rel = relationshipOfKind(workbook.rels, kind);
  return rel && !rel.external ? rel.target : fallback;
}

async function readSharedStrings(zip: ZipArchive, part: string): Promise<string[]> {
  const xml = await zip.readText(part);
  if (xml === null) return [];
  const strings: string[] = [];
  let current: string | null = null;
  let inText = false;
  let phonetic = 0;
  saxParse(xml, part, {
    open(name) {
      if (name === "si") current = "";
      else if (name === "rPh") phonetic++;
      else if (name === "t" && phonetic === 0) inText = true;
    },
    close(name) {
      if (name === "si") {
        strings.push(current ?? "");
        current = null;
      } else if (name === "rPh") phonetic--;
      else if (name === "t") inText = false;
    },
    text(text) {
      if (inText && current !== null) current += text;
    },
  });
  return strings;
}

/** The number format code of each cell style (`s` attribute) index. */
async function readCellFormats(zip: ZipArchive, part: string): Promise<string[]> {
  const xml = await zip.readText(part);
  if (xml === null) return [];
  const root = parseXml(xml, part);
  const custom = new Map<number, string>();
  for (const format of childElements(child(root, "numFmts") ?? root, "numFmt")) {
    custom.set(Number(format.attrs.numFmtId), format.attrs.formatCode ?? "General");
  }
  return childElements(path(root, "cellXfs") ?? root, "xf").map((xf) => {
    const id = Number(xf.attrs.numFmtId ?? 0);
    return custom.get(id) ?? builtinFormat(id);
  });
}

/** Excel's grid: columns A..XFD, rows 1..1048576. A reference outside it is no real cell. */
const MAX_COLUMNS = 16384;
const MAX_ROWS = 1048576;

function outsideGrid(part: string, what: string): PtermError {
  return new PtermError(
    "CorruptInput",
    `${part} names ${what}, outside Excel's grid (A1:XFD1048576); the workbook is damaged or was not ` +
      "written by a spreadsheet program — re-save it from Excel or LibreOffice.",
  );
}

/** `BC12` → 54 (0-based column), from a cell reference; past column XFD is CorruptInput. */
function columnOf(ref: string, part: string): number {
  let column = 0;
  for (let i = 0; i < ref.length; i++) {
    const code = ref.charCodeAt(i);
    if (code < 65 || code > 90) break;
    column = column * 26 + (code - 64);
    if (column > MAX_COLUMNS) throw outsideGrid(part, `the cell ${JSON.stringify(ref.slice(0, 32))}`);
  }
  return column - 1;
}

/** A row's 0-based index from its `r` attribute (1-based). */
function rowOf(r: string, part: string): number {
  const row = Number(r);
  if (!Number.isInteger(row) || row < 1 || row > MAX_ROWS) {
    throw outsideGrid(part, `the row ${JSON.stringify(r.slice(0, 32))}`);
  }
  return row - 1;
}

interface SheetReadContext {
  readonly strings: string[];
  readonly formats: string[];
  readonly date1904: boolean;
  /** Characters this sheet may still add before reading stops. */
  readonly charBudget: number;
}

interface SheetData {
  rows: string[][];
  truncated: boolean;
}

function displayValue(type: string, raw: string, inline: string, style: number, ctx: SheetReadContext): string {
  switch (type) {
    case "s":
      return ctx.strings[Number(raw)] ?? "";
    case "inlineStr":
      return inline;
    case "str":
    case "e":
    case "d":
      return raw;
    case "b":
      return raw === "1" || raw === "true" ? "TRUE" : "FALSE";
    default: {
      if (raw.trim() === "") return inline;
      const value = Number(raw);
      if (!Number.isFinite(value)) return raw;
      return formatNumber(value, ctx.formats[style] ?? "General", ctx.date1904);
    }
  }
}

function readSheet(xml: string, part: string, ctx: SheetReadContext): SheetData {
  const cells = new Map<number, Map<number, string>>();
  let rowIndex = -1;
  let columnIndex = -1;
  let cellType = "";
  let cellStyle = 0;
  let raw = "";
  let inline = "";
  let collecting: "v" | "t" | null = null;
  let inInline = false;
  let inSheetData = false;
  let chars = 0;
  let truncated = false;
  try {
    saxParse(xml, part, {
      open(name, attrs) {
        switch (name) {
          case "sheetData":
            inSheetData = true;
            break;
          case "row":
            rowIndex = attrs.r ? rowOf(attrs.r, part) : rowIndex + 1;
            columnIndex = -1;
            break;
          case "c":
            columnIndex = attrs.r ? columnOf(attrs.r, part) : columnIndex + 1;
            if (columnIndex >= MAX_COLUMNS) throw outsideGrid(part, "a cell past column XFD");
            cellType = attrs.t ?? "n";
            cellStyle = Number(attrs.s ?? 0);
            raw = "";
            inline = "";
            break;
          case "v":
            if (inSheetData) collecting = "v";
            break;
          case "is":
            inInline = true;
            break;
          case "t":
            if (inInline) collecting = "t";
            break;
        }
      },
      close(name) {
        switch (name) {
          case "v":
          case "t":
            collecting = null;
            break;
          case "is":
            inInline = false;
            break;
          case "sheetData":
            inSheetData = false;
            break;
          case "c": {
            if (!inSheetData) break;
            const value = displayValue(cellType, raw, inline, cellStyle, ctx);
            if (value === "") break;
            let row = cells.get(rowIndex);
            if (!row) cells.set(rowIndex, row = new Map());
            row.set(columnIndex, value);
            chars += value.length + 3;
            break;
          }
          case "row":
            if (chars > ctx.charBudget) {
              truncated = true;
              throw new StopParsing();
            }
            break;
        }
      },
      text(text) {
        if (collecting === "v") raw += text;
        else if (collecting === "t") inline += text;
      },
    });
  } catch (error) {
    if (!(error instanceof StopParsing)) throw error;
  }
  // The used range: from the first to the last row and column holding a value; empty rows are left out.
  let minColumn = Infinity;
  let maxColumn = -1;
  for (const row of cells.values()) {
    for (const column of row.keys()) {
      if (column < minColumn) minColumn = column;
      if (column > maxColumn) maxColumn = column;
    }
  }
  // The table is dense (every row as wide as the used range), so a sparse sheet — A1 and XFD1
  // over 50,000 rows — would be billions of empty cells: each row is counted against the
  // character budget as it will be written (at least a separator per cell), and rows stop there.
  const width = Math.max(0, maxColumn - minColumn + 1);
  const rows: string[][] = [];
  let written = 0;
  for (const r of [...cells.keys()].sort((a, b) => a - b)) {
    const row = cells.get(r)!;
    let cost = width * 3;
    for (const value of row.values()) cost += value.length;
    if (written + cost > ctx.charBudget && rows.length > 0) {
      truncated = true;
      break;
    }
    written += cost;
    rows.push(Array.from({ length: width }, (_, i) => row.get(minColumn + i) ?? ""));
  }
  return { rows, truncated };
}

export async function extractXlsx(pkg: OfficePackage, options: ExtractOptions): Promise<Extraction> {
  const zip = pkg.zip;
  const workbook = await readWorkbook(pkg);
  const strings = await readSharedStrings(zip, partOfKind(workbook, "sharedStrings", "xl/sharedStrings.xml"));
  const formats = await readCellFormats(zip, partOfKind(workbook, "styles", "xl/styles.xml"));
  const blocks: Block[] = [];
  const warnings: string[] = [];
  let chars = 0;
  let stoppedEarly = false;
  const names = workbook.sheets.map((s) => s.name);
  const { first, last } = selectedUnits(options.selection, names.length, "sheet", names);
  let lastRead = first - 1;
  for (const [index, sheet] of workbook.sheets.entries()) {
    if (index + 1 < first || index + 1 > last) continue;
    options.signal.throwIfAborted();
    if (chars > options.charBudget) {
      stoppedEarly = true;
      break;
    }
    lastRead = index + 1;
    options.progress?.({ progress: index + 2 - first, total: last - first + 1, message: "sheets read" });
    if (sheet.chart) {
      warnings.push(`sheet "${sheet.name}" is a chart sheet; charts are not extracted`);
      continue;
    }
    const xml = sheet.part ? await zip.readText(sheet.part) : null;
    if (xml === null) {
      warnings.push(`sheet "${sheet.name}" is listed but its part is missing`);
      continue;
    }
    if (sheet.hidden) warnings.push(`sheet "${sheet.name}" is hidden in the workbook; it is included`);
    const data = readSheet(xml, sheet.part!, {
      strings,
      formats,
      date1904: workbook.date1904,
      charBudget: options.charBudget - chars,
    });
    const block: Block = { type: "sheet", name: sheet.name, rows: data.rows };
    chars += textLength([block]);
    blocks.push(block);
    if (data.truncated) {
      stoppedEarly = true;
      break;
    }
  }
  return {
    format: "xlsx",
    blocks,
    counts: { sheets: workbook.sheets.length },
    range: { unit: "sheet", first, last: lastRead, wanted: last, total: names.length },
    warnings,
    stoppedEarly,
  };
}

export async function infoXlsx(pkg: OfficePackage): Promise<DocInfo> {
  const workbook = await readWorkbook(pkg);
  const props = await readProperties(pkg.zip);
  return {
    format: "xlsx",
    sheets: workbook.sheets.length,
    sheet_names: workbook.sheets.map((s) => s.name),
    title: props.title,
    author: props.author,
    subject: props.subject,
    created: props.created,
    modified: props.modified,
    encrypted: false,
    password_required: false,
    producer: props.producer,
  };
}
