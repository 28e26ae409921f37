/**
 * DOCX: WordprocessingML read straight into pterm's blocks, as a stream.
 *
 * The main document part is parsed (xml.ts) one top-level element of the body at a time (a
 * paragraph, a table, a content control): that element becomes a small element tree, is turned
 * into blocks and dropped, so memory holds the part's text, the blocks made so far and one
 * body element — not a tree of the whole document, its model and an HTML rendering of it, as
 * mammoth did (about 100 bytes of memory per byte of document.xml, measured: a 5 MB part killed
 * the process). Once the blocks hold clearly more than the output may take, reading stops.
 *
 * What is read: headings (the `Heading 1`…`6` styles, as mammoth and markitdown map them), list
 * paragraphs with Word's own numbers (numbering.ts), tables (merged cells keep their column; a
 * cell's paragraphs, line breaks and nested tables stay apart), hyperlinks (relationships and
 * HYPERLINK fields), bold and italic, footnotes and endnotes (as a numbered list at the end,
 * referenced `[n]`), text boxes (after the paragraph that anchors them), pictures' alt text,
 * equations as LaTeX (omml.ts), symbols of the Symbol font, content controls, insertions and
 * moves (their new place), HTML altChunks (altchunk.ts). Not read: deleted text, comments,
 * headers and footers, charts and SmartArt in Word documents.
 */

import { PtermError } from "../../../core/errors.ts";
import { type Block, type ListItem, plain, type Span } from "../blocks.ts";
import {
  type OfficePackage,
  readProperties,
  readRelationships,
  type Relationship,
  relationshipOfKind,
} from "./ooxml.ts";
import type { DocInfo, Extraction, ExtractOptions } from "../types.ts";
import {
  attributesOf,
  childElements,
  isElement,
  MAX_XML_DEPTH,
  parseXml,
  saxParse,
  StopParsing,
  type XmlElement,
} from "./xml.ts";
import { decodeXmlText, type ZipArchive } from "../zip.ts";
import { readAltChunk } from "./altchunk.ts";
import { equationLatex } from "./omml.ts";
import { Counters, type Numbering, paragraphNumbering, readNumbering } from "./numbering.ts";

/**
 * Memory the reader needs per character of document.xml, measured (peak RSS over the baseline of
 * a pterm process) on mammoth's tables.docx and pandoc's lists.docx grown to 5 and 20 MiB: the
 * part's bytes and text, one body element's tree and the blocks. A part that
 * would pass the memory ceiling is refused up front with InputTooLarge.
 */
const BYTES_PER_XML_CHAR = 12;
const BASELINE_BYTES = 256 * 1024 * 1024;

function checkMemoryBudget(xmlBytes: number, memoryBytes: number, part: string): void {
  const allowed = Math.max(1024 * 1024, (memoryBytes - BASELINE_BYTES) / BYTES_PER_XML_CHAR);
  if (xmlBytes <= allowed) return;
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  throw new PtermError(
    "InputTooLarge",
    `the Word document's text part (${part}) is ${mib(xmlBytes)}; reading it takes about ` +
      `${BYTES_PER_XML_CHAR}× that in memory, and the ${mib(memoryBytes)} memory ceiling ` +
      `(limits.memory_bytes in pterm.json) allows ${mib(allowed)}; split the document, or raise limits.memory_bytes.`,
  );
}

/** Where a paragraph's style makes it a heading (mammoth's and markitdown's default map: `Heading 1`…`6`). */
function headingLevel(styleId: string | undefined, styleName: string | undefined): number | null {
  const byId = styleId === undefined ? null : /^Heading([1-6]?)$/.exec(styleId);
  const byName = styleName === undefined ? null : /^(?:[Hh]eading ([1-6])|Heading())$/.exec(styleName);
  const digit = byId?.[1] ?? byName?.[1] ?? byName?.[2];
  if (digit === undefined) return null;
  return digit === "" ? 1 : Number(digit);
}

