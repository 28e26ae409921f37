/**
 * A small synchronous zlib inflater (RFC 1950/1951: stored, fixed and dynamic Huffman blocks).
 * Used for small objects (commits, trees, small files) — a one-shot process then pays neither
 * for booting the web streams (~6 ms) nor Node's zlib (~10 ms) to read a handful of objects —
 * and by the pack indexer for every object it inflates (`inflateInto`: into a buffer the caller
 * owns, so tens of thousands of objects allocate nothing).
 *
 * Codes are decoded through a lookup table of their first PRIMARY_BITS bits (built per block);
 * the rare longer codes are decoded canonically from the bits already in hand, as zlib's `puff`
 * does, without a second table.
 */

const MAX_BITS = 15;
/** Bits looked up at once: the literal/length table has 2^9 entries, the distance table 2^7. */
const LITLEN_BITS = 9;
const DIST_BITS = 7;
const CODELEN_BITS = 7;

/** Thrown when the input stops before the stream does (the caller may retry with more of it). */
export const INPUT_ENDED_EARLY = "inflate: input ended early";
const OUTPUT_TOO_LARGE = "inflate: output larger than expected";
/** Thrown by `inflateZlibStream` when the output would pass the caller's `maxOutput`. */
export const OUTPUT_OVER_LIMIT = "inflate: output larger than the limit";

/**
 * A canonical Huffman code: `table[bits]` is `symbol << 4 | length` for codes up to `bits` long
 * (0 for a longer code, decoded from `count`/`symbol`).
 */
interface Huffman {
  readonly table: Int32Array;
  readonly bits: number;
  readonly count: Uint16Array;
  readonly symbol: Uint16Array;
}

function newHuffman(bits: number, symbols: number): Huffman {
  return {
    table: new Int32Array(1 << bits),
    bits,
    count: new Uint16Array(MAX_BITS + 1),
    symbol: new Uint16Array(symbols),
  };
}

/** The most bits a lookup table takes (codes longer than a table's bits are not in it). */
const TABLE_BITS_MAX = Math.max(LITLEN_BITS, DIST_BITS, CODELEN_BITS);

/** Each TABLE_BITS_MAX-bit number with its bits in reverse order. */
const REVERSED = Uint16Array.from({ length: 1 << TABLE_BITS_MAX }, (_, c) => {
  let reversed = 0;
  for (let k = 0; k < TABLE_BITS_MAX; k++) reversed = (reversed << 1) | ((c >> k) & 1);
  return reversed;
});

const offs = new Uint16Array(MAX_BITS + 2);
const nextCode = new Uint16Array(MAX_BITS + 2);

/** Builds `h` for the code lengths `lengths[0..n)`; false when they are over-subscribed. */
function build(h: Huffman, lengths: Uint8Array, n: number): boolean {
  const { count, symbol, table, bits } = h;
  count.fill(0);
  for (let s = 0; s < n; s++) count[lengths[s]]++;
  count[0] = 0;
  let left = 1;
  for (let len = 1; len <= MAX_BITS; len++) {
    left <<= 1;
    left -= count[len];
    if (left < 0) return false;
  }
  offs[1] = 0;
  for (let len = 1; len < MAX_BITS; len++) offs[len + 1] = offs[len] + count[len];
  for (let s = 0; s < n; s++) if (lengths[s] !== 0) symbol[offs[lengths[s]]++] = s;
  table.fill(0);
  // The first code of each length (RFC 1951 3.2.2): codes of one length are consecutive, in symbol order.
  let code = 0;
  for (let len = 1; len <= MAX_BITS; len++) {
    nextCode[len] = code;
    code = (code + count[len]) << 1;
  }
  const size = 1 << bits;
  for (let s = 0; s < n; s++) {
    const len = lengths[s];
    if (len === 0 || len > bits) continue;
    // The stream sends a code's bits most significant first into a least-significant-first reader.
    const reversed = REVERSED[nextCode[len]++] >> (TABLE_BITS_MAX - len);
    const entry = (s << 4) | len;
    for (let k = reversed; k < size; k += 1 << len) table[k] = entry;
  }
  return true;
}

