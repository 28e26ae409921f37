/**
 * FIPS 180-4 SHA-1 as a reusable, allocation-free hasher: `reset`, `update` with any number of
 * pieces, `digestInto` a caller's buffer. For hashing tens of thousands of objects in a row (the
 * pack indexer): Node's `createHash` makes a native object per digest, which the process holds
 * until the garbage collector runs (measured: +21 MiB of resident memory for 41,000 digests).
 */
export class Sha1 {
  readonly #w = new Int32Array(80);
  readonly #block = new Uint8Array(64);
  #blockLength = 0;
  #length = 0;
  #h0 = 0x67452301;
  #h1 = 0xefcdab89 | 0;
  #h2 = 0x98badcfe | 0;
  #h3 = 0x10325476;
  #h4 = 0xc3d2e1f0 | 0;

  reset(): this {
    this.#blockLength = 0;
    this.#length = 0;
    this.#h0 = 0x67452301;
    this.#h1 = 0xefcdab89 | 0;
    this.#h2 = 0x98badcfe | 0;
    this.#h3 = 0x10325476;
    this.#h4 = 0xc3d2e1f0 | 0;
    return this;
  }

  update(data: Uint8Array, start = 0, end = data.length): this {
    this.#length += end - start;
    let p = start;
    if (this.#blockLength > 0) {
      const take = Math.min(64 - this.#blockLength, end - p);
      this.#block.set(data.subarray(p, p + take), this.#blockLength);
      this.#blockLength += take;
      p += take;
      if (this.#blockLength < 64) return this;
      this.#compress(this.#block, 0);
      this.#blockLength = 0;
    }
    for (; p + 64 <= end; p += 64) this.#compress(data, p);
    if (p < end) {
      this.#block.set(data.subarray(p, end));
      this.#blockLength = end - p;
    }
    return this;
  }

  /** Writes the 20-byte digest at `out[at]`; the hasher must be reset before its next use. */
  digestInto(out: Uint8Array, at: number): void {
    const bits = this.#length * 8;
    const block = this.#block;
    block[this.#blockLength++] = 0x80;
    if (this.#blockLength > 56) {
      block.fill(0, this.#blockLength);
      this.#compress(block, 0);
      this.#blockLength = 0;
    }
    block.fill(0, this.#blockLength, 56);
    const high = Math.floor(bits / 2 ** 32);
    const low = bits >>> 0;
    block[56] = high >>> 24;
    block[57] = high >>> 16;
    block[58] = high >>> 8;
    block[59] = high;
    block[60] = low >>> 24;
    block[61] = low >>> 16;
    block[62] = low >>> 8;
    block[63] = low;
    this.#compress(block, 0);
    const words = [this.#h0, this.#h1, this.#h2, this.#h3, this.#h4];
    for (let i = 0; i < 5; i++) {
      const word = words[i];
      out[at + i * 4] = word >>> 24;
      out[at + i * 4 + 1] = word >>> 16;
      out[at + i * 4 + 2] = word >>> 8;
      out[at + i * 4 + 3] = word;
    }
  }

  #compress(data: Uint8Array, p: number): void {
    const w = this.#w;
    for (let i = 0; i < 16; i++, p += 4) {
      w[i] = (data[p] << 24) | (data[p + 1] << 16) | (data[p + 2] << 8) | data[p + 3];
    }
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
      w[i] = (x << 1) | (x >>> 31);
    }
    let a = this.#h0, b = this.#h1, c = this.#h2, d = this.#h3, e = this.#h4;
    let i = 0;
    for (; i < 20; i++) {
      const t = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (; i < 40; i++) {
      const t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (; i < 60; i++) {
      const t = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e + 0x8f1bbcdc + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (; i < 80; i++) {
      const t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0xca62c1d6 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    this.#h0 = (this.#h0 + a) | 0;
    this.#h1 = (this.#h1 + b) | 0;
    this.#h2 = (this.#h2 + c) | 0;
    this.#h3 = (this.#h3 + d) | 0;
    this.#h4 = (this.#h4 + e) | 0;
  }
}