/** Characters of the Symbol font (`w:sym w:font="Symbol"`) from 0x20, as Unicode. */
const SYMBOL_FONT = " !∀#∃%&∋()∗+,−./0123456789:;<=>?≅ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ[∴]⊥_‾αβχδεφγηιϕκλμνοπθρστυϖωξψζ{|}∼";
const SYMBOL_FONT_HIGH = "€ϒ′≤⁄∞ƒ♣♦♥♠↔←↑→↓°±″≥×∝∂•÷≠≡≈…⏐⎯↵ℵℑℜ℘⊗⊕∅∩∪⊃⊇⊄⊂⊆∈∉∠∇®©™∏√⋅¬∧∨⇔⇐⇑⇒⇓◊〈®©™∑";

function symbolCharacter(font: string | undefined, hex: string | undefined): string | null {
  const code = Number.parseInt(hex ?? "", 16);
  if (!Number.isFinite(code)) return null;
  const low = code >= 0xF000 && code <= 0xF0FF ? code - 0xF000 : code;
  if (/^symbol$/i.test(font ?? "")) {
    if (low >= 0x20 && low < 0x20 + SYMBOL_FONT.length) return [...SYMBOL_FONT][low - 0x20];
    const high = [...SYMBOL_FONT_HIGH];
    if (low >= 0xA0 && low < 0xA0 + high.length) return high[low - 0xA0];
    if (low === 0xF1) return "〉";
    if (low === 0xF2) return "∫";
    return null;
  }
  // Other fonts' private-use codes (Wingdings and the like) have no Unicode meaning.
  return code < 0xE000 || code > 0xF8FF ? String.fromCodePoint(code) : null;
}

interface RunStyle {
  readonly bold?: boolean;
  readonly italic?: boolean;
  readonly href?: string;
}

/** A paragraph once read: the list item it is, or a heading or paragraph, and what it anchors. */
type Item =
  | Block
  | { readonly type: "item"; readonly item: ListItem }
  /** Where an altChunk stood (its index in `chunkIds`): read after the stream, since reading a part is async. */
  | { readonly type: "chunk"; readonly index: number };

interface Field {
  instruction: string;
  separated: boolean;
  href?: string;
}

interface StyleInfo {
  readonly name?: string;
}

const val = (element: XmlElement | undefined): string | undefined => element?.attrs.val;

function on(element: XmlElement | undefined): boolean {
  if (!element) return false;
  const value = element.attrs.val;
  return value !== "false" && value !== "0" && value !== "off";
}

function firstChild(element: XmlElement | undefined, name: string): XmlElement | undefined {
  if (!element) return undefined;
  for (const c of element.children) if (isElement(c) && c.name === name) return c;
  return undefined;
}

function descendantsNamed(element: XmlElement, names: ReadonlySet<string>, out: XmlElement[] = []): XmlElement[] {
  for (const c of element.children) {
    if (!isElement(c)) continue;
    if (names.has(c.name)) out.push(c);
    else descendantsNamed(c, names, out);
  }
  return out;
}

/**
 * A field's HYPERLINK target: `HYPERLINK "url"`, with `\\l "place"` as its fragment; a link to a
 * place in the document alone (`HYPERLINK \\l "bookmark"`) has none worth keeping.
 */
export function fieldHref(instruction: string): string | undefined {
  const match = /^\s*HYPERLINK\b(.*)$/s.exec(instruction);
  if (!match) return undefined;
  let url: string | undefined;
  let place: string | undefined;
  const tokens = [...match[1].matchAll(/"([^"]*)"|(\S+)/g)].map((m) => ({ quoted: m[1], bare: m[2] }));
  for (let i = 0; i < tokens.length; i++) {
    const { quoted, bare } = tokens[i];
    if (bare?.startsWith("\\")) {
      const value = tokens[i + 1];
      if (/^\\[lotm]$/i.test(bare) && value) {
        if (bare.toLowerCase() === "\\l") place = value.quoted ?? value.bare;
        i++;
      }
      continue;
    }
    url ??= quoted ?? bare;
  }
  if (!url) return undefined;
  return place ? `${url.replace(/#.*$/, "")}#${place}` : url;
}