const LENGTH_BASE = new Uint16Array([
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
]);
const LENGTH_EXTRA = new Uint8Array([
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  1,
  1,
  1,
  1,
  2,
  2,
  2,
  2,
  3,
  3,
  3,
  3,
  4,
  4,
  4,
  4,
  5,
  5,
  5,
  5,
  0,
]);
const DIST_BASE = new Uint16Array([
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
]);
const DIST_EXTRA = new Uint8Array([
  0,
  0,
  0,
  0,
  1,
  1,
  2,
  2,
  3,
  3,
  4,
  4,
  5,
  5,
  6,
  6,
  7,
  7,
  8,
  8,
  9,
  9,
  10,
  10,
  11,
  11,
  12,
  12,
  13,
  13,
]);
const CODE_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

let fixedCodes: { lit: Huffman; dist: Huffman } | null = null;
function fixedTables(): { lit: Huffman; dist: Huffman } {
  if (fixedCodes) return fixedCodes;
  const lengths = new Uint8Array(288);
  lengths.fill(8, 0, 144);
  lengths.fill(9, 144, 256);
  lengths.fill(7, 256, 280);
  lengths.fill(8, 280, 288);
  const lit = newHuffman(LITLEN_BITS, 288);
  build(lit, lengths, 288);
  const dist = newHuffman(DIST_BITS, 30);
  build(dist, new Uint8Array(30).fill(5), 30);
  fixedCodes = { lit, dist };
  return fixedCodes;
}

// Per-block tables of dynamic blocks, reused (the inflater is synchronous and not re-entrant).
const dynLit = newHuffman(LITLEN_BITS, 288);
const dynDist = newHuffman(DIST_BITS, 30);
const codeLen = newHuffman(CODELEN_BITS, 19);
const lengthsScratch = new Uint8Array(320);

/** How far back a deflate distance may reach: what a streaming inflater keeps of its output. */
const HISTORY = 32 * 1024;

/** Where a streaming inflate gets its input and sends its output (see `inflateStreaming`). */
interface Streaming {
  /** The stream's bytes from `offset` (counted from the stream's first byte) on; few or none at its end. */
  readonly input: (offset: number) => Uint8Array;
  /** Each piece of output, in order; the bytes are overwritten once it returns. */
  readonly sink: (chunk: Uint8Array) => void;
  /** The size the output must have. */
  readonly size: number;
  /** The output is kept whole in `out` (which has room for exactly `size` bytes): no piece goes to the sink. */
  readonly whole?: boolean;
}

/**
 * The inflater's state: the input, a bit buffer of up to 32 bits, and the output written so far.
 * Streaming (`stream` set), `src` is a window of the input that moves on when it runs out, and
 * `out` a buffer that is handed to the sink when full, keeping the last HISTORY bytes.
 */
class State {
  hold = 0;
  bits = 0;
  /** The next input byte to load; past the input's end, zeros are loaded (see `consumedEnd`). */
  pos: number;
  /** Where this stream's output starts in `out` (a distance may not reach before it). */
  readonly outStart: number;
  /** Streaming: where `src` starts in the stream. */
  base = 0;
  /** Streaming: output before `emitFrom` has gone to the sink, `emitted` bytes in all. */
  emitFrom = 0;
  emitted = 0;
  constructor(
    public src: Uint8Array,
    start: number,
    readonly out: Uint8Array,
    public o: number,
    readonly stream: Streaming | null = null,
  ) {
    this.pos = start;
    this.outStart = o;
    this.emitFrom = o;
  }

  /**
   * At least 23 bits in `hold` (zeros past the input's end, noticed by `checkEnd`), and at most
   * 30: below 2^30 the value stays a small integer in V8's interpreter, which otherwise boxes every
   * intermediate result in a new heap number. A one-shot process (a PDF's first page, a git
   * command's few objects) runs this code there before it is compiled.
   */
  refill(): void {
    while (this.bits <= 22) {
      let byte = 0;
      if (this.pos < this.src.length) byte = this.src[this.pos];
      else if (this.stream !== null && this.#next()) byte = this.src[this.pos];
      this.pos++;
      this.hold |= byte << this.bits;
      this.bits += 8;
    }
  }

  /**
   * Streaming: moves the input window on, overlapping the old one by a few bytes (a stored block
   * steps back over the bytes still in the bit buffer). False at the input's end.
   */
  #next(): boolean {
    const keep = Math.min(8, this.src.length);
    const from = this.base + this.src.length - keep;
    const next = this.#window(from, keep + 1);
    if (next.length <= keep) return false;
    this.base = from;
    this.src = next;
    this.pos = keep;
    return true;
  }

