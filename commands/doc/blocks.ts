/**
 * The one model every format is read into, and its three renderings:
 *
 * - `md` follows the conventions people already feed to LLMs (Microsoft's markitdown):
 *   `<!-- Slide number: N -->` before each slide, the title as `#`, notes under `### Notes:`;
 *   `## <sheet>` and a Markdown table per sheet; `<!-- Page number: N -->` per PDF page.
 * - `text` is the same content without markup: tables (and PDF lines in columns) as
 *   tab-separated rows, a form feed
 *   between PDF pages (as pdftotext does), `[Slide N]` lines between slides.
 * - `json` is the block tree with plain text, for programs.
 *
 * `--max-chars` cuts only at clean boundaries: whole blocks, rows, list items, or a line or
 * word break inside one long paragraph, never inside a word.
 */

export interface Span {
  readonly text: string;
  readonly bold?: boolean;
  readonly italic?: boolean;
  readonly href?: string;
}

export interface ListItem {
  readonly spans: Span[];
  /** 0 for top-level items. */
  readonly depth: number;
  readonly ordered: boolean;
  /** The number as the document shows it (`4.`, `b)`, `iii.`), where the format says; else counted from 1. */
  readonly label?: string;
}

export type Block =
  | { readonly type: "heading"; readonly level: number; readonly spans: Span[] }
  | { readonly type: "paragraph"; readonly spans: Span[] }
  | { readonly type: "list"; readonly items: ListItem[] }
  | { readonly type: "table"; readonly rows: string[][] }
  /**
   * Lines whose cells stand in columns without the certainty of a table (a PDF's header set over
   * several lines, a list of options beside their descriptions): each row's cells tab-separated in
   * text and JSON (an empty cell keeps its tab, every row as many as the widest), the cells of each
   * line joined by a space in Markdown.
   */
  | { readonly type: "columns"; readonly rows: string[][] }
  | { readonly type: "image"; readonly alt: string }
  /** Text kept as it is: a JSON or XML file, an HTML `<pre>`; `language` names it for Markdown's fence. */
  | { readonly type: "code"; readonly language: string; readonly text: string }
  | { readonly type: "page"; readonly number: number; readonly blocks: Block[] }
  | {
    readonly type: "slide";
    readonly number: number;
    readonly title: string | null;
    readonly blocks: Block[];
    readonly notes: Block[];
  }
  | { readonly type: "sheet"; readonly name: string; readonly rows: string[][] };

export type Mode = "text" | "md" | "json";

export const TRUNCATED_MARKER = "[...TRUNCATED...]";

export function plain(spans: readonly Span[]): string {
  return spans.map((s) => s.text).join("");
}

export function para(text: string): Block {
  return { type: "paragraph", spans: [{ text }] };
}

// ---- Markdown ------------------------------------------------------------------------------

/** Wraps the non-blank middle of `text` in `marker`, leaving surrounding spaces outside. */
function emphasize(text: string, marker: string): string {
  const match = /^(\s*)(.*?)(\s*)$/s.exec(text)!;
  return match[2] ? `${match[1]}${marker}${match[2]}${marker}${match[3]}` : text;
}

function sameStyle(a: Span, b: Span): boolean {
  return !!a.bold === !!b.bold && !!a.italic === !!b.italic && a.href === b.href;
}

export function spansToMarkdown(spans: readonly Span[]): string {
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && sameStyle(last, span)) merged[merged.length - 1] = { ...last, text: last.text + span.text };
    else if (span.text) merged.push(span);
  }
  return merged.map((span) => {
    let text = span.text;
    if (span.bold && span.italic) text = emphasize(text, "***");
    else if (span.bold) text = emphasize(text, "**");
    else if (span.italic) text = emphasize(text, "*");
    if (span.href && text.trim()) text = `[${text}](${span.href.replaceAll(" ", "%20").replaceAll(")", "%29")})`;
    return text;
  }).join("");
}

function markdownCell(cell: string): string {
  // A line break inside a cell stays one (GFM cells are single-line; `<br>` is how they break).
  return cell.split(/\r?\n/).map((line) => line.trim()).filter(Boolean).join("<br>").replaceAll("|", "\\|");
}

function tableWidth(rows: readonly string[][]): number {
  return rows.reduce((width, row) => Math.max(width, row.length), 0);
}

function markdownRow(row: readonly string[], width: number): string {
  const cells = Array.from({ length: width }, (_, i) => markdownCell(row[i] ?? ""));
  return `| ${cells.join(" | ")} |`;
}

