/**
 * PPTX, the way markitdown presents it: slides in presentation order, each shape's text in
 * reading order (top to bottom, then left to right), the title placeholder as the heading,
 * tables as tables, pictures by their alt text, charts as a table of their data, SmartArt's
 * text, and the speaker notes.
 */

import { PtermError } from "../../../core/errors.ts";
import { type Block, type ListItem, type Span, textLength } from "../blocks.ts";
import {
  type DocumentProperties,
  type OfficePackage,
  readProperties,
  readRelationships,
  relationshipOfKind,
} from "./ooxml.ts";
import type { Relationship } from "./ooxml.ts";
import { type DocInfo, type Extraction, type ExtractOptions, selectedUnits } from "../types.ts";
import { chartBlocks, diagramBlocks } from "./drawingml.ts";
import { child, childElements, parseXml, path, relationshipAttr, textContent, type XmlElement } from "./xml.ts";
import type { ZipArchive } from "../zip.ts";

const TITLE_TYPES = new Set(["title", "ctrTitle"]);
/** Placeholders that repeat page furniture, not content. */
const FURNITURE_TYPES = new Set(["sldNum", "dt", "ftr", "hdr", "sldImg"]);
/** Body-like placeholders whose paragraphs are bulleted unless they say otherwise. */
const BULLETED_TYPES = new Set(["body", "obj", ""]);

interface Positioned {
  readonly top: number;
  readonly left: number;
  readonly order: number;
  readonly blocks: Block[];
  readonly title?: string;
}

async function slideParts({ zip, mainPart: presentationPart }: OfficePackage): Promise<string[]> {
  const xml = await zip.readText(presentationPart);
  if (xml === null) throw new PtermError("CorruptInput", `the presentation has no ${presentationPart} part.`);
  const root = parseXml(xml, presentationPart);
  const rels = await readRelationships(zip, presentationPart);
  const parts: string[] = [];
  for (const id of childElements(child(root, "sldIdLst") ?? root, "sldId")) {
    const rel = rels.get(relationshipAttr(id, "id") ?? "");
    if (rel && !rel.external) parts.push(rel.target);
  }
  return parts;
}

function placeholderType(shape: XmlElement): string | null {
  const nv = childElements(shape).find((c) => c.name.startsWith("nv"));
  const ph = path(nv, "nvPr", "ph");
  return ph ? (ph.attrs.type ?? "") : null;
}

function position(shape: XmlElement): { top: number; left: number } {
  const xfrm = path(shape, "spPr", "xfrm") ?? child(shape, "xfrm") ?? path(shape, "grpSpPr", "xfrm");
  const off = child(xfrm, "off");
  // Shapes that inherit their place from the layout have none here; like markitdown, they sort first.
  return {
    top: off ? Number(off.attrs.y ?? 0) : Number.NEGATIVE_INFINITY,
    left: off ? Number(off.attrs.x ?? 0) : Number.NEGATIVE_INFINITY,
  };
}

function runSpans(paragraph: XmlElement, rels: Map<string, Relationship>): Span[] {
  const spans: Span[] = [];
  for (const node of childElements(paragraph)) {
    if (node.name === "r" || node.name === "fld") {
      const props = child(node, "rPr");
      const link = child(props, "hlinkClick");
      const rel = link ? rels.get(relationshipAttr(link, "id") ?? "") : undefined;
      spans.push({
        text: textContent(child(node, "t")),
        bold: props?.attrs.b === "1" || props?.attrs.b === "true",
        italic: props?.attrs.i === "1" || props?.attrs.i === "true",
        href: rel?.external ? rel.target : undefined,
      });
    } else if (node.name === "br") {
      spans.push({ text: "\n" });
    }
  }
  return spans;
}

/** The text body of a shape or a table cell as blocks: bulleted runs of paragraphs become lists. */
function textBodyBlocks(body: XmlElement | undefined, bulletedByDefault: boolean, rels: Map<string, Relationship>) {
  const blocks: Block[] = [];
  let list: ListItem[] | null = null;
  for (const paragraph of childElements(body ?? { name: "", attrs: {}, children: [] }, "p")) {
    const spans = runSpans(paragraph, rels);
    if (!spans.some((s) => s.text.trim())) continue;
    const props = child(paragraph, "pPr");
    const numbered = child(props, "buAutoNum") !== undefined;
    const bulleted = numbered || child(props, "buChar") !== undefined ||
      (bulletedByDefault && child(props, "buNone") === undefined);
    if (bulleted) {
      if (list === null) {
        list = [];
        blocks.push({ type: "list", items: list });
      }
      list.push({ spans, depth: Number(props?.attrs.lvl ?? 0) || 0, ordered: numbered });
    } else {
      list = null;
      blocks.push({ type: "paragraph", spans });
    }
  }
  return blocks;
}

/** A paragraph's text with its line breaks (`<a:br/>`) kept as `\n`: textContent would glue the words. */
function paragraphText(paragraph: XmlElement): string {
  let text = "";
  for (const node of childElements(paragraph)) {
    if (node.name === "br") text += "\n";
    else if (node.name === "r" || node.name === "fld") text += textContent(child(node, "t"));
  }
  return text;
}

function tableRows(table: XmlElement): string[][] {
  return childElements(table, "tr").map((row) =>
    childElements(row, "tc").map((cell) => {
      if (cell.attrs.hMerge === "1" || cell.attrs.vMerge === "1") return "";
      return childElements(child(cell, "txBody") ?? cell, "p").map(paragraphText).join("\n").trim();
    })
  );
}

