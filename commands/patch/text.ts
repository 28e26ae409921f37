/**
 * A text file as patch operations see it: lines, each kept with its own `\r` when it has one,
 * so an edit never rewrites the line endings of lines it did not touch (mixed files stay mixed).
 * Matching always looks at a line without its `\r`.
 */

/** ignoreBOM: the BOM stays in the decoded text, so fromBytes sees it and toBytes puts it back. */
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Bytes to text without losing any: valid UTF-8 decodes as usual, and each byte of an invalid
 * sequence becomes the lone surrogate U+DC80–U+DCFF (Python's "surrogateescape"), which valid UTF-8
 * never yields — so `encodeLossless` gives back exactly the bytes, and a diff of a Latin-1 file
 * applies byte for byte instead of turning its bytes into U+FFFD.
 */
export function decodeLossless(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch { /* some bytes are not UTF-8: escape them one by one */ }
  const parts: string[] = [];
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const length = b < 0x80
      ? 1
      : b >= 0xc2 && b <= 0xdf
      ? 2
      : b >= 0xe0 && b <= 0xef
      ? 3
      : b >= 0xf0 && b <= 0xf4
      ? 4
      : 0;
    let valid = length > 0 && i + length <= bytes.length;
    if (valid && length > 1) {
      try {
        decoder.decode(bytes.subarray(i, i + length));
      } catch {
        valid = false;
      }
    }
    if (valid) {
      i += length;
      continue;
    }
    if (start < i) parts.push(decoder.decode(bytes.subarray(start, i)));
    parts.push(String.fromCharCode(0xdc00 + b));
    i++;
    start = i;
  }
  if (start < bytes.length) parts.push(decoder.decode(bytes.subarray(start)));
  return parts.join("");
}

/** Text to bytes, the escaped bytes of `decodeLossless` back as they were. */
export function encodeLossless(text: string): Uint8Array {
  if (!/[\udc80-\udcff]/.test(text)) return encoder.encode(text);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++; // a pair: an ordinary character
      continue;
    }
    if (c < 0xdc80 || c > 0xdcff) continue;
    parts.push(encoder.encode(text.slice(start, i)), new Uint8Array([c - 0xdc00]));
    start = i + 1;
  }
  parts.push(encoder.encode(text.slice(start)));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export type EolStyle = "lf" | "crlf";

export class TextDoc {
  /** Lines without their `\n`; a line of a CRLF file keeps its trailing `\r`. */
  lines: string[];
  /** Whether the last line ends with a newline. */
  finalNewline: boolean;
  /** The lines lower-cased and without indentation or `\r`, built on first use and kept in step. */
  #normalized: string[] | null = null;
  /** How many lines end with `\r`, counted on first use and kept in step. */
  #crCount: number | null = null;
  /** Whether the file starts with a UTF-8 byte-order mark: kept through every edit, never matched against. */
  bom: boolean;

  constructor(lines: string[], finalNewline: boolean, bom = false) {
    this.lines = lines;
    this.finalNewline = finalNewline;
    this.bom = bom;
  }

  static fromText(text: string): TextDoc {
    if (text === "") return new TextDoc([], false);
    const lines = text.split("\n");
    const finalNewline = lines[lines.length - 1] === "";
    if (finalNewline) lines.pop();
    return new TextDoc(lines, finalNewline);
  }