  /** At least `n` input bytes from `pos` (the bit buffer empty), moving a streaming window there. */
  ensure(n: number): boolean {
    if (this.pos + n <= this.src.length) return true;
    if (this.stream === null || this.pos > this.src.length) return false;
    const from = this.base + this.pos;
    this.src = this.#window(from, n);
    this.base = from;
    this.pos = 0;
    return n <= this.src.length;
  }

  /** Streaming: the input from `from`, at least `least` bytes of it unless it ends first. */
  #window(from: number, least: number): Uint8Array {
    let bytes = this.stream!.input(from);
    while (bytes.length < least) {
      // The next call may reuse the buffer these bytes are in.
      bytes = bytes.slice();
      const more = this.stream!.input(from + bytes.length);
      if (more.length === 0) break;
      const joined = new Uint8Array(bytes.length + more.length);
      joined.set(bytes);
      joined.set(more, bytes.length);
      bytes = joined;
    }
    return bytes;
  }

  /**
   * `out` is full: streaming, its new bytes go to the sink and the last HISTORY bytes move to its
   * start; otherwise the output is larger than the caller expected.
   */
  flush(): void {
    if (this.stream === null || this.stream.whole) throw new Error(OUTPUT_TOO_LARGE);
    this.emit();
    const keep = Math.min(HISTORY, this.o);
    this.out.copyWithin(0, this.o - keep, this.o);
    this.o = keep;
    this.emitFrom = keep;
  }

  /** Streaming: the output not yet sent goes to the sink. */
  emit(): void {
    const stream = this.stream!;
    this.emitted += this.o - this.emitFrom;
    if (this.emitted > stream.size) throw new Error(OUTPUT_TOO_LARGE);
    if (this.o > this.emitFrom) stream.sink(this.out.subarray(this.emitFrom, this.o));
    this.emitFrom = this.o;
  }

  take(n: number): number {
    if (this.bits < n) this.refill();
    const value = this.hold & ((1 << n) - 1);
    this.hold >>>= n;
    this.bits -= n;
    return value;
  }

  /** Where the consumed input ends; throws when that is past the input (zeros were decoded). */
  consumedEnd(): number {
    const end = this.pos - (this.bits >> 3);
    if (end > this.src.length) throw new Error(INPUT_ENDED_EARLY);
    return this.base + end;
  }

  decode(h: Huffman): number {
    if (this.bits < MAX_BITS) this.refill();
    const entry = h.table[this.hold & ((1 << h.bits) - 1)];
    if (entry !== 0) {
      const len = entry & 15;
      this.hold >>>= len;
      this.bits -= len;
      return entry >> 4;
    }
    // A code longer than the table: canonical decoding, most significant bit first.
    const { count, symbol } = h;
    let code = 0;
    let first = 0;
    let index = 0;
    const hold = this.hold;
    for (let len = 1; len <= MAX_BITS; len++) {
      code |= (hold >>> (len - 1)) & 1;
      const n = count[len];
      if (code - n < first) {
        this.hold >>>= len;
        this.bits -= len;
        return symbol[index + (code - first)];
      }
      index += n;
      first += n;
      first <<= 1;
      code <<= 1;
    }
    throw new Error("inflate: bad Huffman code");
  }
}

function codes(s: State, lit: Huffman, dist: Huffman): void {
  const out = s.out;
  const limit = out.length;
  for (;;) {
    let symbol = s.decode(lit);
    if (symbol < 256) {
      if (s.o >= limit) s.flush();
      out[s.o++] = symbol;
      continue;
    }
    if (symbol === 256) return;
    symbol -= 257;
    if (symbol >= 29) throw new Error("inflate: bad length symbol");
    const length = LENGTH_BASE[symbol] + s.take(LENGTH_EXTRA[symbol]);
    const ds = s.decode(dist);
    if (ds >= 30) throw new Error("inflate: bad distance symbol");
    const distance = DIST_BASE[ds] + s.take(DIST_EXTRA[ds]);
    if (distance > s.o - s.outStart) throw new Error("inflate: distance too far back");
    if (s.o + length > limit) s.flush();
    const o = s.o;
    const from = o - distance;
    // An overlapping copy (distance < length) repeats what it has just written, byte by byte.
    if (length > 32 && distance >= length) out.copyWithin(o, from, from + length);
    else for (let i = 0; i < length; i++) out[o + i] = out[from + i];
    s.o = o + length;
  }
}

