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

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let out = "";
  for (let i = start; i < end; i++) out += HEX[bytes[i]];
  return out;
}

export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
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
    return compareBytes(encoder.encode(a.slice(i)), encoder.encode(b.slice(i)));
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
