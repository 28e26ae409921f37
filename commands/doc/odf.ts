/**
 * OpenDocument (ODF) text, spreadsheets and presentations, packaged (.odt/.ods/.odp: content.xml
 * in a zip) or flat (.fodt/.fods/.fodp: one XML file), with the same conventions as their Office
 * counterparts: headings by outline level, paragraphs, nested lists, tables and links (ODT, as
 * DOCX); one table per sheet (ODS, as XLSX); one section per slide, its title and its notes
 * (ODP, as PPTX). Repeated rows and cells (`number-rows-repeated`, `number-columns-repeated`) are
 * expanded only where text follows them, so a sheet that repeats an empty cell a million times
 * costs nothing.
 */

import { PtermError } from "../../core/errors.ts";
import { type Block, type ListItem, type Span, textLength } from "./blocks.ts";
import { type DocInfo, type Extraction, type ExtractOptions, selectedUnits } from "./types.ts";
import { child, childElements, descendants, isElement, parseXml, textContent, type XmlElement } from "./ooxml/xml.ts";
import type { ZipArchive } from "./zip.ts";

export type OdfFormat = "odt" | "ods" | "odp";

/** The kind an ODF mimetype names (also its template variants); null for other OpenDocument kinds. */
export function odfFormatOf(mimetype: string): OdfFormat | null {
  const kind = /^application\/vnd\.oasis\.opendocument\.(text|spreadsheet|presentation)(?:-template)?$/
    .exec(mimetype.trim())?.[1];
  return kind === "text" ? "odt" : kind === "spreadsheet" ? "ods" : kind === "presentation" ? "odp" : null;
}

/**
 * Memory per character of content.xml while its whole tree is held (estimated from the element
 * tree's objects, not measured as the DOCX reader's is): a part that would pass the memory
 * ceiling is refused up front.
 */
const BYTES_PER_XML_CHAR = 40;
const BASELINE_BYTES = 256 * 1024 * 1024;
/** A spreadsheet's grid (LibreOffice's limits): cells past it are no real cells. */
const MAX_COLUMNS = 16384;
const MAX_ROWS = 1048576;

function checkMemory(chars: number, memoryBytes: number): void {
  const allowed = Math.max(1024 * 1024, (memoryBytes - BASELINE_BYTES) / BYTES_PER_XML_CHAR);
  if (chars <= allowed) return;
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  throw new PtermError(
    "InputTooLarge",
    `the OpenDocument file's content is ${mib(chars)} of XML; reading it takes about ${BYTES_PER_XML_CHAR}× that ` +
      `in memory, more than the ${mib(memoryBytes)} ceiling (limits.memory_bytes in pterm.json) allows; ` +
      "split the document, or raise limits.memory_bytes.",
  );
}

/** The office:document (flat) or office:document-content root of the document, and its meta if any. */
export interface OdfSource {
  readonly content: XmlElement;
  readonly meta: XmlElement | undefined;
}

export async function odfFromZip(zip: ZipArchive, memoryBytes: number): Promise<OdfSource> {
  if ((await zip.readText("META-INF/manifest.xml"))?.includes("encryption-data")) {
    throw new PtermError(
      "EncryptedDocument",
      "the OpenDocument file is password-protected; pterm takes no passwords — remove the password in " +
        "LibreOffice, save a copy into the workspace and extract that.",
    );
  }
  const xml = await zip.readText("content.xml");
  if (xml === null) {
    throw new PtermError("CorruptInput", "the OpenDocument package has no content.xml; the file is damaged.");
  }
  checkMemory(xml.length, memoryBytes);
  const meta = await zip.readText("meta.xml");
  return { content: parseXml(xml, "content.xml"), meta: meta === null ? undefined : parseXml(meta, "meta.xml") };
}

export function odfFromFlat(xml: string, memoryBytes: number): OdfSource {
  checkMemory(xml.length, memoryBytes);
  const root = parseXml(xml, "the flat OpenDocument file");
  return { content: root, meta: root };
}