/** The content of an `mc:AlternateContent`: its fallback (what every reader understands), else its first choice. */
function alternative(element: XmlElement): XmlElement | undefined {
  return firstChild(element, "Fallback") ?? firstChild(element, "Choice");
}

const TEXT_BOX_OR_IMAGE = new Set(["txbxContent", "imagedata"]);
const DRAWING_CONTENT = new Set(["txbxContent", "pic", "AlternateContent"]);

class WordReader {
  readonly counters: Counters | null;
  readonly notes: { kind: "footnote" | "endnote"; id: string }[] = [];
  images = 0;
  equations = 0;
  chunkIds: string[] = [];
  readonly warnings = new Set<string>();
  readonly #fields: Field[] = [];
  /** Content of paragraphs whose mark was deleted (a tracked change): it joins the next paragraph. */
  #carried: Span[] = [];

  constructor(
    readonly numbering: Numbering | null,
    readonly styles: Map<string, StyleInfo>,
    /** The relationships of the part being read (the main document's, then the notes'). */
    public rels: Map<string, Relationship>,
  ) {
    this.counters = numbering ? new Counters(numbering) : null;
  }

  /** The blocks of a body-level element (or of a cell's, a text box's or a note's content). */
  blocks(element: XmlElement, out: Item[]): void {
    switch (element.name) {
      case "p":
        this.paragraph(element, out);
        return;
      case "tbl":
        out.push({ type: "table", rows: this.table(element) });
        return;
      case "sdt":
        this.blockChildren(firstChild(element, "sdtContent"), out);
        return;
      case "customXml":
      case "ins":
      case "moveTo":
      case "smartTag":
      case "txbxContent":
      case "body":
      case "footnote":
      case "endnote":
        this.blockChildren(element, out);
        return;
      case "AlternateContent":
        this.blockChildren(alternative(element), out);
        return;
      case "altChunk": {
        const id = element.attrs.id;
        this.chunkIds.push(id ?? "");
        out.push({ type: "chunk", index: this.chunkIds.length - 1 });
        return;
      }
      case "oMathPara":
      case "oMath": {
        const spans: Span[] = [];
        this.inline(element, {}, spans, out);
        out.push({ type: "paragraph", spans });
        return;
      }
      default:
        return; // sectPr, bookmarks, deleted content, properties
    }
  }

  blockChildren(element: XmlElement | undefined, out: Item[]): void {
    for (const c of element?.children ?? []) if (isElement(c)) this.blocks(c, out);
  }

  paragraph(p: XmlElement, out: Item[]): void {
    const pPr = firstChild(p, "pPr");
    const styleId = val(firstChild(pPr, "pStyle"));
    const numPr = firstChild(pPr, "numPr");
    const numId = val(firstChild(numPr, "numId"));
    const ilvlText = val(firstChild(numPr, "ilvl"));
    const ilvl = ilvlText === undefined ? undefined : Number.parseInt(ilvlText, 10) || 0;
    // Counted when the paragraph starts, before the text boxes it anchors (the order Word counts in).
    const which = this.numbering ? paragraphNumbering(this.numbering, styleId, numId, ilvl) : null;
    const numbered = which && this.counters ? this.counters.next(which.numId, which.ilvl) : null;
    const extras: Item[] = [];
    const spans: Span[] = this.#carried;
    this.#carried = [];
    for (const c of p.children) if (isElement(c) && c.name !== "pPr") this.inline(c, {}, spans, extras);
    if (on(firstChild(firstChild(pPr, "rPr"), "del"))) {
      // A deleted paragraph mark: Word shows this paragraph's text at the start of the next one.
      this.#carried = spans;
      out.push(...extras);
      return;
    }
    const level = headingLevel(styleId, styleId === undefined ? undefined : this.styles.get(styleId)?.name);
    const label = numbered?.label ?? null;
    if (!plain(spans).trim()) {
      // An empty paragraph is spacing, not content (as mammoth and markitdown drop it).
    } else if (level !== null) {
      out.push({ type: "heading", level, spans: label ? [{ text: `${label} ` }, ...spans] : spans });
    } else if (numbered && which) {
      out.push({
        type: "item",
        item: { spans, depth: which.ilvl, ordered: numbered.ordered, ...(label === null ? {} : { label }) },
      });
    } else {
      out.push({ type: "paragraph", spans });
    }
    out.push(...extras);
  }

