/**
 * What a file really is, from its bytes (never from its name): the magic number, and for ZIP
 * containers the parts inside. Also recognises the OLE compound file that Office writes for a
 * password-protected document (an `EncryptedPackage` stream) and the legacy binary formats.
 */

import { delimiterOf } from "./csv.ts";
import { odfFormatOf } from "./odf.ts";
import { findMainPart } from "./ooxml/ooxml.ts";

/**
 * No reader of RTF runs under Deno that is maintained (npm's rtf-parser and rtf.js are unmaintained
 * or need a browser DOM), and RTF's control words are a language of their own: refused, with why.
 */
const RTF = "an RTF document (no maintained RTF reader runs under Deno; save it as DOCX or PDF from the " +
  "program that made it, or with LibreOffice)";
import type { ZipArchive } from "./zip.ts";

import type { DocFormat } from "./formats.ts";

export type Detection =
  | {
    readonly kind: "supported";
    readonly format: DocFormat;
    /** An Office package, and its main part as its root relationship names it. */
    readonly zip?: ZipArchive;
    readonly mainPart?: string;
  }
  | { readonly kind: "encrypted-office"; readonly description: string }
  /** A document of a known kind whose package lacks what it names (CorruptInput, not another format). */
  | { readonly kind: "damaged"; readonly description: string }
  | { readonly kind: "unsupported"; readonly description: string };

const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  return prefix.every((b, i) => bytes[at + i] === b);
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, Math.min(end, bytes.length)));
}

/**
 * The names of the streams and storages of an OLE compound file. Directory entries are 128
 * bytes at 128-byte-aligned offsets after the 512-byte header (sectors are 512 or 4096
 * bytes), so scanning aligned slots for well-formed entries finds them without following the
 * allocation chains.
 */
export function oleStreamNames(bytes: Uint8Array): Set<string> {
  const names = new Set<string>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 512; at + 128 <= bytes.length; at += 128) {
    const nameBytes = view.getUint16(at + 64, true);
    const type = bytes[at + 66];
    if (nameBytes < 4 || nameBytes > 64 || nameBytes % 2 !== 0 || type < 1 || type > 5) continue;
    if (view.getUint16(at + nameBytes - 2, true) !== 0) continue;
    let name = "";
    let printable = true;
    for (let i = 0; i < nameBytes - 2; i += 2) {
      const code = view.getUint16(at + i, true);
      if (code === 0) {
        printable = false;
        break;
      }
      name += String.fromCharCode(code);
    }
    if (printable) names.add(name);
  }
  return names;
}

function describeOle(bytes: Uint8Array): Detection {
  const names = oleStreamNames(bytes);
  if (names.has("EncryptedPackage") || names.has("EncryptionInfo")) {
    return { kind: "encrypted-office", description: "a password-protected Office document (encrypted OOXML package)" };
  }
  if (names.has("WordDocument")) {
    return { kind: "unsupported", description: "a legacy Word 97-2003 document (.doc)" };
  }
  if (names.has("Workbook") || names.has("Book")) {
    return { kind: "unsupported", description: "a legacy Excel 97-2003 workbook (.xls)" };
  }
  if (names.has("PowerPoint Document")) {
    return { kind: "unsupported", description: "a legacy PowerPoint 97-2003 presentation (.ppt)" };
  }
  return { kind: "unsupported", description: "an OLE compound file (a legacy Office or Outlook file)" };
}

async function describeZip(zip: ZipArchive): Promise<Detection> {
  const main = await findMainPart(zip);
  if (main.kind === "found") return { kind: "supported", format: main.format, zip, mainPart: main.part };
  if (main.kind === "missing") {
    return {
      kind: "damaged",
      description: `${article(main.label)} ${main.label} package whose main part (${main.part}) is missing`,
    };
  }
  if (zip.has("mimetype") && zip.has("content.xml")) {
    const mimetype = (await zip.readText("mimetype")) ?? "";
    const format = odfFormatOf(mimetype.slice(0, 200));
    if (format !== null) return { kind: "supported", format, zip };
    return {
      kind: "unsupported",
      description: `an OpenDocument file of a kind doc does not read (${mimetype.trim()})`,
    };
  }
  if (zip.has("META-INF/container.xml") && zip.names.some((name) => /\.opf$/i.test(name))) {
    return { kind: "supported", format: "epub", zip };
  }
  if (zip.has("[Content_Types].xml")) {
    return { kind: "unsupported", description: "an OPC package that is not a Word, PowerPoint or Excel document" };
  }
  return { kind: "unsupported", description: "a ZIP archive that is not an Office document" };
}

