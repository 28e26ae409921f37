/**
 * `w:altChunk`: content a Word document keeps in another format (HTML, MHT, RTF, another
 * document) and that Word converts when it opens the file; html-docx-js writes whole documents
 * this way. An HTML or MHT chunk's text is put in its place as plain paragraphs (one per block
 * of the HTML: headings, paragraphs, list items, table rows), so the words are not lost; its
 * formatting is. Other formats stay unread, and the reader says so.
 */

import type { Relationship } from "./ooxml.ts";
import { decodeXmlText, type ZipArchive } from "../zip.ts";

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

/**
 * The paragraphs of the chunk the main document's relationship `id` points to; null when it is
 * missing or in a format pterm does not read (RTF, another document).
 */
export async function readAltChunk(
  zip: ZipArchive,
  rels: Map<string, Relationship>,
  id: string,
): Promise<string[] | null> {
  const rel = rels.get(id);
  const bytes = rel && !rel.external ? await zip.read(rel.target) : null;
  if (!rel || bytes === null) return null;
  const raw = decodeXmlText(bytes);
  const kind = rel.target.toLowerCase();
  const html = /\.(mht|mhtml)$/.test(kind) || /^\s*(mime-version|content-type):/i.test(raw)
    ? htmlOfMht(raw)
    : /\.(html?|xhtml)$/.test(kind)
    ? raw
    : null;
  if (html === null) return null;
  // deno-lint-ignore no-control-regex -- control characters of the HTML are not text
  return htmlParagraphs(html).map((line) => line.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, ""))
    .filter(Boolean);
}
