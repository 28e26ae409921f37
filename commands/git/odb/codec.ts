/**
 * SHA-1 and zlib, chosen per call count. A one-shot pterm process pays for whatever it loads:
 * `node:crypto` costs 15-30 ms and any `node:` module boots Deno's Node layer (~10 ms), while
 * the web `crypto.subtle` and `(De)CompressionStream` cost nothing to load but ~0.05-0.15 ms
 * per call. So the first calls use the web APIs; a run that hashes or (de)compresses many
 * objects switches to a synchronous pure-JS SHA-1 and Node's zlib.
 */

import { concatBytes } from "../../../core/bytes.ts";
import { toHex } from "./bytes.ts";
import { inflateZlibSync } from "../../../lib/inflate.ts";

const WEB_SHA1_CALLS = 64;
const WEB_DEFLATE_CALLS = 32;
const WEB_INFLATE_CALLS = 96;
/** Above this size the native digest wins whatever the count. */
const LARGE = 256 * 1024;

let sha1Calls = 0;
let deflateCalls = 0;
let inflateCalls = 0;

interface Zlib {
  deflateSync(data: Uint8Array, options: { level: number }): Uint8Array;
  inflateSync(data: Uint8Array): Uint8Array;
}
let zlib: Promise<Zlib> | null = null;
let zlibLoaded = false;
const loadZlib = () => (zlib ??= import("node:zlib").then((m) => {
  zlibLoaded = true;
  return (m.default ?? m) as unknown as Zlib;
}));

/** Hex SHA-1 of the concatenation of `parts`. */
export async function sha1(...parts: Uint8Array[]): Promise<string> {
  let length = 0;
  for (const part of parts) length += part.length;
  if (++sha1Calls > WEB_SHA1_CALLS && length < LARGE) return sha1Sync(...parts);
  const data = parts.length === 1 ? parts[0] : concatBytes(parts);
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-1", data as Uint8Array<ArrayBuffer>)));
}

/** Objects up to this size are stored uncompressed (a valid zlib stream, as git's core.compression=0 writes). */
const SMALL_DEFLATE = 2048;

/**
 * zlib (RFC 1950) compression at level 1, git's default for loose objects. Small objects (a
 * commit, most trees) are written as "stored" blocks: on disk they take the same filesystem
 * block either way, and no compressor has to be booted for them.
 */
export async function deflate(data: Uint8Array): Promise<Uint8Array> {
  if (data.length <= SMALL_DEFLATE && !zlibLoaded) return storedZlib(data);
  if (++deflateCalls > WEB_DEFLATE_CALLS || zlibLoaded) {
    return new Uint8Array((await loadZlib()).deflateSync(data, { level: 1 }));
  }
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Compressed objects up to this size are inflated in JavaScript (no engine to boot). */
const SMALL_INFLATE = 16 * 1024;

export async function inflate(data: Uint8Array): Promise<Uint8Array> {
  if (data.length <= SMALL_INFLATE && !zlibLoaded) return inflateZlibSync(data);
  if (++inflateCalls > WEB_INFLATE_CALLS || zlibLoaded) return new Uint8Array((await loadZlib()).inflateSync(data));
  return await webInflate(data);
}

/**
 * The web DecompressionStream, written and read directly: a third less CPU than through a Blob's
 * stream and a Response (measured on a 3 MB blob: ~11 ms against ~16), and one chunk out is
 * returned as it is. Bad or truncated data (or bytes after the stream's end) fail the read.
 */
async function webInflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new DecompressionStream("deflate");
  const writer = stream.writable.getWriter();
  // The writer's promises fail exactly when the reader does; the reader's failure is the one thrown.
  writer.write(data as Uint8Array<ArrayBuffer>).catch(() => {});
  writer.close().catch(() => {});
  const reader = stream.readable.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0] : concatBytes(chunks);
}

/** A zlib stream of stored (uncompressed) deflate blocks. */
export function storedZlib(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / 65535));
  const out = new Uint8Array(2 + blocks * 5 + data.length + 4);
  out[0] = 0x78;
  out[1] = 0x01;
  let o = 2;
  for (let b = 0; b < blocks; b++) {
    const start = b * 65535;
    const len = Math.min(65535, data.length - start);
    out[o++] = b === blocks - 1 ? 1 : 0;
    out[o++] = len & 0xff;
    out[o++] = len >> 8;
    out[o++] = ~len & 0xff;
    out[o++] = (~len >> 8) & 0xff;
    out.set(data.subarray(start, start + len), o);
    o += len;
  }
  let a = 1;
  let b = 0;
  for (let i = 0; i < data.length; i++) {
    a = (a + data[i]) % 65521;
    b = (b + a) % 65521;
  }
  out[o++] = b >> 8;
  out[o++] = b & 0xff;
  out[o++] = a >> 8;
  out[o++] = a & 0xff;
  return out;
}

/** The padded message of sha1Sync, reused (hashing is synchronous): a bulk add allocates nothing per file. */
let shaScratch = new Uint8Array(4096);
const shaWords = new Int32Array(80);
const HEX_OF_NIBBLE = "0123456789abcdef";

/** A 32-bit word as 8 lowercase hex digits. */
function wordHex(x: number): string {
  let out = "";
  for (let shift = 28; shift >= 0; shift -= 4) out += HEX_OF_NIBBLE[(x >>> shift) & 15];
  return out;
}

/**
 * FIPS 180-4 SHA-1 of the concatenation of `parts`, synchronous. Written for V8: big-endian words
 * read byte by byte (no DataView), the four round functions in four loops (no branch per round).
 */
export function sha1Sync(...parts: Uint8Array[]): string {
  let length = 0;
  for (const part of parts) length += part.length;
  const blocks = Math.ceil((length + 9) / 64);
  if (shaScratch.length < blocks * 64) shaScratch = new Uint8Array(Math.max(blocks * 64, 2 * shaScratch.length));
  const p = shaScratch;
  const end = blocks * 64;
  let at = 0;
  for (const part of parts) {
    p.set(part, at);
    at += part.length;
  }
  p.fill(0, length, end);
  p[length] = 0x80;
  const bits = length * 8;
  const high = Math.floor(bits / 2 ** 32);
  const low = bits >>> 0;
  p[end - 8] = high >>> 24;
  p[end - 7] = high >>> 16;
  p[end - 6] = high >>> 8;
  p[end - 5] = high;
  p[end - 4] = low >>> 24;
  p[end - 3] = low >>> 16;
  p[end - 2] = low >>> 8;
  p[end - 1] = low;
  let h0 = 0x67452301, h1 = 0xefcdab89 | 0, h2 = 0x98badcfe | 0, h3 = 0x10325476, h4 = 0xc3d2e1f0 | 0;
  const w = shaWords;
  for (let base = 0; base < end; base += 64) {
    for (let i = 0, b = base; i < 16; i++, b += 4) w[i] = (p[b] << 24) | (p[b + 1] << 16) | (p[b + 2] << 8) | p[b + 3];
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
      w[i] = (x << 1) | (x >>> 31);
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, t = 0;
    for (let i = 0; i < 20; i++) {
      t = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (let i = 20; i < 40; i++) {
      t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (let i = 40; i < 60; i++) {
      t = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e + 0x8f1bbcdc + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (let i = 60; i < 80; i++) {
      t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0xca62c1d6 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  return wordHex(h0) + wordHex(h1) + wordHex(h2) + wordHex(h3) + wordHex(h4);
}
