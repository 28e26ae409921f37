/**
 * A small synchronous zlib inflater (RFC 1950/1951: stored, fixed and dynamic Huffman blocks),
 * decoding canonical Huffman codes bit by bit as zlib's `puff` does. Used for small objects
 * (commits, trees, small files): a one-shot process then pays neither for booting the web
 * streams (~6 ms) nor Node's zlib (~10 ms) to read a handful of objects.
 */

class BitReader {
  pos: number;
  bitBuf = 0;
  bitCount = 0;
  constructor(readonly src: Uint8Array, start: number) {
    this.pos = start;
  }
  bits(need: number): number {
    let value = this.bitBuf;
    while (this.bitCount < need) {
      if (this.pos >= this.src.length) throw new Error("inflate: input ended early");
      value |= this.src[this.pos++] << this.bitCount;
      this.bitCount += 8;
    }
    this.bitBuf = value >>> need;
    this.bitCount -= need;
    return value & ((1 << need) - 1);
  }
}

interface Huffman {
  count: Uint16Array;
  symbol: Uint16Array;
}

const MAX_BITS = 15;

function construct(lengths: Uint8Array | number[], n: number): Huffman {
  const count = new Uint16Array(MAX_BITS + 1);
  const symbol = new Uint16Array(n);
  for (let s = 0; s < n; s++) count[lengths[s]]++;
  count[0] = 0;
  const offs = new Uint16Array(MAX_BITS + 1);
  for (let len = 1; len < MAX_BITS; len++) offs[len + 1] = offs[len] + count[len];
  for (let s = 0; s < n; s++) if (lengths[s] !== 0) symbol[offs[lengths[s]]++] = s;
  return { count, symbol };
}

function decode(r: BitReader, h: Huffman): number {
  let code = 0;
  let first = 0;
  let index = 0;
  for (let len = 1; len <= MAX_BITS; len++) {
    code |= r.bits(1);
    const count = h.count[len];
    if (code - count < first) return h.symbol[index + (code - first)];
    index += count;
    first += count;
    first <<= 1;
    code <<= 1;
  }
  throw new Error("inflate: bad Huffman code");
}

const LENGTH_BASE = [
  3,
  4,
  5,
  6,
  7,
  8,
  9,
  10,
  11,
  13,
  15,
  17,
  19,
  23,
  27,
  31,
  35,
  43,
  51,
  59,
  67,
  83,
  99,
  115,
  131,
  163,
  195,
  227,
  258,
];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1,
  2,
  3,
  4,
  5,
  7,
  9,
  13,
  17,
  25,
  33,
  49,
  65,
  97,
  129,
  193,
  257,
  385,
  513,
  769,
  1025,
  1537,
  2049,
  3073,
  4097,
  6145,
  8193,
  12289,
  16385,
  24577,
];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CODE_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

let fixed: { lencode: Huffman; distcode: Huffman } | null = null;
function fixedTables() {
  if (fixed) return fixed;
  const lengths = new Uint8Array(288);
  lengths.fill(8, 0, 144);
  lengths.fill(9, 144, 256);
  lengths.fill(7, 256, 280);
  lengths.fill(8, 280, 288);
  const dist = new Uint8Array(30).fill(5);
  fixed = { lencode: construct(lengths, 288), distcode: construct(dist, 30) };
  return fixed;
}