/** Bold and italic text styles (automatic and common), by name. */
interface Emphasis {
  readonly bold: Set<string>;
  readonly italic: Set<string>;
}

function emphasisStyles(source: OdfSource): Emphasis {
  const bold = new Set<string>();
  const italic = new Set<string>();
  for (const style of descendants(source.content, "style")) {
    const props = child(style, "text-properties");
    if (!props || !style.attrs.name) continue;
    if (/^(bold|[6-9]00)$/.test(props.attrs["font-weight"] ?? "")) bold.add(style.attrs.name);
    if (/^(italic|oblique)$/.test(props.attrs["font-style"] ?? "")) italic.add(style.attrs.name);
  }
  return { bold, italic };
}

/**
 * The emphasis styles of the document being read: set by `extractOdf` before it reads (it runs
 * synchronously from there to its end, so no other document's read interleaves).
 */
let emphasis: Emphasis = { bold: new Set(), italic: new Set() };

/** Text of a paragraph-like element: spaces (`text:s`), tabs, line breaks, links and emphasis as ODF means them. */
function spansOf(element: XmlElement, spans: Span[] = [], href?: string, style: Omit<Span, "text"> = {}): Span[] {
  for (const node of element.children) {
    if (!isElement(node)) {
      spans.push({ text: node, ...style, ...(href ? { href } : {}) });
      continue;
    }
    switch (node.name) {
      case "s":
        spans.push({ text: " ".repeat(Math.min(Number(node.attrs.c ?? 1) || 1, 100)) });
        break;
      case "tab":
        spans.push({ text: "\t" });
        break;
      case "line-break":
        spans.push({ text: "\n" });
        break;
      case "a":
        spansOf(node, spans, node.attrs.href, style);
        break;
      case "span": {
        const name = node.attrs["style-name"] ?? "";
        spansOf(node, spans, href, {
          ...style,
          ...(emphasis.bold.has(name) ? { bold: true } : {}),
          ...(emphasis.italic.has(name) ? { italic: true } : {}),
        });
        break;
      }
      case "note":
      case "annotation":
      case "bookmark-ref":
      case "sequence-ref":
        break;
      default:
        spansOf(node, spans, href, style);
    }
  }
  return spans;
}

function trimmed(spans: Span[]): Span[] {
  const text = spans.map((s) => s.text).join("");
  return text.trim() === "" ? [] : spans;
}

/** The list styles whose first level is numbered (`text:list-level-style-number`): their lists are ordered. */
function orderedListStyles(source: OdfSource): Set<string> {
  const ordered = new Set<string>();
  for (const style of descendants(source.content, "list-style")) {
    const first = childElements(style).find((level) => level.name.startsWith("list-level-style"));
    if (first?.name === "list-level-style-number" && style.attrs.name) ordered.add(style.attrs.name);
  }
  return ordered;
}

/** ODT's body (and a text box's): headings, paragraphs, lists, tables, in document order. */
function textBlocks(parent: XmlElement, out: Block[], budget: { left: number }, ordered: Set<string>): void {
  for (const node of childElements(parent)) {
    if (budget.left < 0) return;
    const before = out.length;
    switch (node.name) {
      case "h": {
        const spans = trimmed(spansOf(node));
        const level = Math.min(6, Math.max(1, Number(node.attrs["outline-level"] ?? 1) || 1));
        if (spans.length) out.push({ type: "heading", level, spans });
        break;
      }
      case "p": {
        const spans = trimmed(spansOf(node));
        if (spans.length) out.push({ type: "paragraph", spans });
        // Frames anchored in the paragraph (text boxes) hold text of their own.
        for (const box of descendants(node, "text-box")) textBlocks(box, out, budget, ordered);
        break;
      }
      case "list": {
        const items: ListItem[] = [];
        listItems(node, 0, items, ordered.has(node.attrs["style-name"] ?? ""));
        if (items.length) out.push({ type: "list", items });
        break;
      }
      case "table":
        out.push({ type: "table", rows: tableRows(node, budget) });
        break;
      case "section":
      case "index-body":
      case "table-of-content":
      case "alphabetical-index":
      case "illustration-index":
      case "table-index":
      case "user-index":
      case "bibliography":
      case "text":
      case "body":
        textBlocks(node, out, budget, ordered);
        break;
    }
    budget.left -= textLength(out.slice(before));
  }
}

