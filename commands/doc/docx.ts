/**
 * DOCX through mammoth, which understands Word's styles, numbering, tables, links and notes
 * and writes simple semantic HTML; that HTML is then read into blocks. mammoth reads the
 * package through our bounded ZIP reader (its `file` input), so every part it opens is
 * inflated under the document's budget, and it never touches the file system.
 */

import type mammothModule from "mammoth";
import { PtermError } from "../../core/errors.ts";
import type { Block, ListItem, Span } from "./blocks.ts";
import { readProperties } from "./ooxml.ts";
import type { DocInfo, Extraction, ExtractOptions } from "./types.ts";
import { childElements, isElement, parseXml, type XmlElement } from "./xml.ts";
import { decodeXmlText, type ZipArchive } from "./zip.ts";
import { hideEnvironmentFromNodeLibraries } from "./node_env.ts";
import { type AltChunks, readAltChunks, replaceAltChunks } from "./altchunk.ts";
import { replaceEquations } from "./omml.ts";
import { labelParagraphs, type Numbering, readNumbering, takeLabel, unmarkLabels } from "./numbering.ts";

type Mammoth = typeof mammothModule;

/** mammoth is loaded on first use, after the environment is hidden from it (see node_env.ts). */
async function loadMammoth(): Promise<Mammoth> {
  hideEnvironmentFromNodeLibraries();
  // A literal import: docx.ts itself is loaded only for Word documents, so mammoth is too.
  return (await import("mammoth")).default;
}

/**
 * mammoth holds the whole document several times over (the XML text, its element tree, its own
 * document model, the HTML): about 100 bytes of memory per byte of document.xml, measured on
 * mammoth's tables.docx grown to 2 and 8 MiB (0.3 and 0.85 GB resident), over the ~250 MiB pterm
 * and mammoth take before reading. A document that would pass the memory ceiling is refused up
 * front with InputTooLarge instead of being stopped (or aborting V8) half-way.
 */
const MAMMOTH_BYTES_PER_XML_BYTE = 100;
const BASELINE_BYTES = 256 * 1024 * 1024;

function checkMemoryBudget(xmlChars: number, memoryBytes: number): void {
  const allowed = Math.max(1024 * 1024, (memoryBytes - BASELINE_BYTES) / MAMMOTH_BYTES_PER_XML_BYTE);
  if (xmlChars <= allowed) return;
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  throw new PtermError(
    "InputTooLarge",
    `the Word document's text part (word/document.xml) is ${mib(xmlChars)}; reading it takes about ` +
      `${MAMMOTH_BYTES_PER_XML_BYTE}× that in memory, and the ${mib(memoryBytes)} memory ceiling ` +
      `(limits.memory_bytes in pterm.json) allows ${mib(allowed)}; split the document, or raise limits.memory_bytes.`,
  );
}

/**
 * The main document as mammoth gets it: HTML chunks as paragraphs (altchunk.ts), equations replaced
 * by their LaTeX (omml.ts) and list and heading numbers written in (numbering.ts), none of which
 * mammoth reads itself.
 */
function prepareDocument(xml: string, numbering: Numbering | null, chunks: AltChunks): string {
  const wordPrefix = /<([A-Za-z_][\w.-]*:)?body[\s>]/.exec(xml)?.[1] ?? "";
  const withEquations = replaceEquations(replaceAltChunks(xml, chunks, wordPrefix), wordPrefix).xml;
  return numbering ? labelParagraphs(withEquations, numbering) : withEquations;
}

/**
 * The object mammoth's `openZip` accepts as `{file}`: what it needs of a ZIP package. The main
 * document is handed over prepared (`prepareDocument`).
 */
function mammothFile(zip: ZipArchive, mainDocument: string | null) {
  return {
    exists: (name: string) => zip.has(name),
    read: async (name: string, encoding?: string) => {
      if (name === "word/document.xml" && encoding && mainDocument !== null) return mainDocument;
      const bytes = await zip.read(name);
      if (bytes === null) throw new Error(`missing part ${name}`);
      if (encoding === "base64") return btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
      return encoding ? decodeXmlText(bytes) : bytes;
    },
    write: () => {
      throw new Error("read-only package");
    },
    toArrayBuffer: () => {
      throw new Error("read-only package");
    },
  };
}