/** "a" or "an", by the sound of the word that follows (a Word, an Excel; an XML, a PDF, spelled out letter by letter). */
export function article(word: string): "a" | "an" {
  if (/^[A-Z]{2,}\b/.test(word)) return /^[AEFHILMNORSX]/.test(word) ? "an" : "a";
  return /^[aeiou]/i.test(word) ? "an" : "a";
}

/**
 * Text in an ASCII-compatible encoding (UTF-8, Latin-1, Windows-1252…): no NUL byte and hardly
 * any control byte in its first 4 KiB. Whether its bytes are valid in its encoding is the
 * reader's to check (and to refuse).
 */
function looksLikeText(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 4096);
  if (sample.includes(0)) return false;
  let controls = 0;
  for (const byte of sample) {
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) controls++;
  }
  return controls <= sample.length / 100;
}

/** Larger JSON is recognised by its first character only: parsing it twice would cost its size again. */
const JSON_PARSE_LIMIT = 16 * 1024 * 1024;

/** HTML, XML, JSON, CSV/TSV: what a text file is, from its first characters (null: plain text). */
function textFormat(bytes: Uint8Array): DocFormat | null {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (!utf16 && !looksLikeText(bytes)) return null;
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : utf16 ? 2 : 0;
  const head =
    (utf16
      ? new TextDecoder(bytes[0] === 0xff ? "utf-16le" : "utf-16be").decode(bytes.subarray(2, 131072))
      : new TextDecoder("latin1").decode(bytes.subarray(start, 65536))).trimStart();
  const lower = head.slice(0, 2048).toLowerCase();
  const afterProlog = lower.replace(/^(<\?xml[^>]*>|<!--[\s\S]*?-->|\s)+/, "");
  if (/^<!doctype html|^<html[\s>]/.test(afterProlog) || (/^<(head|body|meta|title)[\s>]/.test(afterProlog))) {
    return "html";
  }
  if (/^<office:document[\s>]/.test(afterProlog)) {
    const flat = odfFormatOf(/office:mimetype\s*=\s*["']([^"']*)["']/.exec(head.slice(0, 4096))?.[1] ?? "");
    if (flat !== null) return flat;
  }
  if (/^<(\?xml|!doctype|[a-z_][\w.:-]*[\s/>])/.test(lower)) return "xml";
  if (head.startsWith("{") || head.startsWith("[")) {
    if (bytes.length > JSON_PARSE_LIMIT) return "json";
    try {
      JSON.parse(utf16 ? head : new TextDecoder().decode(bytes.subarray(start)));
      return "json";
    } catch {
      return null;
    }
  }
  if (delimiterOf(head.slice(0, 8192))) return "csv";
  return null;
}

function describeOther(bytes: Uint8Array): string {
  if (bytes.length === 0) return "an empty file";
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47])) return "a PNG image";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "a JPEG image";
  if (ascii(bytes, 0, 4) === "GIF8") return "a GIF image";
  if (startsWith(bytes, [0x1f, 0x8b])) return "a gzip archive";

  if (ascii(bytes, 0, 4) === "Rar!") return "a RAR archive";
  if (startsWith(bytes, [0x37, 0x7a, 0xbc, 0xaf])) return "a 7-Zip archive";
  if (ascii(bytes, 0, 4) === "%!PS") return "a PostScript file";
  if (looksLikeText(bytes)) return "plain text";
  return "binary data of an unknown kind";
}

/**
 * Detects the format. A ZIP container is opened (central directory only) to see which
 * document it holds; a damaged container throws CorruptInput from there.
 */
export async function detect(
  bytes: Uint8Array,
  openZip: (bytes: Uint8Array) => ZipArchive,
): Promise<Detection> {
  // PDF readers accept the header anywhere in the first KiB (some files start with junk).
  if (ascii(bytes, 0, 1024).includes("%PDF-")) return { kind: "supported", format: "pdf" };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])) {
    return await describeZip(openZip(bytes));
  }
  if (startsWith(bytes, OLE_MAGIC)) return describeOle(bytes);
  if (ascii(bytes, 0, 5) === "{\\rtf") return { kind: "unsupported", description: RTF };
  const text = textFormat(bytes);
  if (text !== null) return { kind: "supported", format: text };
  return { kind: "unsupported", description: describeOther(bytes) };
}