/** A table as Markdown lines; the first row is the header (GFM needs one), as markitdown does. */
function markdownTableLines(rows: readonly string[][]): string[] {
  const width = tableWidth(rows);
  if (rows.length === 0 || width === 0) return [];
  return [
    markdownRow(rows[0], width),
    `| ${Array.from({ length: width }, () => "---").join(" | ")} |`,
    ...rows.slice(1).map((row) => markdownRow(row, width)),
  ];
}

function listLines(items: readonly ListItem[], mode: "md" | "text"): string[] {
  const counters: number[] = [];
  // A nested item is indented to its parent's text (CommonMark), however wide the parent's marker.
  const indents = [0];
  return items.map((item) => {
    counters.length = item.depth + 1;
    counters[item.depth] = (counters[item.depth] ?? 0) + 1;
    const marker = item.label ?? (item.ordered ? `${counters[item.depth]}.` : "-");
    const body = mode === "md" ? spansToMarkdown(item.spans) : plain(item.spans);
    const known = Math.min(item.depth, indents.length - 1);
    const indent = indents[known] + (item.depth - known) * 2;
    indents.length = item.depth + 1;
    indents[item.depth] = indent;
    indents.push(indent + marker.length + 1);
    return `${" ".repeat(indent)}${marker} ${body.trim()}`;
  });
}

function textRow(row: readonly string[]): string {
  return row.map((cell) => cell.replace(/[\t\r\n]+/g, " ")).join("\t").replace(/\t+$/, "");
}

/**
 * A row of lines in columns, tab-separated: every row of the block with as many tabs as its widest
 * (a row whose last cells are empty keeps their tabs), so `cut -f2` of a row without a second cell
 * is empty rather than the whole line.
 */
function columnsRows(rows: readonly string[][]): string[] {
  const width = tableWidth(rows);
  return rows.filter((row) => row.some((cell) => cell.trim() !== "")).map((row) =>
    Array.from({ length: width }, (_, i) => (row[i] ?? "").replace(/\s+/g, " ").trim()).join("\t")
  );
}

/** A row's cells as a line of text, one space between the cells that are not empty. */
function spacedRow(row: readonly string[]): string {
  return row.map((cell) => cell.replace(/\s+/g, " ").trim()).filter(Boolean).join(" ");
}

/**
 * A rendering as a list of pieces; each piece ends at a clean boundary (the pieces join into
 * the whole text). Truncation takes whole pieces.
 */