  /** Inline content: runs and what holds them. Text boxes and VML pictures go to `extras`. */
  inline(node: XmlElement, style: RunStyle, out: Span[], extras: Item[]): void {
    switch (node.name) {
      case "r":
        this.run(node, style, out, extras);
        return;
      case "hyperlink": {
        const rel = node.attrs.id === undefined ? undefined : this.rels.get(node.attrs.id);
        // A link to another part of the package (not a place a reader can open) is not kept.
        let href = rel?.external ? rel.target : undefined;
        if (href !== undefined && node.attrs.anchor) href = `${href.replace(/#.*$/, "")}#${node.attrs.anchor}`;
        this.inlineChildren(node, href ? { ...style, href } : style, out, extras);
        return;
      }
      case "fldSimple": {
        const href = fieldHref(node.attrs.instr ?? "");
        this.inlineChildren(node, href ? { ...style, href } : style, out, extras);
        return;
      }
      case "sdt":
        this.inlineChildren(firstChild(node, "sdtContent"), style, out, extras);
        return;
      case "ins":
      case "moveTo":
      case "smartTag":
      case "customXml":
      case "dir":
      case "bdo":
        this.inlineChildren(node, style, out, extras);
        return;
      case "AlternateContent": {
        const chosen = alternative(node);
        if (chosen) this.inlineChildren(chosen, style, out, extras);
        return;
      }
      case "oMath":
      case "oMathPara": {
        const latex = equationLatex(node);
        this.equations++;
        if (latex) out.push({ text: node.name === "oMathPara" ? `$$${latex}$$` : `$${latex}$`, ...style });
        return;
      }
      case "p":
      case "tbl":
        // A paragraph or table where only runs belong (a content control's block content): after this one.
        this.blocks(node, extras);
        return;
      default:
        return; // deleted text, bookmarks, comment ranges, properties
    }
  }

  inlineChildren(node: XmlElement | undefined, style: RunStyle, out: Span[], extras: Item[]): void {
    for (const c of node?.children ?? []) if (isElement(c)) this.inline(c, style, out, extras);
  }

