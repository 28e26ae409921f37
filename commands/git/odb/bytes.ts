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
 * What pterm says when a repository sets core.quotePath to false: its texts quote a name with a
 * byte outside ASCII as git's default does (`"caf\303\251.txt"`), where that git would print the
 * name as it is — said on every call, never ignored in silence. Null when the setting is git's default.
 */
export function quotePathNote(setting: string | undefined): string | null {
  if (setting === undefined || !/^(false|no|off|0)$/i.test(setting.trim())) return null;
  return "[Note] core.quotePath=false is not followed: names with bytes outside ASCII are quoted as git quotes " +
    'them by default ("caf\\303\\251.txt"); the structured result has each name as it is.\n';
}

/**
 * A name for people, quoted as git quotes it (quote_c_style, core.quotePath): wrapped in double
 * quotes when it has a byte outside printable ASCII, a `"` or a `\`; `\a \b \t \n \v \f \r`
 * as letters, other bytes as octal escapes (`"caf\351.txt"`). Diff headers quote `a/` + name
 * as one (git's quote_two).
 */
export function quoteName(name: string): string {
  const bytes = encodeName(name);
  if (bytes.every((b) => b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c)) return name;
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += "\\" + String.fromCharCode(b);
    else if (b >= 0x07 && b <= 0x0d) out += "\\" + "abtnvfr"[b - 0x07];
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += "\\" + b.toString(8).padStart(3, "0");
  }
  return out + '"';
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let out = "";
  for (let i = start; i < end; i++) out += HEX[bytes[i]];
  return out;
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
