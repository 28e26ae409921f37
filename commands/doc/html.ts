/**
 * HTML to the block model, as markitdown presents a page: headings, paragraphs with bold, italic
 * and links, nested lists, tables, images by their alt text, `<pre>` as code; scripts, styles,
 * the head and other non-content elements dropped. Nothing is ever fetched: links and image
 * sources are text, no URL is opened, no entity or stylesheet resolved beyond HTML's own
 * character references. One pass over the tags, so hostile HTML costs linear time, and list
 * nesting is capped so that indentation cannot grow the output quadratically.
 */

import { type Block, type ListItem, type Span, textLength } from "./blocks.ts";
import { declaredHtmlCharset, decodeDocumentText } from "./text_decode.ts";
import { type DocInfo, type Extraction, type ExtractOptions, NO_METADATA } from "./types.ts";

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00A0",
  copy: "©",
  reg: "®",
  trade: "™",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  laquo: "«",
  raquo: "»",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  bull: "•",
  middot: "·",
  euro: "€",
  pound: "£",
  yen: "¥",
  cent: "¢",
  sect: "§",
  para: "¶",
  deg: "°",
  plusmn: "±",
  times: "×",
  divide: "÷",
  shy: "\u00AD",
  zwnj: "\u200C",
  zwj: "\u200D",
};

/** HTML's character references (numeric, and the common named ones); others stay as written. */
export function decodeHtmlEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#\d{1,7}|[a-zA-Z]{2,8});/g, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      const valid = code > 0 && code <= 0x10FFFF && !(code >= 0xD800 && code <= 0xDFFF);
      return valid ? String.fromCodePoint(code) : "\uFFFD";
    }
    return NAMED[name] ?? NAMED[name.toLowerCase()] ?? whole;
  });
}

/** Elements whose content is not text a reader sees. */
const SKIPPED = new Set([
  "script",
  "style",
  "head",
  "template",
  "noscript",
  "svg",
  "math",
  "iframe",
  "object",
  "embed",
  "canvas",
  "select",
  "button",
  "textarea",
]);
const BLOCKS = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "nav",
  "aside",
  "blockquote",
  "figure",
  "figcaption",
  "address",
  "dl",
  "dt",
  "dd",
  "hr",
  "form",
  "fieldset",
  "details",
  "summary",
  "center",
  "body",
  "html",
]);
const VOID = new Set(["br", "img", "hr", "meta", "link", "input", "area", "base", "col", "source", "track", "wbr"]);
/** Deeper list nesting is shown at this depth: its indentation would otherwise grow with the square of the input. */
const MAX_LIST_DEPTH = 12;

const TAG = /<!--[\s\S]*?(?:-->|$)|<![^>]*>|<\?[^>]*>|<(\/?)([A-Za-z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;

function attribute(raw: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, "i").exec(raw);
  return match ? decodeHtmlEntities(match[1] ?? match[2] ?? match[3] ?? "") : undefined;
}

/** A link target as text: never javascript:, data: or other schemes that would run or embed something. */
function safeHref(href: string | undefined): string | undefined {
  if (href === undefined) return undefined;
  const trimmed = href.trim();
  if (trimmed === "" || trimmed.startsWith("#")) return undefined;
  const scheme = /^([a-zA-Z][\w+.-]*):/.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme !== undefined && !["http", "https", "mailto", "ftp"].includes(scheme)) return undefined;
  return trimmed;
}

interface Table {
  rows: string[][];
  row: string[] | null;
  cell: string | null;
}

class HtmlReader {
  readonly blocks: Block[] = [];
  #spans: Span[] = [];
  #bold = 0;
  #italic = 0;
  #hrefs: (string | undefined)[] = [];
  #heading: number | null = null;
  #pre = 0;
  #preText = "";
  #lists: { ordered: boolean }[] = [];
  #items: ListItem[] = [];
  #tables: Table[] = [];
  chars = 0;

  text(raw: string): void {
    if (this.#pre > 0) {
      this.#preText += decodeHtmlEntities(raw);
      return;
    }
    const text = decodeHtmlEntities(raw.replace(/[ \t\r\n\f]+/g, " "));
    if (text === "") return;
    const table = this.#tables[this.#tables.length - 1];
    if (table) {
      if (table.cell !== null) table.cell += text;
      return;
    }
    const href = this.#hrefs.findLast((h) => h !== undefined);
    this.#spans.push({
      text,
      ...(this.#bold > 0 ? { bold: true } : {}),
      ...(this.#italic > 0 ? { italic: true } : {}),
      ...(href ? { href } : {}),
    });
  }