function dynamic(s: State): void {
  const nlen = s.take(5) + 257;
  const ndist = s.take(5) + 1;
  const ncode = s.take(4) + 4;
  if (nlen > 286 || ndist > 30) throw new Error("inflate: bad counts");
  const lengths = lengthsScratch;
  lengths.fill(0, 0, 19);
  for (let i = 0; i < ncode; i++) lengths[CODE_ORDER[i]] = s.take(3);
  if (!build(codeLen, lengths, 19)) throw new Error("inflate: bad code lengths");
  let index = 0;
  const total = nlen + ndist;
  const all = lengths;
  while (index < total) {
    let symbol = s.decode(codeLen);
    if (symbol < 16) {
      all[index++] = symbol;
      continue;
    }
    let len = 0;
    if (symbol === 16) {
      if (index === 0) throw new Error("inflate: repeat with no first length");
      len = all[index - 1];
      symbol = 3 + s.take(2);
    } else if (symbol === 17) symbol = 3 + s.take(3);
    else symbol = 11 + s.take(7);
    if (index + symbol > total) throw new Error("inflate: too many lengths");
    while (symbol--) all[index++] = len;
  }
  if (all[256] === 0) throw new Error("inflate: no end-of-block code");
  // The literal/length lengths come first, then the distance lengths.
  if (!build(dynLit, all, nlen)) throw new Error("inflate: bad literal/length code");
  if (!build(dynDist, all.subarray(nlen, total), ndist)) throw new Error("inflate: bad distance code");
  codes(s, dynLit, dynDist);
}

/** Runs the blocks of the deflate stream whose zlib header is at `s.pos - 2`. */
function blocks(s: State): void {
  let last = 0;
  while (!last) {
    last = s.take(1);
    const type = s.take(2);
    if (type === 0) {
      // Stored: to the next byte boundary, then LEN, NLEN and the bytes.
      s.hold >>>= s.bits & 7;
      s.bits -= s.bits & 7;
      s.pos -= s.bits >> 3;
      s.hold = 0;
      s.bits = 0;
      if (!s.ensure(4)) throw new Error(INPUT_ENDED_EARLY);
      const head = s.src;
      const len = head[s.pos] | (head[s.pos + 1] << 8);
      const nlen = head[s.pos + 2] | (head[s.pos + 3] << 8);
      if (len !== (~nlen & 0xffff)) throw new Error("inflate: bad stored block");
      s.pos += 4;
      // In pieces: a streaming window of input or output may end inside the block.
      for (let left = len; left > 0;) {
        if (!s.ensure(1)) throw new Error(INPUT_ENDED_EARLY);
        if (s.o >= s.out.length) s.flush();
        const n = Math.min(left, s.src.length - s.pos, s.out.length - s.o);
        s.out.set(s.src.subarray(s.pos, s.pos + n), s.o);
        s.o += n;
        s.pos += n;
        left -= n;
      }
    } else if (type === 1) {
      const t = fixedTables();
      codes(s, t.lit, t.dist);
    } else if (type === 2) {
      dynamic(s);
    } else throw new Error("inflate: bad block type");
  }
}

function checkHeader(src: Uint8Array, at: number): void {
  if (at + 2 > src.length) throw new Error(INPUT_ENDED_EARLY);
  const cmf = src[at];
  const flg = src[at + 1];
  if ((cmf & 0x0f) !== 8 || ((cmf << 8) | flg) % 31 !== 0 || (flg & 0x20) !== 0) {
    throw new Error("inflate: not a zlib stream");
  }
}

/**
 * Inflates the zlib stream at `src[at]` into exactly `size` bytes of `out` from `outAt`; returns
 * where the stream ends in `src` (just past its Adler-32 trailer, which is not checked). Throws
 * INPUT_ENDED_EARLY when `src` stops before the stream does, and an error when the stream's output
 * is not `size` bytes.
 */
export function inflateInto(src: Uint8Array, at: number, out: Uint8Array, outAt: number, size: number): number {
  checkHeader(src, at);
  const target = out.subarray(0, outAt + size);
  const s = new State(src, at + 2, target, outAt);
  try {
    blocks(s);
  } catch (error) {
    // Whatever went wrong, if zeros past the input's end were decoded the input was too short.
    if (s.pos - (s.bits >> 3) > src.length) throw new Error(INPUT_ENDED_EARLY);
    throw error;
  }
  const end = s.consumedEnd() + 4;
  if (end > src.length) throw new Error(INPUT_ENDED_EARLY);
  if (s.o !== outAt + size) throw new Error("inflate: output smaller than expected");
  return end;
}