function listItems(list: XmlElement, depth: number, items: ListItem[], ordered: boolean): void {
  for (const item of childElements(list)) {
    if (item.name !== "list-item" && item.name !== "list-header") continue;
    for (const part of childElements(item)) {
      if (part.name === "list") listItems(part, Math.min(depth + 1, 12), items, ordered);
      else if (part.name === "p" || part.name === "h") {
        const spans = trimmed(spansOf(part));
        if (spans.length) items.push({ spans, depth, ordered });
      }
    }
  }
}

/** The cell's text: its paragraphs, one per line. */
function cellText(cell: XmlElement): string {
  return childElements(cell).filter((p) => p.name === "p" || p.name === "h" || p.name === "list")
    .map((p) => p.name === "list" ? textContent(p) : spansOf(p).map((s) => s.text).join("")).join("\n").trim();
}

/** The rows of a table:table, repeats expanded only where text follows, trailing empty cells and rows dropped. */
function tableRows(table: XmlElement, budget: { left: number }): string[][] {
  const rows: string[][] = [];
  let pendingEmptyRows = 0;
  const visitRows = (parent: XmlElement) => {
    for (const node of childElements(parent)) {
      if (node.name === "table-header-rows" || node.name === "table-rows" || node.name === "table-row-group") {
        visitRows(node);
        continue;
      }
      if (node.name !== "table-row") continue;
      const cells: string[] = [];
      let pendingEmptyCells = 0;
      for (const cell of childElements(node)) {
        if (cell.name !== "table-cell" && cell.name !== "covered-table-cell") continue;
        const repeat = Math.max(1, Number(cell.attrs["number-columns-repeated"] ?? 1) || 1);
        const text = cell.name === "table-cell" ? cellText(cell) : "";
        if (text === "") {
          pendingEmptyCells += repeat;
          continue;
        }
        if (cells.length + pendingEmptyCells + repeat > MAX_COLUMNS) break;
        for (; pendingEmptyCells > 0; pendingEmptyCells--) cells.push("");
        for (let i = 0; i < repeat; i++) cells.push(text);
      }
      const repeatRows = Math.max(1, Number(node.attrs["number-rows-repeated"] ?? 1) || 1);
      if (cells.length === 0) {
        pendingEmptyRows += repeatRows;
        continue;
      }
      if (rows.length + pendingEmptyRows + repeatRows > MAX_ROWS) return;
      for (; pendingEmptyRows > 0; pendingEmptyRows--) rows.push([]);
      for (let i = 0; i < repeatRows && budget.left >= 0; i++) {
        rows.push(cells);
        budget.left -= cells.join(" | ").length + 4;
      }
      if (budget.left < 0) return;
    }
  };
  visitRows(table);
  const width = rows.reduce((w, row) => Math.max(w, row.length), 0);
  return rows.map((row) => row.length === width ? row : [...row, ...Array(width - row.length).fill("")]);
}

function officeBody(source: OdfSource, kind: string): XmlElement {
  const body = child(child(source.content, "body"), kind);
  if (!body) {
    throw new PtermError("CorruptInput", `the OpenDocument file has no office:${kind} body; the file is damaged.`);
  }
  return body;
}