const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const BLOCK_ELEMENTS = new Set(["p", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre"]);

interface Style {
  bold?: boolean;
  italic?: boolean;
  href?: string;
}

/** The inline content of `element` as spans (nested lists and tables are not inline). */
function inlineSpans(element: XmlElement, style: Style = {}, out: Span[] = []): Span[] {
  for (const node of element.children) {
    if (!isElement(node)) {
      out.push({ text: unmarkLabels(node), ...style });
      continue;
    }
    switch (node.name) {
      case "strong":
      case "b":
        inlineSpans(node, { ...style, bold: true }, out);
        break;
      case "em":
      case "i":
        inlineSpans(node, { ...style, italic: true }, out);
        break;
      case "a": {
        const href = node.attrs.href ?? "";
        // Back-links from notes ("↑") are navigation, not content.
        if (/^#(footnote|endnote|comment)-ref-/.test(href)) break;
        inlineSpans(node, href && !href.startsWith("#") ? { ...style, href } : style, out);
        break;
      }
      case "br":
        out.push({ text: "\n", ...style });
        break;
      case "img":
        if (node.attrs.alt?.trim()) out.push({ text: `[image: ${node.attrs.alt.trim()}]`, ...style });
        break;
      case "ul":
      case "ol":
      case "table":
        break;
      default:
        if (BLOCK_ELEMENTS.has(node.name)) {
          if (out.length) out.push({ text: " " });
          inlineSpans(node, style, out);
        } else inlineSpans(node, style, out);
    }
  }
  return out;
}

/** Text of inline content with `<br>` kept as a line break (textContent would glue the lines). */
function inlineText(element: XmlElement): string {
  let text = "";
  for (const node of element.children) {
    if (!isElement(node)) text += unmarkLabels(node);
    else if (node.name === "br") text += "\n";
    else if (node.name === "table") text += "\n" + tableRows(node).map((row) => row.join(" ")).join("\n") + "\n";
    else if (node.name === "ul" || node.name === "ol") {
      text += "\n" + childElements(node, "li").map(inlineText).join("\n") + "\n";
    } else if (BLOCK_ELEMENTS.has(node.name)) text += "\n" + inlineText(node) + "\n";
    else text += inlineText(node);
  }
  return text;
}

/**
 * A cell's text with its paragraphs, line breaks, list items and nested tables' rows on lines of
 * their own (`\n`, rendered `<br>` in Markdown and a space in text), never glued together:
 * `17,542` and `32,000` in two paragraphs must not read as `17,54232,000`.
 */
function cellText(cell: XmlElement): string {
  return inlineText(cell).split("\n").map((line) => line.trim()).filter(Boolean).join("\n");
}

function tableRows(table: XmlElement): string[][] {
  const rows: string[][] = [];
  const visit = (element: XmlElement) => {
    for (const c of childElements(element)) {
      if (c.name === "tr") {
        rows.push(childElements(c).filter((cell) => cell.name === "td" || cell.name === "th").map(cellText));
      } else if (c.name === "thead" || c.name === "tbody" || c.name === "tfoot") visit(c);
    }
  };
  visit(table);
  return rows;
}

/** A list item's number as Word shows it (written in by numbering.ts), and the item without it. */
function labelOf(li: XmlElement): { label: string | null; content: XmlElement } {
  let node: XmlElement = li;
  const trail: XmlElement[] = [];
  // The label is the first text of the item, possibly inside <strong>/<em>/<a>.
  while (node.children.length > 0 && isElement(node.children[0])) {
    trail.push(node);
    node = node.children[0] as XmlElement;
  }
  const first = node.children[0];
  if (typeof first !== "string") return { label: null, content: li };
  const { label, rest } = takeLabel(first);
  if (label === null) return { label: null, content: li };
  let replaced: XmlElement = { ...node, children: [rest, ...node.children.slice(1)] };
  for (let i = trail.length - 1; i >= 0; i--) {
    replaced = { ...trail[i], children: [replaced, ...trail[i].children.slice(1)] };
  }
  return { label, content: replaced };
}

function listItems(list: XmlElement, depth: number, items: ListItem[] = []): ListItem[] {
  const ordered = list.name === "ol";
  for (const li of childElements(list, "li")) {
    const { label, content } = labelOf(li);
    items.push({ spans: inlineSpans(content), depth, ordered, ...(label === null ? {} : { label }) });
    for (const nested of childElements(li)) {
      if (nested.name === "ul" || nested.name === "ol") listItems(nested, depth + 1, items);
    }
  }
  return items;
}

function htmlBlocks(root: XmlElement): Block[] {
  const blocks: Block[] = [];
  const visit = (element: XmlElement) => {
    for (const node of element.children) {
      if (!isElement(node)) {
        if (node.trim()) blocks.push({ type: "paragraph", spans: [{ text: node }] });
        continue;
      }
      const level = HEADINGS[node.name];
      if (level) blocks.push({ type: "heading", level, spans: inlineSpans(node) });
      else if (node.name === "p" || node.name === "pre") blocks.push({ type: "paragraph", spans: inlineSpans(node) });
      else if (node.name === "ul" || node.name === "ol") blocks.push({ type: "list", items: listItems(node, 0) });
      else if (node.name === "table") blocks.push({ type: "table", rows: tableRows(node) });
      else if (node.name === "img") {
        if (node.attrs.alt?.trim()) blocks.push({ type: "image", alt: node.attrs.alt });
      } else visit(node); // blockquote, div and the like: their content
    }
  };
  visit(root);
  return blocks;
}

/** mammoth's messages that are worth an agent's attention (not "unrecognised style" noise). */
function usefulMessages(messages: readonly { type: string; message: string }[]): string[] {
  return [...new Set(messages.map((m) => m.message).filter((m) => !/^Unrecognised (paragraph|run|table)/.test(m)))];
}

export async function extractDocx(zip: ZipArchive, options: ExtractOptions): Promise<Extraction> {
  options.signal.throwIfAborted();
  let html: string;
  let messages: { type: string; message: string }[];
  const xml = await zip.readText("word/document.xml");
  if (xml !== null) checkMemoryBudget(xml.length, options.memoryBytes);
  const chunks = await readAltChunks(zip, xml ?? "");
  const mainDocument = xml === null ? null : prepareDocument(xml, await readNumbering(zip), chunks);
  const mammoth = await loadMammoth();
  try {
    const input = { file: mammothFile(zip, mainDocument) } as unknown as Parameters<
      Mammoth["convertToHtml"]
    >[0];
    // Pictures stay `<img>` with their alt text; their bytes are never read.
    const convertImage = mammoth.images.imgElement(() => Promise.resolve({ src: "" }));
    const result = await mammoth.convertToHtml(input, { convertImage, externalFileAccess: false });
    html = result.value;
    messages = result.messages;
  } catch (error) {
    if (error instanceof PtermError) throw error;
    throw new PtermError(
      "CorruptInput",
      `the Word document cannot be read (${
        (error as Error).message
      }); it may be damaged — re-save it from Word or LibreOffice.`,
    );
  }
  const blocks = htmlBlocks(parseXml(`<body>${html}</body>`, "word/document.xml (as converted)"));
  const images = (html.match(/<img /g) ?? []).length;
  const warnings = usefulMessages(messages);
  if (images > 0) warnings.push(`${images} picture(s): only their alt text is kept (pterm does not OCR images)`);
  if (chunks.total > chunks.unread) {
    warnings.push(
      `${chunks.total - chunks.unread} embedded HTML chunk(s) (w:altChunk) were read as plain paragraphs: ` +
        "their headings, lists and tables are not kept as such",
    );
  }
  if (chunks.unread > 0) {
    warnings.push(
      `${chunks.unread} embedded chunk(s) of another format (w:altChunk: RTF or another document that Word ` +
        "converts when it opens the file) were not extracted; open the file in Word and save it as .docx to " +
        "convert them",
    );
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
    stoppedEarly: false,
  };
}

export async function infoDocx(zip: ZipArchive): Promise<DocInfo> {
  const props = await readProperties(zip);
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