class Output {
  buf: Uint8Array;
  len = 0;
  constructor(hint: number) {
    this.buf = new Uint8Array(Math.max(64, hint));
  }
  ensure(extra: number) {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
}

function codes(r: BitReader, out: Output, lencode: Huffman, distcode: Huffman): void {
  for (;;) {
    let symbol = decode(r, lencode);
    if (symbol < 256) {
      out.ensure(1);
      out.buf[out.len++] = symbol;
      continue;
    }
    if (symbol === 256) return;
    symbol -= 257;
    if (symbol >= 29) throw new Error("inflate: bad length symbol");
    const length = LENGTH_BASE[symbol] + r.bits(LENGTH_EXTRA[symbol]);
    const ds = decode(r, distcode);
    if (ds >= 30) throw new Error("inflate: bad distance symbol");
    const dist = DIST_BASE[ds] + r.bits(DIST_EXTRA[ds]);
    if (dist > out.len) throw new Error("inflate: distance too far back");
    out.ensure(length);
    const buf = out.buf;
    for (let i = 0; i < length; i++, out.len++) buf[out.len] = buf[out.len - dist];
  }
}

function dynamic(r: BitReader, out: Output): void {
  const nlen = r.bits(5) + 257;
  const ndist = r.bits(5) + 1;
  const ncode = r.bits(4) + 4;
  if (nlen > 286 || ndist > 30) throw new Error("inflate: bad counts");
  const lengths = new Uint8Array(320);
  for (let i = 0; i < ncode; i++) lengths[CODE_ORDER[i]] = r.bits(3);
  const lencode = construct(lengths, 19);
  let index = 0;
  const all = new Uint8Array(nlen + ndist);
  while (index < nlen + ndist) {
    let symbol = decode(r, lencode);
    if (symbol < 16) {
      all[index++] = symbol;
      continue;
    }
    let len = 0;
    if (symbol === 16) {
      if (index === 0) throw new Error("inflate: repeat with no first length");
      len = all[index - 1];
      symbol = 3 + r.bits(2);
    } else if (symbol === 17) symbol = 3 + r.bits(3);
    else symbol = 11 + r.bits(7);
    if (index + symbol > nlen + ndist) throw new Error("inflate: too many lengths");
    while (symbol--) all[index++] = len;
  }
  if (all[256] === 0) throw new Error("inflate: no end-of-block code");
  codes(r, out, construct(all.subarray(0, nlen), nlen), construct(all.subarray(nlen), ndist));
}

/** Inflates a zlib stream (header, deflate data; the Adler-32 trailer is not checked). */
export function inflateZlibSync(src: Uint8Array, sizeHint = src.length * 4): Uint8Array {
  return inflateZlibStream(src, sizeHint).data;
}

/**
 * Inflates the zlib stream at the start of `src` (more bytes may follow it, as in a pack) and
 * says where it ended: `end` is the offset just past its Adler-32 trailer.
 */
export function inflateZlibStream(src: Uint8Array, sizeHint = src.length * 4): { data: Uint8Array; end: number } {
  if (src.length < 2 || (src[0] & 0x0f) !== 8 || ((src[0] << 8) | src[1]) % 31 !== 0 || (src[1] & 0x20) !== 0) {
    throw new Error("inflate: not a zlib stream");
  }
  const r = new BitReader(src, 2);
  const out = new Output(sizeHint);
  let last = 0;
  while (!last) {
    last = r.bits(1);
    const type = r.bits(2);
    if (type === 0) {
      r.bitBuf = 0;
      r.bitCount = 0;
      if (r.pos + 4 > src.length) throw new Error("inflate: input ended early");
      const len = src[r.pos] | (src[r.pos + 1] << 8);
      const nlen = src[r.pos + 2] | (src[r.pos + 3] << 8);
      if (len !== (~nlen & 0xffff)) throw new Error("inflate: bad stored block");
      r.pos += 4;
      if (r.pos + len > src.length) throw new Error("inflate: input ended early");
      out.ensure(len);
      out.buf.set(src.subarray(r.pos, r.pos + len), out.len);
      out.len += len;
      r.pos += len;
    } else if (type === 1) {
      const t = fixedTables();
      codes(r, out, t.lencode, t.distcode);
    } else if (type === 2) {
      dynamic(r, out);
    } else throw new Error("inflate: bad block type");
  }
  if (r.pos + 4 > src.length) throw new Error("inflate: input ended early");
  return { data: out.buf.subarray(0, out.len), end: r.pos + 4 };
}
