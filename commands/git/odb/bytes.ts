/** Byte-level helpers shared by the object, index and ref code. */

export const encoder = new TextEncoder();
/** Git paths and messages are bytes; we treat them as UTF-8 and keep invalid bytes visible rather than throwing. */
export const lenientDecoder = new TextDecoder("utf-8", { fatal: false });

/**
 * Bytes as a string of one character per byte (U+0000–U+00FF), and back: lossless for any
 * content, whatever its encoding (UTF-8 with or without a BOM, Latin-1, CRLF), for code that
 * works on lines — the three-way merge — and must give back exactly the bytes it was given.
 */
export function bytesToByteString(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return out;
}

export function byteStringToBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff) throw new RangeError("byteStringToBytes: a character outside U+0000–U+00FF");
    out[i] = code;
  }
  return out;
}

// ---- names: bytes in git, strings here ------------------------------------------------------

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A path name from the index or a tree. git names are bytes; most are UTF-8 and decode as such.
 * A byte that is not part of valid UTF-8 (a Latin-1 `é` as 0xE9) becomes the lone surrogate
 * U+DC80–U+DCFF (Python's "surrogateescape"), so `encodeName` gives back exactly the bytes: a
 * name pterm cannot show as text is still written back unchanged, never mangled.
 */
export function decodeName(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    let out = "";
    let i = 0;
    while (i < bytes.length) {
      const length = utf8SequenceLength(bytes, i);
      if (length > 0) {
        out += strictUtf8.decode(bytes.subarray(i, i + length));
        i += length;
      } else {
        out += String.fromCharCode(0xdc00 + bytes[i]);
        i++;
      }
    }
    return out;
  }
}

/** The length of a valid UTF-8 sequence at `i`, or 0 when the byte there does not start one. */
function utf8SequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i];
  if (b < 0x80) return 1;
  const length = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
  if (length === 0 || i + length > bytes.length) return 0;
  for (let k = 1; k < length; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return 0;
  try {
    strictUtf8.decode(bytes.subarray(i, i + length)); // overlongs and surrogates
    return length;
  } catch {
    return 0;
  }
}

/** Whether `name` holds bytes that are not UTF-8 (escaped by `decodeName`). */
export function hasRawBytes(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      i++; // a pair: a real character
      continue;
    }
    if (c >= 0xdc80 && c <= 0xdcff) return true;
  }
  return false;
}

/** The bytes of a name, undoing `decodeName`'s escapes. */
export function encodeName(name: string): Uint8Array {
  if (!hasRawBytes(name)) return encoder.encode(name);
  const parts: number[] = [];
  let run = "";
  const flush = () => {
    if (run) parts.push(...encoder.encode(run));
    run = "";
  };
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < name.length) {
      run += name[i] + name[i + 1];
      i++;
    } else if (c >= 0xdc80 && c <= 0xdcff) {
      flush();
      parts.push(c - 0xdc00);
    } else run += name[i];
  }
  flush();
  return Uint8Array.from(parts);
}

/**
 * A name for people, quoted as git quotes it (quote.c's quote_c_style): wrapped in double quotes
 * when it has a control byte, DEL, a `"` or a `\`, or — while `quotePath` (core.quotePath, git's
 * default) holds — a byte outside ASCII; `\a \b \t \n \v \f \r` as letters, the other bytes
 * as octal escapes (`"caf\303\251.txt"`). With core.quotePath=false the bytes outside ASCII are
 * written as they are (`café.txt`), as git writes them; a byte that is not UTF-8 (which text cannot
 * carry) keeps its octal escape. Diff headers quote `a/` + name as one (git's quote_two).
 */
export function quoteName(name: string, quotePath: boolean): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x80) {
      const escape = asciiEscape(c);
      if (escape === null) out += name[i];
      else {
        out += escape;
        quoted = true;
      }
    } else if (c >= 0xdc80 && c <= 0xdcff) {
      // A byte `decodeName` kept because it is not UTF-8: escaped whatever the setting.
      out += "\\" + (c - 0xdc00).toString(8).padStart(3, "0");
      quoted = true;
    } else {
      const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < name.length;
      const character = pair ? name.slice(i, i + 2) : name[i];
      if (pair) i++;
      if (!quotePath) out += character;
      else {
        for (const b of encoder.encode(character)) out += "\\" + b.toString(8).padStart(3, "0");
        quoted = true;
      }
    }
  }
  return quoted ? `"${out}"` : name;
}

/** How quote_c_style writes an ASCII byte inside quotes, or null when it goes as it is (and needs no quotes). */
function asciiEscape(b: number): string | null {
  if (b === 0x22 || b === 0x5c) return "\\" + String.fromCharCode(b);
  if (b >= 0x20 && b < 0x7f) return null;
  if (b >= 0x07 && b <= 0x0d) return "\\" + "abtnvfr"[b - 0x07];
  return "\\" + b.toString(8).padStart(3, "0");
}

/**
 * The columns `text` takes on a terminal, as git's utf8_strwidth counts them: wide East Asian
 * characters (and emoji) two, combining marks and control characters none, the rest one.
 */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || (code >= 0x7f && code < 0xa0) || (code >= 0x300 && code < 0x370) || code === 0x200b) continue;
    const wide = (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
      (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1faff) ||
      (code >= 0x20000 && code <= 0x3fffd);
    width += wide ? 2 : 1;
  }
  return width;
}

/**
 * The bytes from `start` to `end` in lowercase hex. One native call (`Uint8Array.prototype.toHex`)
 * makes a flat string: an object id built digit by digit is a chain of 20 joined strings, slower to
 * build in a one-shot process and flattened again when it is first used as a key.
 */
export function toHex(bytes: Uint8Array, start = 0, end = bytes.length): string {
  return (start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end)).toHex();
}

/** The value of each hex digit's char code, either case (callers pass object names already checked as hex). */
const HEX_VALUE = (() => {
  const table = new Uint8Array(128);
  for (let i = 0; i < 16; i++) {
    table["0123456789abcdef".charCodeAt(i)] = i;
    table["0123456789ABCDEF".charCodeAt(i)] = i;
  }
  return table;
})();

export function fromHex(hex: string): Uint8Array {
  return fromHexInto(hex, new Uint8Array(hex.length >> 1));
}

/** `fromHex` into `out` (its first `hex.length / 2` bytes), for lookups that reuse one buffer. */
export function fromHexInto(hex: string, out: Uint8Array): Uint8Array {
  const n = hex.length >> 1;
  for (let i = 0; i < n; i++) {
    out[i] = (HEX_VALUE[hex.charCodeAt(2 * i) & 127] << 4) | HEX_VALUE[hex.charCodeAt(2 * i + 1) & 127];
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Git's path order: plain byte order of the UTF-8 encoding. */
export function comparePaths(a: string, b: string): number {
  // For ASCII (the usual case) JS string order equals byte order; fall back to bytes otherwise.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    if (ca < 0x80 && cb < 0x80) return ca - cb;
    return compareBytes(encodeName(a), encodeName(b));
  }
  return a.length - b.length;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Git's binary heuristic: a NUL byte in the first 8000 bytes. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8000);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

export const ZERO_OID = "0000000000000000000000000000000000000000";
export const EMPTY_TREE_OID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
export const EMPTY_BLOB_OID = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

export function isFullOid(text: string): boolean {
  return /^[0-9a-f]{40}$/.test(text);
}