  run(r: XmlElement, outer: RunStyle, out: Span[], extras: Item[]): void {
    const rPr = firstChild(r, "rPr");
    const runStyle = val(firstChild(rPr, "rStyle"));
    const strong = runStyle !== undefined && (runStyle === "Strong" || this.styles.get(runStyle)?.name === "Strong");
    const bold = on(firstChild(rPr, "b")) || strong;
    const italic = on(firstChild(rPr, "i"));
    const fieldLink = this.#fields.findLast((f) => f.separated && f.href !== undefined)?.href;
    const style: RunStyle = {
      ...outer,
      ...(bold ? { bold } : {}),
      ...(italic ? { italic } : {}),
      ...(fieldLink !== undefined && outer.href === undefined ? { href: fieldLink } : {}),
    };
    const text = (t: string) => {
      if (t) out.push({ text: t, ...style });
    };
    for (const c of r.children) {
      if (!isElement(c)) continue;
      switch (c.name) {
        case "t":
          text(c.children.filter((x): x is string => typeof x === "string").join(""));
          break;
        case "tab":
        case "ptab":
          text("\t");
          break;
        case "br": {
          const type = c.attrs.type;
          if (type === undefined || type === "textWrapping") text("\n");
          break;
        }
        case "cr":
          text("\n");
          break;
        case "noBreakHyphen":
          text("\u2011");
          break;
        case "softHyphen":
          text("\u00AD");
          break;
        case "sym": {
          const symbol = symbolCharacter(c.attrs.font, c.attrs.char);
          if (symbol === null) {
            this.warnings.add(
              `a symbol character (w:sym char ${c.attrs.char ?? "?"} in font ${c.attrs.font ?? "?"}) has no Unicode ` +
                "equivalent pterm knows and was left out",
            );
          } else text(symbol);
          break;
        }
        case "footnoteReference":
        case "endnoteReference":
          this.notes.push({ kind: c.name === "footnoteReference" ? "footnote" : "endnote", id: c.attrs.id ?? "" });
          text(`[${this.notes.length}]`);
          break;
        case "fldChar":
          this.fieldChar(c.attrs.fldCharType);
          break;
        case "instrText": {
          const field = this.#fields.at(-1);
          if (field && !field.separated) {
            field.instruction += c.children.filter((x): x is string => typeof x === "string").join("");
          }
          break;
        }
        case "drawing":
          this.drawing(c, style, out, extras);
          break;
        case "pict":
          this.pict(c, extras);
          break;
        case "object":
          for (const found of descendantsNamed(c, TEXT_BOX_OR_IMAGE)) this.vml(found, style, out, extras);
          break;
        case "AlternateContent": {
          const chosen = alternative(c);
          if (chosen) this.run({ ...r, children: chosen.children }, outer, out, extras);
          break;
        }
        case "oMath":
        case "oMathPara":
          this.inline(c, style, out, extras);
          break;
        default:
          break; // rPr, delText, annotation and note marks, page breaks
      }
    }
  }

  fieldChar(type: string | undefined): void {
    if (type === "begin") this.#fields.push({ instruction: "", separated: false });
    else if (type === "separate") {
      const field = this.#fields.at(-1);
      if (field && !field.separated) {
        field.separated = true;
        field.href = fieldHref(field.instruction);
      }
    } else if (type === "end") this.#fields.pop();
  }

  /** A DrawingML object: a picture (its alt text) or a shape holding a text box (its blocks after the paragraph). */
  drawing(drawing: XmlElement, style: RunStyle, out: Span[], extras: Item[]): void {
    for (const frame of childElements(drawing)) {
      const docPr = firstChild(frame, "docPr");
      const descr = docPr?.attrs.descr?.trim() ? docPr.attrs.descr : docPr?.attrs.title;
      this.drawingContent(frame, descr, style, out, extras);
    }
  }

  /** The pictures and text boxes inside a drawing's frame (`descr`: the frame's alt text). */
  drawingContent(element: XmlElement, descr: string | undefined, style: RunStyle, out: Span[], extras: Item[]): void {
    for (const found of descendantsNamed(element, DRAWING_CONTENT)) {
      if (found.name === "pic") {
        this.images++;
        if (descr?.trim()) out.push({ text: `[image: ${descr.trim()}]`, ...style });
      } else if (found.name === "txbxContent") this.blocks(found, extras);
      else {
        const chosen = alternative(found);
        if (chosen) this.drawingContent(chosen, descr, style, out, extras);
      }
    }
  }

  /** VML (`w:pict`): its pictures and text boxes, after the paragraph (where mammoth put them too). */
  pict(pict: XmlElement, extras: Item[]): void {
    for (const found of descendantsNamed(pict, TEXT_BOX_OR_IMAGE)) {
      if (found.name === "txbxContent") this.blocks(found, extras);
      else {
        this.images++;
        const title = found.attrs.title?.trim();
        if (title) extras.push({ type: "image", alt: title });
      }
    }
  }