function slideBlocks(page: XmlElement, number: number, ordered: Set<string>): Block {
  let title: string | null = null;
  const blocks: Block[] = [];
  const budget = { left: Number.POSITIVE_INFINITY };
  // Reading order, as for PPTX: top to bottom, then left to right (shapes without a place first).
  const place = (e: XmlElement, axis: "x" | "y") => Number.parseFloat(e.attrs[axis] ?? "") || Number.NEGATIVE_INFINITY;
  const shapes = childElements(page).map((shape, order) => ({ shape, order }))
    .sort((a, b) =>
      place(a.shape, "y") - place(b.shape, "y") || place(a.shape, "x") - place(b.shape, "x") || a.order - b.order
    ).map((entry) => entry.shape);
  for (const frame of shapes) {
    if (frame.name === "notes") continue;
    const cls = frame.attrs.class;
    for (const box of [...(frame.name === "frame" ? childElements(frame) : [frame])]) {
      if (box.name === "text-box" || box.name === "custom-shape" || box.name === "rect") {
        if (cls === "title" && title === null) {
          title = textContent(box).replace(/\s+/g, " ").trim() || null;
          continue;
        }
        textBlocks(box, blocks, budget, ordered);
      } else if (box.name === "table") {
        blocks.push({ type: "table", rows: tableRows(box, budget) });
      }
    }
  }
  const notes: Block[] = [];
  for (const note of childElements(page, "notes")) {
    for (const frame of childElements(note, "frame")) {
      if (frame.attrs.class !== "notes") continue;
      for (const box of childElements(frame, "text-box")) textBlocks(box, notes, budget, ordered);
    }
  }
  return { type: "slide", number, title, blocks, notes };
}

export function extractOdf(format: OdfFormat, source: OdfSource, options: ExtractOptions): Extraction {
  options.signal.throwIfAborted();
  const budget = { left: options.charBudget };
  const ordered = orderedListStyles(source);
  emphasis = emphasisStyles(source);
  if (format === "odt") {
    const blocks: Block[] = [];
    textBlocks(officeBody(source, "text"), blocks, budget, ordered);
    return { format, blocks, counts: {}, warnings: [], stoppedEarly: budget.left < 0 };
  }
  const body = officeBody(source, format === "ods" ? "spreadsheet" : "presentation");
  const units = childElements(body, format === "ods" ? "table" : "page");
  const names = units.map((unit, i) => unit.attrs.name ?? `${format === "ods" ? "Sheet" : "Slide"} ${i + 1}`);
  const unit = format === "ods" ? "sheet" : "slide";
  const { first, last } = selectedUnits(options.selection, units.length, unit, format === "ods" ? names : []);
  const blocks: Block[] = [];
  let lastRead = first - 1;
  for (let n = first; n <= last; n++) {
    if (budget.left < 0) break;
    options.signal.throwIfAborted();
    const block: Block = format === "ods"
      ? { type: "sheet", name: names[n - 1], rows: tableRows(units[n - 1], budget) }
      : slideBlocks(units[n - 1], n, ordered);
    if (format === "odp") budget.left -= textLength([block]);
    blocks.push(block);
    lastRead = n;
  }
  return {
    format,
    blocks,
    counts: format === "ods" ? { sheets: units.length } : { slides: units.length },
    range: { unit, first, last: lastRead, wanted: last, total: units.length },
    warnings: [],
    stoppedEarly: budget.left < 0,
  };
}

export function infoOdf(format: OdfFormat, source: OdfSource): DocInfo {
  const meta = child(source.meta, "meta");
  const text = (name: string) => textContent(child(meta, name)).trim() || null;
  const body = child(child(source.content, "body"), format === "ods" ? "spreadsheet" : "presentation");
  const units = format === "odt" ? [] : childElements(body ?? source.content, format === "ods" ? "table" : "page");
  return {
    format,
    ...(format === "ods" ? { sheets: units.length, sheet_names: units.map((u) => u.attrs.name ?? "") } : {}),
    ...(format === "odp" ? { slides: units.length } : {}),
    title: text("title"),
    author: text("initial-creator") ?? text("creator"),
    subject: text("subject"),
    created: text("creation-date"),
    modified: text("date"),
    producer: text("generator"),
    encrypted: false,
    password_required: false,
  };
}
