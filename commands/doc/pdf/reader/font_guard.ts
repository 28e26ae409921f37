/**
 * Embedded TrueType and OpenType programs whose tables claim more bytes than the program holds,
 * bounded before PDF.js reads the document.
 *
 * An sfnt program's table directory gives each table an offset and a length; PDF.js trusts the
 * length. Its `post` reader loops until the stream position reaches offset + length, and past the
 * program's end the position stops moving, so one damaged length byte makes it push strings until
 * V8's array limit (~3 GB, tens of seconds). The rule enforced here: no table of an embedded sfnt
 * program may claim bytes the program does not have. A program that breaks it reaches PDF.js with
 * each such length cut to the bytes present — what a careful font parser reads anyway — through an
 * incremental update appended to a copy of the file (the newest definition of an object wins, and
 * nothing before it moves).
 */

import { inflateZlibStream } from "../../../../lib/inflate.ts";
import { Dict, Name, Parser } from "./objects.ts";
import { concatBytes } from "../../../../core/bytes.ts";

/** An sfnt program's first four bytes: TrueType (two spellings), OpenType with CFF, old Apple Type 1. */
const SFNT_TAGS = new Set([0x00010000, 0x74727565, 0x4f54544f, 0x74797031]);

export interface TableOverrun {
  readonly tag: string;
  readonly offset: number;
  readonly length: number;
}

function u32(data: Uint8Array, at: number): number {
  return ((data[at] << 24) | (data[at + 1] << 16) | (data[at + 2] << 8) | data[at + 3]) >>> 0;
}

/** The tables of an sfnt program that run past its end (empty when none does); null when it is not an sfnt program. */
export function sfntOverruns(program: Uint8Array): TableOverrun[] | null {
  if (program.length < 12 || !SFNT_TAGS.has(u32(program, 0))) return null;
  const tables = (program[4] << 8) | program[5];
  const overruns: TableOverrun[] = [];
  for (let i = 0; i < tables && 12 + 16 * i + 16 <= program.length; i++) {
    const entry = 12 + 16 * i;
    const offset = u32(program, entry + 8);
    const length = u32(program, entry + 12);
    if (offset + length > program.length) {
      overruns.push({ tag: String.fromCharCode(...program.subarray(entry, entry + 4)), offset, length });
    }
  }
  return overruns;
}

/** A copy of the program whose table lengths each end at the program's end at the latest. */
export function boundedSfnt(program: Uint8Array): Uint8Array {
  const copy = program.slice();
  const tables = (copy[4] << 8) | copy[5];
  for (let i = 0; i < tables && 12 + 16 * i + 16 <= copy.length; i++) {
    const entry = 12 + 16 * i;
    const offset = u32(copy, entry + 8);
    const length = u32(copy, entry + 12);
    if (offset + length <= copy.length) continue;
    const bounded = Math.max(0, copy.length - offset);
    copy[entry + 12] = bounded >>> 24;
    copy[entry + 13] = (bounded >>> 16) & 0xff;
    copy[entry + 14] = (bounded >>> 8) & 0xff;
    copy[entry + 15] = bounded & 0xff;
  }
  return copy;
}

const encoder = new TextEncoder();