export function renderPieces(blocks: readonly Block[], mode: "md" | "text"): string[] {
  const pieces: string[] = [];
  const separate = () => {
    if (pieces.length > 0) pieces.push("\n");
  };
  const emit = (block: Block) => {
    switch (block.type) {
      case "heading": {
        const text = mode === "md" ? spansToMarkdown(block.spans).trim() : plain(block.spans).trim();
        if (!text) return;
        separate();
        pieces.push(mode === "md" ? `${"#".repeat(Math.min(6, Math.max(1, block.level)))} ${text}\n` : `${text}\n`);
        return;
      }
      case "paragraph": {
        const text = mode === "md" ? spansToMarkdown(block.spans) : plain(block.spans);
        if (!text.trim()) return;
        separate();
        pieces.push(`${text.replace(/\s+$/, "")}\n`);
        return;
      }
      case "list": {
        const lines = listLines(block.items, mode);
        if (lines.length === 0) return;
        separate();
        for (const line of lines) pieces.push(`${line}\n`);
        return;
      }
      case "table": {
        const lines = mode === "md" ? markdownTableLines(block.rows) : block.rows.map(textRow);
        if (lines.length === 0) return;
        separate();
        for (const line of lines) pieces.push(`${line}\n`);
        return;
      }
      case "columns": {
        const lines = mode === "md" ? block.rows.map(spacedRow).filter(Boolean) : columnsRows(block.rows);
        if (lines.length === 0) return;
        separate();
        for (const line of lines) pieces.push(`${line}\n`);
        return;
      }
      case "code": {
        if (!block.text.trim()) return;
        separate();
        if (mode === "text") {
          pieces.push(`${block.text.replace(/\s+$/, "")}\n`);
          return;
        }
        // A fence longer than any run of backticks inside, so the text cannot close it.
        const longest = Math.max(2, ...[...block.text.matchAll(/`+/g)].map((m) => m[0].length));
        const fence = "`".repeat(longest + 1);
        pieces.push(`${fence}${block.language}\n`);
        for (const line of block.text.replace(/\s+$/, "").split("\n")) pieces.push(`${line}\n`);
        pieces.push(`${fence}\n`);
        return;
      }
      case "image": {
        if (!block.alt.trim()) return;
        separate();
        pieces.push(`[image: ${block.alt.trim().replace(/\s+/g, " ")}]\n`);
        return;
      }
      case "page": {
        if (mode === "md") {
          separate();
          pieces.push(`<!-- Page number: ${block.number} -->\n`);
        } else if (block.number > 1 || pieces.length > 0) {
          pieces.push("\f");
        }
        for (const b of block.blocks) emit(b);
        return;
      }
      case "slide": {
        separate();
        pieces.push(mode === "md" ? `<!-- Slide number: ${block.number} -->\n` : `[Slide ${block.number}]\n`);
        if (block.title) pieces.push(mode === "md" ? `# ${block.title}\n` : `${block.title}\n`);
        for (const b of block.blocks) emit(b);
        if (block.notes.length > 0) {
          separate();
          pieces.push(mode === "md" ? "### Notes:\n" : "Notes:\n");
          for (const b of block.notes) emit(b);
        }
        return;
      }
      case "sheet": {
        separate();
        pieces.push(mode === "md" ? `## ${block.name}\n` : `[Sheet: ${block.name}]\n`);
        const lines = mode === "md" ? markdownTableLines(block.rows) : block.rows.map(textRow);
        if (lines.length > 0) pieces.push("\n");
        for (const line of lines) pieces.push(`${line}\n`);
        return;
      }
    }
  };
  for (const block of blocks) emit(block);
  return pieces;
}

// ---- JSON ----------------------------------------------------------------------------------

export type JsonBlock = Record<string, unknown> & { type: string };

export function toJsonBlock(block: Block): JsonBlock {
  switch (block.type) {
    case "heading":
      return { type: "heading", level: block.level, text: plain(block.spans).trim() };
    case "paragraph":
      return { type: "paragraph", text: plain(block.spans).trim() };
    case "list":
      return {
        type: "list",
        items: block.items.map((i) => ({
          text: plain(i.spans).trim(),
          depth: i.depth,
          ordered: i.ordered,
          ...(i.label === undefined ? {} : { label: i.label }),
        })),
      };
    case "table":
      return { type: "table", rows: block.rows };
    case "columns":
      return { type: "paragraph", text: columnsRows(block.rows).join("\n") };
    case "image":
      return { type: "image", alt: block.alt };
    case "code":
      return { type: "code", language: block.language, text: block.text };
    case "page":
      return { type: "page", number: block.number, blocks: block.blocks.map(toJsonBlock) };
    case "slide":
      return {
        type: "slide",
        number: block.number,
        title: block.title,
        blocks: block.blocks.map(toJsonBlock),
        notes: block.notes.length ? block.notes.map(toJsonBlock) : [],
      };
    case "sheet":
      return { type: "sheet", name: block.name, rows: block.rows };
  }
}

// ---- bounding ------------------------------------------------------------------------------

export interface Output {
  readonly text: string;
  /** Characters of the full rendering, before any cut. */
  readonly totalChars: number;
  readonly truncated: boolean;
}

/** `total` is null when reading stopped early: the document holds more than was read. */
function truncationNote(kept: number, total: number | null): string {
  const of = total === null ? " (the document has more)" : ` of ${total}`;
  return `${TRUNCATED_MARKER} Shown up to a block boundary after ${kept}${of} characters (--max-chars); ` +
    "the saved file holds the whole text.";
}

/** Cuts `text` to at most `room` characters at the last line break, else the last space; never mid-word. */
function cutAtBreak(text: string, room: number): string {
  if (room <= 0) return "";
  const head = text.slice(0, room);
  const line = head.lastIndexOf("\n");
  if (line >= room * 0.5) return head.slice(0, line + 1);
  const space = head.search(/\s\S*$/);
  if (space > 0) return head.slice(0, space) + "\n";
  return "";
}

/**
 * `pieces` bounded to `maxChars`. `more` says the reader stopped before the end of the
 * document, so the output is cut (and says so) even when what was read would fit.
 */
export function boundPieces(pieces: readonly string[], maxChars: number, more = false): Output {
  const totalChars = pieces.reduce((sum, p) => sum + p.length, 0);
  if (!more && totalChars <= maxChars) return { text: pieces.join(""), totalChars, truncated: false };
  const total = more ? null : totalChars;
  // Reserve room for the note (its numbers have at most as many digits as the total).
  const room = Math.max(0, maxChars - truncationNote(totalChars, total).length - 2);
  let kept = "";
  for (const piece of pieces) {
    if (kept.length + piece.length <= room) {
      kept += piece;
      continue;
    }
    // One long piece (a big paragraph) may be cut inside, at a line or word break, if that keeps a useful part.
    const remaining = room - kept.length;
    if (remaining > 80) kept += cutAtBreak(piece, remaining);
    break;
  }
  const body = kept.replace(/\s+$/, "");
  const text = `${body}${body ? "\n\n" : ""}${truncationNote(body.length, total)}\n`;
  return { text, totalChars, truncated: true };
}

/**
 * The JSON rendering bounded to `maxChars`: whole blocks while they fit; a page, slide, sheet,
 * table or list that does not fit keeps the children or rows that do.
 */
export function boundJson(
  document: Record<string, unknown>,
  blocks: readonly JsonBlock[],
  maxChars: number,
  more = false,
): Output {
  const full = JSON.stringify({ ...document, truncated: false, blocks }, null, 1);
  if (!more && full.length <= maxChars) return { text: full, totalChars: full.length, truncated: false };
  const note = truncationNote(full.length, more ? null : full.length);
  const overhead = JSON.stringify({ ...document, truncated: true, note, blocks: [] }, null, 1).length;
  const budget = { left: maxChars - overhead - 16 };
  const kept = fitBlocks(blocks, budget);
  const text = JSON.stringify({ ...document, truncated: true, note, blocks: kept }, null, 1);
  return { text, totalChars: full.length, truncated: true };
}

function size(value: unknown): number {
  // The indented form costs more than compact JSON; 1.25 covers the extra spaces and newlines of nested blocks.
  return Math.ceil(JSON.stringify(value).length * 1.25) + 2;
}

function fitBlocks(blocks: readonly JsonBlock[], budget: { left: number }): JsonBlock[] {
  const kept: JsonBlock[] = [];
  for (const block of blocks) {
    const cost = size(block);
    if (cost <= budget.left) {
      kept.push(block);
      budget.left -= cost;
      continue;
    }
    const partial = fitPartially(block, budget);
    if (partial) kept.push(partial);
    break;
  }
  return kept;
}

function fitPartially(block: JsonBlock, budget: { left: number }): JsonBlock | null {
  const shell = { ...block };
  for (const key of ["blocks", "rows", "items", "notes", "text"]) delete shell[key];
  const shellCost = size(shell) + 16;
  if (shellCost > budget.left) return null;
  budget.left -= shellCost;
  if (Array.isArray(block.blocks)) {
    return { ...block, blocks: fitBlocks(block.blocks as JsonBlock[], budget), ...(block.notes ? { notes: [] } : {}) };
  }
  for (const key of ["rows", "items"] as const) {
    const list = block[key];
    if (!Array.isArray(list)) continue;
    const kept: unknown[] = [];
    for (const entry of list) {
      const cost = size(entry);
      if (cost > budget.left) break;
      kept.push(entry);
      budget.left -= cost;
    }
    return kept.length ? { ...block, [key]: kept } : null;
  }
  if (typeof block.text === "string") {
    const text = cutAtBreak(block.text, Math.floor(budget.left / 1.25) - 4).trimEnd();
    budget.left = 0;
    return text ? { ...block, text } : null;
  }
  return null;
}

/** Whether any block holds text (a scanned PDF has pages but none). */
export function hasText(blocks: readonly Block[]): boolean {
  const spansHaveText = (spans: readonly Span[]) => spans.some((s) => s.text.trim() !== "");
  const rowsHaveText = (rows: readonly string[][]) => rows.some((row) => row.some((cell) => cell.trim() !== ""));
  return blocks.some((block) => {
    switch (block.type) {
      case "heading":
      case "paragraph":
        return spansHaveText(block.spans);
      case "list":
        return block.items.some((item) => spansHaveText(item.spans));
      case "table":
      case "columns":
      case "sheet":
        return rowsHaveText(block.rows);
      case "image":
        return block.alt.trim() !== "";
      case "code":
        return block.text.trim() !== "";
      case "page":
        return hasText(block.blocks);
      case "slide":
        return !!block.title?.trim() || hasText(block.blocks) || hasText(block.notes);
    }
  });
}

/** About how many characters `blocks` render to (readers use it to stop early on huge inputs). */
export function textLength(blocks: readonly Block[]): number {
  let total = 0;
  const spans = (list: readonly Span[]) => list.reduce((sum, s) => sum + s.text.length, 0);
  const rows = (list: readonly string[][]) => list.reduce((sum, row) => sum + row.join(" | ").length + 4, 0);
  for (const block of blocks) {
    switch (block.type) {
      case "heading":
      case "paragraph":
        total += spans(block.spans) + 2;
        break;
      case "list":
        total += block.items.reduce((sum, item) => sum + spans(item.spans) + 3, 0);
        break;
      case "table":
      case "columns":
      case "sheet":
        total += rows(block.rows);
        break;
      case "image":
        total += block.alt.length + 10;
        break;
      case "code":
        total += block.text.length + 10;
        break;
      case "page":
        total += textLength(block.blocks) + 25;
        break;
      case "slide":
        total += textLength(block.blocks) + textLength(block.notes) + (block.title?.length ?? 0) + 40;
        break;
    }
  }
  return total;
}