  vml(found: XmlElement, style: RunStyle, out: Span[], extras: Item[]): void {
    if (found.name === "txbxContent") this.blocks(found, extras);
    else {
      this.images++;
      const title = found.attrs.title?.trim();
      if (title) out.push({ text: `[image: ${title}]`, ...style });
    }
  }

  /** A table's rows of cell texts; a merged cell keeps its columns (empty cells where it spans). */
  table(tbl: XmlElement): string[][] {
    const rows: string[][] = [];
    const visitRows = (parent: XmlElement) => {
      for (const tr of childElements(parent)) {
        if (tr.name === "tr") {
          const trPr = firstChild(tr, "trPr");
          if (firstChild(trPr, "del")) continue;
          const row: string[] = [];
          this.cells(tr, row);
          rows.push(row);
        } else if (tr.name === "sdt") visitRows(firstChild(tr, "sdtContent") ?? tr);
        else if (tr.name === "customXml" || tr.name === "ins" || tr.name === "moveTo") visitRows(tr);
      }
    };
    visitRows(tbl);
    return rows;
  }

  cells(tr: XmlElement, row: string[]): void {
    for (const tc of childElements(tr)) {
      if (tc.name === "sdt" || tc.name === "customXml") {
        this.cells(tc.name === "sdt" ? firstChild(tc, "sdtContent") ?? tc : tc, row);
        continue;
      }
      if (tc.name !== "tc") continue;
      const tcPr = firstChild(tc, "tcPr");
      const vMerge = firstChild(tcPr, "vMerge");
      const continued = vMerge !== undefined && (vMerge.attrs.val === undefined || vMerge.attrs.val === "continue");
      const content: Item[] = [];
      this.blockChildren(tc, content);
      row.push(continued ? "" : cellText(content));
      const span = Number.parseInt(val(firstChild(tcPr, "gridSpan")) ?? "1", 10);
      for (let i = 1; i < Math.min(span, 64); i++) row.push("");
    }
  }
}

/** A list item's line as a cell shows it: its number, then its text. */
function itemLine(item: ListItem): string {
  return (item.label ? `${item.label} ` : "") + plain(item.spans);
}

/**
 * A cell's text with its paragraphs, line breaks, list items and nested tables' rows on lines of
 * their own (`\n`, rendered `<br>` in Markdown and a space in text), never glued together:
 * `17,542` and `32,000` in two paragraphs must not read as `17,54232,000`.
 */
function cellText(items: readonly Item[]): string {
  const lines: string[] = [];
  for (const item of items) {
    switch (item.type) {
      case "item":
        lines.push(itemLine(item.item));
        break;
      case "heading":
      case "paragraph":
        lines.push(plain(item.spans));
        break;
      case "table":
        for (const row of item.rows) lines.push(row.join(" "));
        break;
      case "image":
        lines.push(`[image: ${item.alt.trim()}]`);
        break;
    }
  }
  return lines.join("\n").split("\n").map((line) => line.trim()).filter(Boolean).join("\n");
}

/** Consecutive list items become one list; a top-level item that turns numbers into bullets (or back) starts another. */
function groupLists(items: readonly Item[], out: Block[]): void {
  let list: ListItem[] | null = null;
  for (const item of items) {
    if (item.type === "item") {
      const switches = list !== null && item.item.depth === 0 && list[0].ordered !== item.item.ordered;
      if (list === null || switches) out.push({ type: "list", items: list = [] });
      list.push(item.item);
      continue;
    }
    list = null;
    if (item.type !== "chunk") out.push(item);
  }
}

/** The part of a package a relationship of the main document points to, or its usual name. */
function partOf(rels: Map<string, Relationship>, kind: string, fallback: string): string {
  const rel = relationshipOfKind(rels, kind);
  return rel && !rel.external ? rel.target : fallback;
}