  /** Ends the paragraph, heading or list item being collected. */
  flush(): void {
    const spans = trimSpans(this.#spans);
    this.#spans = [];
    if (spans.length === 0) return;
    if (this.#lists.length > 0) {
      const depth = Math.min(this.#lists.length - 1, MAX_LIST_DEPTH);
      this.#items.push({ spans, depth, ordered: this.#lists[this.#lists.length - 1].ordered });
      return;
    }
    const block: Block = this.#heading !== null
      ? { type: "heading", level: this.#heading, spans }
      : { type: "paragraph", spans };
    this.#push(block);
  }

  #push(block: Block): void {
    this.chars += textLength([block]);
    this.blocks.push(block);
  }

  #endList(): void {
    if (this.#items.length > 0) this.#push({ type: "list", items: this.#items });
    this.#items = [];
  }

  open(name: string, raw: string): void {
    const table = this.#tables[this.#tables.length - 1];
    switch (name) {
      case "b":
      case "strong":
        this.#bold++;
        return;
      case "i":
      case "em":
      case "cite":
        this.#italic++;
        return;
      case "a":
        this.#hrefs.push(safeHref(attribute(raw, "href")));
        return;
      case "br":
        if (this.#pre > 0) this.#preText += "\n";
        else if (table?.cell != null) table.cell += "\n";
        else this.#spans.push({ text: "\n" });
        return;
      case "img": {
        const alt = attribute(raw, "alt")?.trim();
        if (!alt) return;
        if (table?.cell != null) table.cell += alt;
        else {
          this.flush();
          if (this.#lists.length === 0) this.#push({ type: "image", alt });
        }
        return;
      }
      case "pre":
        this.flush();
        this.#pre++;
        return;
      case "ul":
      case "ol":
        this.flush();
        if (table) return;
        this.#lists.push({ ordered: name === "ol" });
        return;
      case "li":
        this.flush();
        return;
      case "table":
        this.flush();
        if (table) {
          // A table in a cell: its text stays in that cell.
          this.#tables.push({ rows: [], row: null, cell: null });
          return;
        }
        this.#tables.push({ rows: [], row: null, cell: null });
        return;
      case "tr":
        if (table) {
          this.#endRow(table);
          table.row = [];
        }
        return;
      case "td":
      case "th":
        if (table) {
          if (table.row === null) table.row = [];
          if (table.cell !== null) table.row.push(table.cell.trim());
          table.cell = "";
        }
        return;
    }
    if (/^h[1-6]$/.test(name)) {
      this.flush();
      if (this.#lists.length === 0 && !table) this.#heading = Number(name[1]);
      return;
    }
    if (BLOCKS.has(name)) {
      if (table?.cell != null) table.cell += " ";
      else this.flush();
    }
  }

  #endRow(table: Table): void {
    if (table.row === null) return;
    if (table.cell !== null) table.row.push(table.cell.trim());
    table.cell = null;
    if (table.row.some((cell) => cell !== "")) table.rows.push(table.row);
    table.row = null;
  }

  close(name: string): void {
    const table = this.#tables[this.#tables.length - 1];
    switch (name) {
      case "b":
      case "strong":
        this.#bold = Math.max(0, this.#bold - 1);
        return;
      case "i":
      case "em":
      case "cite":
        this.#italic = Math.max(0, this.#italic - 1);
        return;
      case "a":
        this.#hrefs.pop();
        return;
      case "pre":
        if (this.#pre === 0) return;
        this.#pre--;
        if (this.#pre === 0) {
          const text = this.#preText.replace(/^\n/, "");
          this.#preText = "";
          if (table?.cell != null) table.cell += text;
          else if (text.trim()) this.#push({ type: "code", language: "", text });
        }
        return;
      case "ul":
      case "ol":
        if (table || this.#lists.length === 0) return;
        this.flush();
        this.#lists.pop();
        if (this.#lists.length === 0) this.#endList();
        return;
      case "li":
        this.flush();
        return;
      case "td":
      case "th":
        if (table && table.cell !== null && table.row !== null) {
          table.row.push(table.cell.trim());
          table.cell = null;
        }
        return;
      case "tr":
        if (table) this.#endRow(table);
        return;
      case "table": {
        if (!table) return;
        this.#endRow(table);
        this.#tables.pop();
        const outer = this.#tables[this.#tables.length - 1];
        if (outer) {
          if (outer.cell !== null) outer.cell += " " + table.rows.map((row) => row.join(" ")).join(" ");
        } else if (table.rows.length > 0) this.#push({ type: "table", rows: squareRows(table.rows) });
        return;
      }
    }
    if (/^h[1-6]$/.test(name)) {
      this.flush();
      this.#heading = null;
      return;
    }
    if (BLOCKS.has(name) && !(table?.cell != null)) this.flush();
  }

  finish(): void {
    while (this.#tables.length > 0) this.close("table");
    this.flush();
    this.#lists = [];
    this.#endList();
  }
}

function squareRows(rows: string[][]): string[][] {
  const width = rows.reduce((w, row) => Math.max(w, row.length), 0);
  return rows.map((row) => [...row, ...Array(width - row.length).fill("")]);
}

/** Spans without leading and trailing white space, and runs of spaces (not line breaks) collapsed. */
function trimSpans(spans: Span[]): Span[] {
  const out = spans.map((s) => ({ ...s, text: s.text.replace(/ *\n */g, "\n") }));
  while (out.length && out[0].text.trim() === "") out.shift();
  while (out.length && out[out.length - 1].text.trim() === "") out.pop();
  if (out.length === 0) return out;
  out[0] = { ...out[0], text: out[0].text.replace(/^\s+/, "") };
  const last = out.length - 1;
  out[last] = { ...out[last], text: out[last].text.replace(/\s+$/, "") };
  for (let i = 1; i < out.length; i++) {
    if (out[i - 1].text.endsWith(" ") && out[i].text.startsWith(" ")) {
      out[i] = { ...out[i], text: out[i].text.slice(1) };
    }
  }
  return out;
}

/** The blocks of an HTML text; stops once they hold more than `charBudget` characters. */
export function htmlToBlocks(html: string, charBudget: number): { blocks: Block[]; stoppedEarly: boolean } {
  const reader = new HtmlReader();
  let skipping: string | null = null;
  let skipDepth = 0;
  let from = 0;
  for (const match of html.matchAll(TAG)) {
    if (skipping === null && match.index > from) reader.text(html.slice(from, match.index));
    from = match.index + match[0].length;
    const [, closing, rawName, rawAttributes] = match;
    if (rawName === undefined) continue; // a comment, <!DOCTYPE …>, <![CDATA[…]]> or <?…?>
    const name = rawName.toLowerCase();
    if (skipping !== null) {
      if (name === skipping) skipDepth += closing ? -1 : VOID.has(name) || rawAttributes.endsWith("/") ? 0 : 1;
      if (skipDepth === 0) skipping = null;
      continue;
    }
    if (!closing && SKIPPED.has(name) && !rawAttributes.trimEnd().endsWith("/")) {
      skipping = name;
      skipDepth = 1;
      continue;
    }
    if (closing) reader.close(name);
    else {
      reader.open(name, rawAttributes);
      if (rawAttributes.trimEnd().endsWith("/") && !VOID.has(name)) reader.close(name);
    }
    if (reader.chars > charBudget) {
      reader.finish();
      return { blocks: reader.blocks, stoppedEarly: true };
    }
  }
  if (skipping === null && from < html.length) reader.text(html.slice(from));
  reader.finish();
  return { blocks: reader.blocks, stoppedEarly: false };
}

/** The page's `<title>`. */
function titleOf(html: string): string | null {
  const title = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html.slice(0, 65536))?.[1];
  const text = title === undefined ? "" : decodeHtmlEntities(title.replace(/\s+/g, " ")).trim();
  return text || null;
}

function decodeHtml(bytes: Uint8Array): string {
  return decodeDocumentText(bytes, "the HTML page", declaredHtmlCharset(bytes));
}

export function extractHtml(bytes: Uint8Array, options: ExtractOptions): Extraction {
  options.signal.throwIfAborted();
  const { blocks, stoppedEarly } = htmlToBlocks(decodeHtml(bytes), options.charBudget);
  return { format: "html", blocks, counts: {}, warnings: [], stoppedEarly };
}

export function infoHtml(bytes: Uint8Array): DocInfo {
  return {
    format: "html",
    ...NO_METADATA,
    title: titleOf(decodeHtml(bytes)),
    encrypted: false,
    password_required: false,
  };
}