  /** Decodes UTF-8; returns null for content that is not text (invalid UTF-8 or a NUL byte). */
  static fromBytes(bytes: Uint8Array): TextDoc | null {
    if (bytes.includes(0)) return null;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return null;
    }
    const bom = text.charCodeAt(0) === 0xfeff;
    const doc = TextDoc.fromText(bom ? text.slice(1) : text);
    doc.bom = bom;
    return doc;
  }

  /**
   * Like `fromBytes`, but bytes that are not UTF-8 are kept as escapes (`decodeLossless`) rather
   * than refused: for git.diff, which applies a diff of such a file byte for byte as git does.
   * Null only for content with a NUL byte (binary to git too).
   */
  static fromBytesLossless(bytes: Uint8Array): TextDoc | null {
    if (bytes.includes(0)) return null;
    const text = decodeLossless(bytes);
    const bom = text.charCodeAt(0) === 0xfeff;
    const doc = TextDoc.fromText(bom ? text.slice(1) : text);
    doc.bom = bom;
    return doc;
  }

  clone(): TextDoc {
    return new TextDoc([...this.lines], this.finalNewline, this.bom);
  }

  get length(): number {
    return this.lines.length;
  }

  /** How many lines end with `\r`. */
  get crLines(): number {
    if (this.#crCount === null) {
      this.#crCount = 0;
      for (const line of this.lines) if (line.endsWith("\r")) this.#crCount++;
    }
    return this.#crCount;
  }

  /** The style most lines use; a file with no line breaks counts as LF. */
  get style(): EolStyle {
    this.crLines;
    const breaks = this.finalNewline ? this.lines.length : this.lines.length - 1;
    return this.#crCount! > 0 && this.#crCount! * 2 >= breaks ? "crlf" : "lf";
  }

  toText(): string {
    if (this.lines.length === 0) return "";
    return this.lines.join("\n") + (this.finalNewline ? "\n" : "");
  }

  toBytes(): Uint8Array {
    return encodeLossless((this.bom ? "\ufeff" : "") + this.toText());
  }

  /** Line `i` (0-based) without its `\r`. */
  plain(i: number): string {
    const line = this.lines[i];
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  }

  /** Line `i` as keyword matching compares it: no indentation, no `\r`, lower case. */
  normalized(i: number): string {
    return this.normalizedLines()[i];
  }

  /** Every line as keyword matching compares it (do not modify). */
  normalizedLines(): readonly string[] {
    this.#normalized ??= this.lines.map(normalizeForMatch);
    return this.#normalized;
  }

  /** Replaces `count` lines at `start` (0-based) with `inserted` (already in the file's style). */
  splice(start: number, count: number, inserted: readonly string[]): void {
    if (this.#crCount !== null) {
      for (let i = start; i < Math.min(start + count, this.lines.length); i++) {
        if (this.lines[i].endsWith("\r")) this.#crCount--;
      }
      for (const line of inserted) if (line.endsWith("\r")) this.#crCount++;
    }
    this.lines.splice(start, count, ...inserted);
    this.#normalized?.splice(start, count, ...inserted.map(normalizeForMatch));
  }

  /** Gives `text`'s lines this file's line ending style, ready to be spliced in. */
  adopt(lines: readonly string[]): string[] {
    const crlf = this.style === "crlf";
    return lines.map((line) => {
      const bare = line.endsWith("\r") ? line.slice(0, -1) : line;
      return crlf ? bare + "\r" : bare;
    });
  }

  /** "确保末尾换行" (ensure a final newline): a non-empty file ends with a line break in its own style. */
  ensureFinalNewline(): void {
    if (this.lines.length === 0) return;
    if (!this.finalNewline && this.style === "crlf") {
      const last = this.lines.length - 1;
      if (!this.lines[last].endsWith("\r")) this.splice(last, 1, [this.lines[last] + "\r"]);
    }
    this.finalNewline = true;
  }
}

export function normalizeForMatch(line: string): string {
  let end = line.length;
  if (end > 0 && line.charCodeAt(end - 1) === 13) end--;
  let start = 0;
  while (start < end && (line.charCodeAt(start) === 32 || line.charCodeAt(start) === 9)) start++;
  return line.slice(start, end).toLowerCase();
}

/** Counts lines added and removed between two line lists, as `git diff --numstat` does (minimal edit script). */
export function countChanges(before: readonly string[], after: readonly string[]): { added: number; removed: number } {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const a = before.slice(start, endBefore);
  const b = after.slice(start, endAfter);
  const common = lcsLength(a, b);
  return { added: b.length - common, removed: a.length - common };
}

/** Past this many differences the count gives up on minimality (an upper bound is still right). */
const MAX_EDIT_DISTANCE = 4000;

/** Length of a longest common subsequence, by Myers' O((N+M)D) algorithm. */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return 0;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
        ? v[offset + k + 1]
        : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return (n + m - d) / 2;
    }
  }
  return 0;
}