async function readStyles(
  zip: ZipArchive,
  part: string,
): Promise<{ root: XmlElement | null; byId: Map<string, StyleInfo> }> {
  const byId = new Map<string, StyleInfo>();
  const xml = await zip.readText(part);
  if (xml === null) return { root: null, byId };
  const root = parseXml(xml, part);
  for (const style of childElements(root, "style")) {
    const id = style.attrs.styleId;
    if (id) byId.set(id, { name: val(firstChild(style, "name")) });
  }
  return { root, byId };
}

/** The notes of footnotes.xml or endnotes.xml, by id. */
async function readNotes(zip: ZipArchive, part: string): Promise<Map<string, XmlElement>> {
  const notes = new Map<string, XmlElement>();
  const xml = await zip.readText(part);
  if (xml === null) return notes;
  for (const note of childElements(parseXml(xml, part))) {
    if (note.attrs.id !== undefined) notes.set(note.attrs.id, note);
  }
  return notes;
}

/**
 * Streams the body of `xml` and hands each of its top-level elements, as a tree, to `each`.
 * Whitespace between elements is dropped (it is layout, not text) except inside `w:t`-like
 * text elements, where it is content.
 */
function streamBody(xml: string, part: string, each: (element: XmlElement) => void): void {
  const stack: XmlElement[] = [];
  let depth = 0;
  let bodyDepth = -1;
  saxParse(xml, part, {
    open(name, attrs) {
      depth++;
      if (depth > MAX_XML_DEPTH) {
        throw new PtermError(
          "InputTooLarge",
          `the document's part ${part} nests elements more than ${MAX_XML_DEPTH} deep, which no Office program ` +
            "writes; pterm does not read it — re-save the document from the program that made it.",
        );
      }
      if (bodyDepth < 0) {
        if (name === "body") bodyDepth = depth;
        return;
      }
      const element: XmlElement = { name, attrs: attributesOf(attrs), children: [] };
      if (stack.length > 0) stack[stack.length - 1].children.push(element);
      stack.push(element);
    },
    close() {
      depth--;
      if (bodyDepth < 0) return;
      if (depth < bodyDepth) {
        bodyDepth = -1;
        return;
      }
      const element = stack.pop();
      if (element && stack.length === 0) each(element);
    },
    text(text) {
      const top = stack[stack.length - 1];
      if (!top) return;
      if (top.name === "t" || top.name === "instrText" || text.trim() !== "") top.children.push(text);
    },
  });
}