/** Inflates a zlib stream (header, deflate data; the Adler-32 trailer is not checked). */
export function inflateZlibSync(src: Uint8Array, sizeHint = src.length * 4): Uint8Array {
  return inflateZlibStream(src, sizeHint).data;
}

/**
 * Inflates the zlib stream at the start of `src` (more bytes may follow it, as in a pack) and
 * says where it ended: `end` is the offset just past its Adler-32 trailer. Without a known size
 * the output grows by doubling (the stream is inflated again into a larger buffer), up to
 * `maxOutput` bytes (more throws OUTPUT_OVER_LIMIT).
 */
export function inflateZlibStream(
  src: Uint8Array,
  sizeHint = src.length * 4,
  maxOutput = Infinity,
): { data: Uint8Array; end: number } {
  checkHeader(src, 0);
  let capacity = Math.min(Math.max(64, sizeHint), maxOutput);
  for (;;) {
    const out = new Uint8Array(capacity);
    const s = new State(src, 2, out, 0);
    try {
      blocks(s);
    } catch (error) {
      if ((error as Error).message === OUTPUT_TOO_LARGE) {
        if (capacity >= maxOutput) throw new Error(OUTPUT_OVER_LIMIT);
        capacity = Math.min(capacity * 4, maxOutput);
        continue;
      }
      if (s.pos - (s.bits >> 3) > src.length) throw new Error(INPUT_ENDED_EARLY);
      throw error;
    }
    const end = s.consumedEnd() + 4;
    if (end > src.length) throw new Error(INPUT_ENDED_EARLY);
    return { data: out.subarray(0, s.o), end };
  }
}

/**
 * Inflates a zlib stream without holding it or its output whole: `input(offset)` gives the
 * stream's bytes from `offset` on (a window of any size, empty past its end, which the next call
 * may overwrite: one reused read buffer will do), and the output goes
 * to `sink` in pieces of up to `buffer.length - 32 KiB` bytes (`buffer`, at least 64 KiB, is the
 * caller's and is reused). The output must be exactly `size` bytes. Returns where the stream ends
 * (just past its Adler-32 trailer, not checked), counted from its start; throws INPUT_ENDED_EARLY
 * when the input stops before the stream does.
 */
export function inflateStreaming(
  input: (offset: number) => Uint8Array,
  size: number,
  sink: (chunk: Uint8Array) => void,
  buffer: Uint8Array,
): number {
  if (buffer.length < 2 * HISTORY) throw new Error("inflate: the streaming buffer is too small");
  return inflateFrom(new State(new Uint8Array(0), 0, buffer, 0, { input, sink, size }));
}

/**
 * Inflates a zlib stream read as `inflateStreaming` reads it — through `input`, a window at a
 * time, never whole — into exactly `size` bytes of `out` from `outAt`, as `inflateInto` does:
 * a large object decoded whole (a delta's base) without a copy of its compressed bytes beside
 * it. Returns where the stream ends, counted from its start.
 */
export function inflateIntoStreaming(
  input: (offset: number) => Uint8Array,
  out: Uint8Array,
  outAt: number,
  size: number,
): number {
  const target = out.subarray(0, outAt + size);
  return inflateFrom(new State(new Uint8Array(0), 0, target, outAt, { input, sink: () => {}, size, whole: true }));
}

/** Runs a streaming State's zlib stream to its end; where it ends, counted from its start. */
function inflateFrom(s: State): number {
  const size = s.stream!.size;
  if (!s.ensure(2)) throw new Error(INPUT_ENDED_EARLY);
  checkHeader(s.src, 0);
  s.pos = 2;
  try {
    blocks(s);
  } catch (error) {
    if (s.pos - (s.bits >> 3) > s.src.length) throw new Error(INPUT_ENDED_EARLY);
    throw error;
  }
  // Zeros decoded past the input's end may have ended the stream: that is a cut stream.
  const end = s.consumedEnd();
  s.emit();
  if (s.emitted !== size) throw new Error("inflate: output smaller than expected");
  // The trailer may lie past the input window.
  s.pos = end - s.base;
  s.hold = 0;
  s.bits = 0;
  if (!s.ensure(4)) throw new Error(INPUT_ENDED_EARLY);
  return end + 4;
}
