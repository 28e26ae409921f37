/**
 * `w:altChunk`: content a Word document keeps in another format (HTML, MHT, RTF, another
 * document) and that Word converts when it opens the file; html-docx-js writes whole documents
 * this way. mammoth skips them. An HTML or MHT chunk's text is put in its place as plain
 * paragraphs (one per block of the HTML: headings, paragraphs, list items, table rows), so the
 * words are not lost; its formatting is. Other formats stay unread, and the reader says so.
 */

import { readRelationships } from "./ooxml.ts";
import { decodeXmlText, type ZipArchive } from "./zip.ts";

export interface AltChunks {
  /** The paragraphs of each readable chunk, by relationship id. */
  readonly text: Map<string, string[]>;
  /** How many chunks the document has, and how many of them could not be read. */
  readonly total: number;
  readonly unread: number;
}

const CHUNK_TAG = /<(?:[A-Za-z_][\w.-]*:)?altChunk\b([^>]*?)\/?>(?:\s*<\/(?:[A-Za-z_][\w.-]*:)?altChunk>)?/g;

function idOf(attrs: string): string | undefined {
  return /(?:^|\s)(?:[\w.-]+:)?id\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(attrs)?.slice(1).find((v) => v !== undefined);
}

/** Quoted-printable (RFC 2045) to bytes. */
function quotedPrintable(text: string): Uint8Array {
  const encoder = new TextEncoder();
  const bytes: number[] = [];
  const body = text.replace(/=\r?\n/g, "");
  for (let i = 0; i < body.length; i++) {
    const hex = body[i] === "=" ? body.slice(i + 1, i + 3) : "";
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else for (const byte of encoder.encode(body[i])) bytes.push(byte);
  }
  return new Uint8Array(bytes);
}

function decode(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset?.trim() || "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/** The HTML of an MHT (MIME multipart) file: its first text/html part, decoded. */
function htmlOfMht(mht: string): string | null {
  const boundary = /boundary\s*=\s*"?([^";\r\n]+)"?/i.exec(mht)?.[1];
  const parts = boundary ? mht.split(`--${boundary}`) : [mht];
  for (const part of parts) {
    const split = part.search(/\r?\n\r?\n/);
    if (split < 0) continue;
    const headers = part.slice(0, split);
    if (!/content-type:\s*text\/html/i.test(headers)) continue;
    const body = part.slice(split).replace(/^\r?\n\r?\n/, "");
    const charset = /charset\s*=\s*"?([\w.-]+)"?/i.exec(headers)?.[1];
    const encoding = /content-transfer-encoding:\s*([\w-]+)/i.exec(headers)?.[1]?.toLowerCase();
    if (encoding === "quoted-printable") return decode(quotedPrintable(body), charset);
    if (encoding === "base64") {
      try {
        return decode(Uint8Array.from(atob(body.replace(/\s+/g, "")), (c) => c.charCodeAt(0)), charset);
      } catch {
        return null;
      }
    }
    return body;
  }
  return null;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00A0" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10FFFF ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const BLOCK = /^(p|div|h[1-6]|li|tr|table|ul|ol|dl|dt|dd|blockquote|pre|section|article|header|footer|br|hr)$/;
const SKIPPED = /^(script|style|head|title)$/;

/**
 * HTML to its text, one paragraph per block element (cells of a row apart by a tab); scripts,
 * styles and the head are dropped. One pass over the tags, so hostile HTML costs linear time.
 */
export function htmlParagraphs(html: string): string[] {
  let text = "";
  let skipping: string | null = null;
  let from = 0;
  for (const match of html.matchAll(/<!--[\s\S]*?-->|<![^>]*>|<\?[^>]*>|<(\/?)([A-Za-z][\w-]*)[^>]*>/g)) {
    if (skipping === null) text += html.slice(from, match.index);
    from = match.index + match[0].length;
    const [, closing, rawName] = match;
    if (rawName === undefined) continue; // a comment, <!DOCTYPE …> or <?xml …?>
    const name = rawName.toLowerCase();
    if (skipping !== null) {
      if (closing && name === skipping) skipping = null;
      continue;
    }
    if (!closing && SKIPPED.test(name)) skipping = name;
    else if (BLOCK.test(name)) text += "\n";
    else if (closing && (name === "td" || name === "th")) text += "\t";
  }
  if (skipping === null) text += html.slice(from);
  return decodeEntities(text).split("\n").map((line) => line.replace(/[ \t\u00A0]+/g, " ").trim()).filter(Boolean);
}

/** The chunks of word/document.xml, read where they are HTML or MHT. */
export async function readAltChunks(zip: ZipArchive, xml: string): Promise<AltChunks> {
  const ids = [...xml.matchAll(CHUNK_TAG)].map((m) => idOf(m[1]));
  if (ids.length === 0) return { text: new Map(), total: 0, unread: 0 };
  const rels = await readRelationships(zip, "word/document.xml");
  const text = new Map<string, string[]>();
  let unread = 0;
  for (const id of ids) {
    const rel = id === undefined ? undefined : rels.get(id);
    const bytes = rel && !rel.external ? await zip.read(rel.target) : null;
    if (!id || !rel || bytes === null) {
      unread++;
      continue;
    }
    const raw = decodeXmlText(bytes);
    const kind = rel.target.toLowerCase();
    const html = /\.(mht|mhtml)$/.test(kind) || /^\s*(mime-version|content-type):/i.test(raw)
      ? htmlOfMht(raw)
      : /\.(html?|xhtml)$/.test(kind)
      ? raw
      : null;
    if (html === null) {
      unread++;
      continue;
    }
    text.set(id, htmlParagraphs(html));
  }
  return { text, total: ids.length, unread };
}

/** Text for a `w:t`: escaped, and without the characters XML 1.0 cannot hold (an HTML chunk may have them). */
function escapeXml(text: string): string {
  // deno-lint-ignore no-control-regex -- removing control characters is the point
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "")
    .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** document.xml with each read chunk replaced by its paragraphs (`wordPrefix`: `w:` or the document's own). */
export function replaceAltChunks(xml: string, chunks: AltChunks, wordPrefix: string): string {
  if (chunks.text.size === 0) return xml;
  const p = wordPrefix;
  return xml.replace(CHUNK_TAG, (whole, attrs: string) => {
    const lines = chunks.text.get(idOf(attrs) ?? "");
    if (!lines) return whole;
    return lines.map((line) => `<${p}p><${p}r><${p}t xml:space="preserve">${escapeXml(line)}</${p}t></${p}r></${p}p>`)
      .join("");
  });
}