export async function extractDocx(pkg: OfficePackage, options: ExtractOptions): Promise<Extraction> {
  options.signal.throwIfAborted();
  const { zip, mainPart: part } = pkg;
  const bytes = await zip.read(part);
  if (bytes === null) {
    throw new PtermError(
      "CorruptInput",
      `the Word document has no main part (${part}); the file is damaged — re-save it from Word or LibreOffice.`,
    );
  }
  checkMemoryBudget(bytes.length, options.memoryBytes, part);
  const rels = await readRelationships(zip, part);
  const styles = await readStyles(zip, partOf(rels, "styles", "word/styles.xml"));
  const numbering = await readNumbering(zip, partOf(rels, "numbering", "word/numbering.xml"), styles.root);
  const reader = new WordReader(numbering, styles.byId, rels);
  const items: Item[] = [];
  let chars = 0;
  let stoppedEarly = false;
  try {
    streamBody(decodeXmlText(bytes), part, (element) => {
      const before = items.length;
      reader.blocks(element, items);
      for (let i = before; i < items.length; i++) chars += itemLength(items[i]);
      if (chars > options.charBudget) {
        stoppedEarly = true;
        throw new StopParsing();
      }
    });
  } catch (error) {
    if (!(error instanceof StopParsing)) throw error;
  }
  options.signal.throwIfAborted();
  const warnings = [...reader.warnings];
  const withChunks = await resolveChunks(zip, rels, reader.chunkIds, items, warnings);
  const blocks: Block[] = [];
  groupLists(withChunks, blocks);
  if (!stoppedEarly && reader.notes.length > 0) {
    const footnotesPart = partOf(rels, "footnotes", "word/footnotes.xml");
    const endnotesPart = partOf(rels, "endnotes", "word/endnotes.xml");
    const footnotes = await readNotes(zip, footnotesPart);
    const endnotes = await readNotes(zip, endnotesPart);
    const notesRels = {
      footnote: await readRelationships(zip, footnotesPart),
      endnote: await readRelationships(zip, endnotesPart),
    };
    const noteItems: ListItem[] = [];
    for (const { kind, id } of reader.notes) {
      const note = (kind === "footnote" ? footnotes : endnotes).get(id);
      const content: Item[] = [];
      reader.rels = notesRels[kind];
      if (note) reader.blockChildren(note, content);
      const spans: Span[] = [];
      for (const item of content) {
        const more = item.type === "item"
          ? [{ text: item.item.label ? `${item.item.label} ` : "" }, ...item.item.spans]
          : item.type === "paragraph" || item.type === "heading"
          ? item.spans
          : item.type === "table"
          ? [{ text: item.rows.map((row) => row.join(" ")).join(" ") }]
          : [];
        if (spans.length > 0 && more.length > 0) spans.push({ text: " " });
        spans.push(...more);
      }
      noteItems.push({ spans, depth: 0, ordered: true });
    }
    blocks.push({ type: "list", items: noteItems });
  }
  if (reader.images > 0) {
    warnings.push(`${reader.images} picture(s): only their alt text is kept (pterm does not OCR images)`);
  }
  const props = await readProperties(zip);
  return {
    format: "docx",
    blocks,
    counts: {
      pages: props.appCounts.pages ?? null,
      paragraphs: blocks.filter((b) => b.type === "paragraph" || b.type === "heading").length,
      tables: blocks.filter((b) => b.type === "table").length,
    },
    warnings,
    stoppedEarly,
  };
}

function itemLength(item: Item): number {
  switch (item.type) {
    case "item":
      return plain(item.item.spans).length + 4;
    case "heading":
    case "paragraph":
      return plain(item.spans).length + 2;
    case "table":
      return item.rows.reduce((n, row) => n + row.reduce((m, cell) => m + cell.length + 3, 2), 0);
    case "image":
      return item.alt.length + 10;
    default:
      return 0;
  }
}

/** The altChunk placeholders replaced by their paragraphs; chunks pterm cannot read are warned about. */
async function resolveChunks(
  zip: ZipArchive,
  rels: Map<string, Relationship>,
  ids: readonly string[],
  items: Item[],
  warnings: string[],
): Promise<Item[]> {
  if (ids.length === 0) return items;
  let read = 0;
  const out: Item[] = [];
  for (const item of items) {
    if (item.type !== "chunk") {
      out.push(item);
      continue;
    }
    const paragraphs = await readAltChunk(zip, rels, ids[item.index]);
    if (paragraphs === null) continue;
    read++;
    for (const text of paragraphs) out.push({ type: "paragraph", spans: [{ text }] });
  }
  if (read > 0) {
    warnings.push(
      `${read} embedded HTML chunk(s) (w:altChunk) were read as plain paragraphs: ` +
        "their headings, lists and tables are not kept as such",
    );
  }
  if (ids.length > read) {
    warnings.push(
      `${ids.length - read} embedded chunk(s) of another format (w:altChunk: RTF or another document that Word ` +
        "converts when it opens the file) were not extracted; open the file in Word and save it as .docx to " +
        "convert them",
    );
  }
  return out;
}

export async function infoDocx(pkg: OfficePackage): Promise<DocInfo> {
  const props = await readProperties(pkg.zip);
  return {
    format: "docx",
    pages: props.appCounts.pages ?? null,
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