async function shapesOf(
  container: XmlElement,
  rels: Map<string, Relationship>,
  zip: ZipArchive,
  warnings: Set<string>,
): Promise<Positioned[]> {
  const shapes: Positioned[] = [];
  let order = 0;
  for (const shape of childElements(container)) {
    const { top, left } = position(shape);
    const place = { top, left, order: order++ };
    switch (shape.name) {
      case "sp": {
        const type = placeholderType(shape);
        if (type !== null && FURNITURE_TYPES.has(type)) continue;
        const body = child(shape, "txBody");
        if (type !== null && TITLE_TYPES.has(type)) {
          const title = childElements(body ?? shape, "p").map(paragraphText).join(" ").replace(/\s+/g, " ")
            .trim();
          if (title) shapes.push({ ...place, blocks: [], title });
          continue;
        }
        const blocks = textBodyBlocks(body, type !== null && BULLETED_TYPES.has(type), rels);
        if (blocks.length) shapes.push({ ...place, blocks });
        break;
      }
      case "pic": {
        const alt = (path(shape, "nvPicPr", "cNvPr")?.attrs.descr ?? "").trim();
        if (alt) shapes.push({ ...place, blocks: [{ type: "image", alt }] });
        else warnings.add("pictures without alt text are left out (pterm does not OCR images)");
        break;
      }
      case "graphicFrame": {
        const data = path(shape, "graphic", "graphicData");
        const table = child(data, "tbl");
        if (table) {
          shapes.push({ ...place, blocks: [{ type: "table", rows: tableRows(table) }] });
          break;
        }
        const chart = child(data, "chart");
        if (chart) {
          shapes.push({ ...place, blocks: await chartBlocks(zip, rels.get(relationshipAttr(chart, "id") ?? "")) });
          break;
        }
        // SmartArt: its text lives in the diagram's data part (r:dm), not in the slide.
        const diagram = child(data, "relIds");
        if (diagram) {
          const blocks = await diagramBlocks(zip, rels.get(relationshipAttr(diagram, "dm") ?? ""));
          if (blocks.length) shapes.push({ ...place, blocks });
        }
        break;
      }
      case "grpSp": {
        // A group is read as one unit at its own place; inside it, its shapes keep their reading order.
        const inner = await shapesOf(shape, rels, zip, warnings);
        sortReadingOrder(inner);
        const title = inner.find((s) => s.title)?.title;
        shapes.push({ ...place, blocks: inner.flatMap((s) => s.blocks), title });
        break;
      }
      case "AlternateContent": {
        const choice = child(shape, "Choice") ?? child(shape, "Fallback");
        if (choice) shapes.push(...(await shapesOf(choice, rels, zip, warnings)));
        break;
      }
    }
  }
  return shapes;
}

function sortReadingOrder(shapes: Positioned[]): void {
  shapes.sort((a, b) => a.top - b.top || a.left - b.left || a.order - b.order);
}

async function notesOf(zip: ZipArchive, rels: Map<string, Relationship>): Promise<Block[]> {
  const rel = relationshipOfKind(rels, "notesSlide");
  if (!rel || rel.external) return [];
  const xml = await zip.readText(rel.target);
  if (xml === null) return [];
  const tree = path(parseXml(xml, rel.target), "cSld", "spTree");
  if (!tree) return [];
  const notesRels = await readRelationships(zip, rel.target);
  const shapes = childElements(tree, "sp").filter((s) => {
    const type = placeholderType(s);
    return type === null || !FURNITURE_TYPES.has(type);
  });
  // Office puts the notes in the body placeholder; other producers use a plain text box.
  const body = shapes.find((s) => placeholderType(s) === "body");
  return (body ? [body] : shapes).flatMap((s) => textBodyBlocks(child(s, "txBody"), false, notesRels));
}

export async function extractPptx(pkg: OfficePackage, options: ExtractOptions): Promise<Extraction> {
  const zip = pkg.zip;
  const parts = await slideParts(pkg);
  const { first, last } = selectedUnits(options.selection, parts.length, "slide");
  const blocks: Block[] = [];
  const warnings = new Set<string>();
  let stoppedEarly = false;
  let chars = 0;
  let lastRead = first - 1;
  for (const [index, part] of parts.entries()) {
    if (index + 1 < first || index + 1 > last) continue;
    options.signal.throwIfAborted();
    if (chars > options.charBudget) {
      stoppedEarly = true;
      break;
    }
    lastRead = index + 1;
    options.progress?.({ progress: index + 2 - first, total: last - first + 1, message: "slides read" });
    const xml = await zip.readText(part);
    if (xml === null) {
      warnings.add(`slide ${index + 1} is listed but its part ${part} is missing`);
      continue;
    }
    const slide = parseXml(xml, part);
    const rels = await readRelationships(zip, part);
    const tree = path(slide, "cSld", "spTree");
    const shapes = tree ? await shapesOf(tree, rels, zip, warnings) : [];
    sortReadingOrder(shapes);
    const titleShape = shapes.find((s) => s.title);
    const body = shapes.flatMap((s) => (s === titleShape ? [] : [
      ...(s.title ? [{ type: "heading", level: 2, spans: [{ text: s.title }] } as Block] : []),
      ...s.blocks,
    ]));
    const notes = await notesOf(zip, rels);
    const block: Block = { type: "slide", number: index + 1, title: titleShape?.title ?? null, blocks: body, notes };
    chars += textLength([block]);
    blocks.push(block);
  }
  return {
    format: "pptx",
    blocks,
    counts: { slides: parts.length },
    range: { unit: "slide", first, last: lastRead, wanted: last, total: parts.length },
    warnings: [...warnings],
    stoppedEarly,
  };
}

export async function infoPptx(pkg: OfficePackage): Promise<DocInfo> {
  const props: DocumentProperties = await readProperties(pkg.zip);
  return {
    format: "pptx",
    slides: (await slideParts(pkg)).length,
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