function indexOf(data: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  for (let i = data.indexOf(first, from); i >= 0 && i + needle.length <= data.length; i = data.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.length && data[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}

function lastIndexOf(data: Uint8Array, needle: Uint8Array): number {
  for (let i = data.lastIndexOf(needle[0]); i >= 0; i = data.lastIndexOf(needle[0], i - 1)) {
    let k = 1;
    while (k < needle.length && data[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
    if (i === 0) break;
  }
  return -1;
}

const STREAM = encoder.encode("stream");
const ENDSTREAM = encoder.encode("endstream");
const OBJ = encoder.encode(" obj");

/** The object number and generation written before `obj` ending at `at` (`12 0 obj`), or null. */
function objectHeader(data: Uint8Array, at: number): { num: number; gen: number } | null {
  const text = String.fromCharCode(...data.subarray(Math.max(0, at - 24), at));
  const match = /(\d+)\s+(\d+)$/.exec(text);
  return match ? { num: Number(match[1]), gen: Number(match[2]) } : null;
}

/** Whether a stream's dictionary is an embedded font program's: `Length1` (FontFile2) or `/Subtype /OpenType` (FontFile3). */
function mayBeSfntProgram(dict: Dict): boolean {
  const subtype = dict.getRaw("Subtype");
  return dict.has("Length1") || (subtype instanceof Name && subtype.name === "OpenType");
}

/** The stream's data: as stored, or inflated (FlateDecode alone, no predictor); null for anything else. */
function streamData(dict: Dict, raw: Uint8Array, maxBytes: number): Uint8Array | null {
  let filter = dict.getRaw("Filter");
  if (Array.isArray(filter) && filter.length === 1) filter = filter[0];
  if (filter === undefined || filter === null) return raw;
  if (!(filter instanceof Name) || (filter.name !== "FlateDecode" && filter.name !== "Fl")) return null;
  if (dict.has("DecodeParms") || dict.has("DP")) return null;
  try {
    return inflateZlibStream(raw, Math.max(1024, raw.length * 4), maxBytes).data;
  } catch {
    return null;
  }
}

/**
 * The document as PDF.js may read it: the same bytes when no embedded sfnt program has a table
 * past its end; otherwise a copy with an incremental update that redefines each such program
 * (uncompressed, its table lengths bounded by `boundedSfnt`). An encrypted document is left as it
 * is (its streams cannot be read here). `maxBytes` bounds what inflating one program may produce.
 */
export function boundFontPrograms(bytes: Uint8Array, maxBytes: number): Uint8Array {
  if (indexOf(bytes, encoder.encode("/Encrypt"), 0) >= 0) return bytes;
  const repaired: { num: number; gen: number; program: Uint8Array }[] = [];
  for (let at = indexOf(bytes, STREAM, 0); at >= 0; at = indexOf(bytes, STREAM, at + STREAM.length)) {
    // `stream` right after a dictionary's `>>` (not the tail of `endstream`), then an end of line.
    let before = at - 1;
    while (before >= 0 && (bytes[before] === 0x20 || bytes[before] === 0x0a || bytes[before] === 0x0d)) before--;
    if (before < 1 || bytes[before] !== 0x3e || bytes[before - 1] !== 0x3e) continue;
    let start = at + STREAM.length;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] !== 0x0a) continue;
    start++;
    const objAt = lastIndexOf(bytes.subarray(Math.max(0, at - 65536), at), OBJ);
    if (objAt < 0) continue;
    const objEnd = Math.max(0, at - 65536) + objAt;
    const header = objectHeader(bytes, objEnd);
    if (header === null) continue;
    let dict: unknown;
    try {
      dict = new Parser(bytes, objEnd + OBJ.length, null, at).object();
    } catch {
      continue;
    }
    if (!(dict instanceof Dict) || !mayBeSfntProgram(dict)) continue;
    const declared = dict.getRaw("Length");
    const endstream = indexOf(bytes, ENDSTREAM, start);
    const end = typeof declared === "number" && declared >= 0 && start + declared <= bytes.length
      ? start + declared
      : endstream;
    if (end < 0) continue;
    const program = streamData(dict, bytes.subarray(start, end), maxBytes);
    if (program === null) continue;
    const overruns = sfntOverruns(program);
    if (overruns !== null && overruns.length > 0) repaired.push({ ...header, program: boundedSfnt(program) });
  }
  return repaired.length === 0 ? bytes : withUpdate(bytes, repaired);
}

/** `bytes` with an incremental update redefining `objects` (a new xref section and trailer pointing back). */
function withUpdate(
  bytes: Uint8Array,
  objects: readonly { num: number; gen: number; program: Uint8Array }[],
): Uint8Array {
  const text = (from: number) => String.fromCharCode(...bytes.subarray(from, Math.min(bytes.length, from + 4096)));
  const startxrefAt = lastIndexOf(bytes, encoder.encode("startxref"));
  const prev = startxrefAt >= 0 ? /^startxref\s+(\d+)/.exec(text(startxrefAt))?.[1] : undefined;
  const rootAt = lastIndexOf(bytes, encoder.encode("/Root"));
  const root = rootAt >= 0 ? /^\/Root\s*(\d+\s+\d+\s+R)/.exec(text(rootAt))?.[1] : undefined;
  const infoAt = lastIndexOf(bytes, encoder.encode("/Info"));
  const info = infoAt >= 0 ? /^\/Info\s*(\d+\s+\d+\s+R)/.exec(text(infoAt))?.[1] : undefined;
  const sizeAt = lastIndexOf(bytes, encoder.encode("/Size"));
  const declaredSize = sizeAt >= 0 ? Number(/^\/Size\s*(\d+)/.exec(text(sizeAt))?.[1] ?? 0) : 0;
  const size = Math.max(declaredSize, ...objects.map((o) => o.num + 1));

  const parts: Uint8Array[] = [bytes, encoder.encode("\n")];
  let offset = bytes.length + 1;
  const offsets: number[] = [];
  for (const object of objects) {
    offsets.push(offset);
    const head = encoder.encode(
      `${object.num} ${object.gen} obj\n<< /Length ${object.program.length} /Length1 ${object.program.length} >>\nstream\n`,
    );
    const tail = encoder.encode("\nendstream\nendobj\n");
    parts.push(head, object.program, tail);
    offset += head.length + object.program.length + tail.length;
  }
  let xref = "xref\n0 1\n0000000000 65535 f \n";
  objects.forEach((object, i) => {
    xref += `${object.num} 1\n${String(offsets[i]).padStart(10, "0")} ${String(object.gen).padStart(5, "0")} n \n`;
  });
  xref += `trailer\n<< /Size ${size}${root ? ` /Root ${root}` : ""}${info ? ` /Info ${info}` : ""}${
    prev ? ` /Prev ${prev}` : ""
  } >>\nstartxref\n${offset}\n%%EOF\n`;
  parts.push(encoder.encode(xref));
  const out = concatBytes(parts);
  return out;
}
