/**
 * PDF's object layer for the text-only reader: a lexer for file objects and content streams, the
 * cross-reference table (classic tables, cross-reference streams, object streams, incremental
 * updates through /Prev), and stream data (FlateDecode with PNG predictors, after ASCII85Decode or not).
 *
 * Anything it does not read exactly as PDF.js would (a damaged cross-reference that PDF.js would
 * rebuild, an unknown filter, a stream whose /Length does not end at `endstream`, encryption)
 * throws `Unsupported`: the caller then reads the whole document with PDF.js instead.
 */

import { inflateZlibStream } from "../../../../lib/inflate.ts";

/** The reader does not handle this document exactly; PDF.js reads it instead. */
export class Unsupported extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "Unsupported";
  }
}

export function unsupported(reason: string): never {
  throw new Unsupported(reason);
}

export class Name {
  private constructor(readonly name: string) {}
  static #all = new Map<string, Name>();
  static get(name: string): Name {
    let found = Name.#all.get(name);
    if (!found) Name.#all.set(name, found = new Name(name));
    return found;
  }
}

export class Ref {
  constructor(readonly num: number, readonly gen: number) {}
}

/** A content-stream operator (or a keyword in a file object). */
export class Cmd {
  private constructor(readonly cmd: string) {}
  static #all = new Map<string, Cmd>();
  static get(cmd: string): Cmd {
    let found = Cmd.#all.get(cmd);
    if (!found) Cmd.#all.set(cmd, found = new Cmd(cmd));
    return found;
  }
}

export type PdfObject =
  | number
  | boolean
  | null
  | string // a PDF string, one char per byte
  | Name
  | Ref
  | PdfObject[]
  | Dict
  | Stream;

export class Dict {
  readonly map = new Map<string, PdfObject>();
  constructor(readonly xref: XRef | null) {}
  getRaw(key: string): PdfObject | undefined {
    return this.map.get(key);
  }
  get(key: string): PdfObject | undefined {
    const value = this.map.get(key);
    return value instanceof Ref && this.xref ? this.xref.fetch(value) : value;
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
}

export class Stream {
  #decoded: Uint8Array | null = null;
  constructor(readonly dict: Dict, readonly raw: Uint8Array, readonly xref: XRef | null) {}
  /** The stream's data after its filters. */
  bytes(): Uint8Array {
    if (this.#decoded) return this.#decoded;
    // A font program's parts say its size: inflate once into a buffer that fits.
    const parts = ["Length1", "Length2", "Length3"].map((key) => this.dict.getRaw(key));
    const hint = parts.every((n) => typeof n === "number" && n >= 0)
      ? (parts as number[]).reduce((a, b) => a + b, 0) + 64
      : this.raw.length * 6;
    this.#decoded = decodeStream(this.dict, this.raw, this.xref?.budget ?? null, hint);
    return this.#decoded;
  }
}

const EOF = Symbol("EOF");

const WHITE = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WHITE[c] = 1;
const DELIM = new Uint8Array(256);
for (const c of "()<>[]{}/%") DELIM[c.charCodeAt(0)] = 1;

/** The lexer and parser of PDF objects over a byte array (a file, an object stream, a content stream). */
export class Parser {
  pos: number;
  constructor(readonly data: Uint8Array, start = 0, readonly xref: XRef | null = null, readonly end = data.length) {
    this.pos = start;
  }

  skipSpace(): void {
    const d = this.data;
    while (this.pos < this.end) {
      const c = d[this.pos];
      if (WHITE[c]) this.pos++;
      else if (c === 0x25) {
        while (this.pos < this.end && d[this.pos] !== 10 && d[this.pos] !== 13) this.pos++;
      } else break;
    }
  }

  /** The next token: a number, a string, a Name, a Cmd, or one of the delimiters `[ ] << >> { }`. */
  token(): number | string | Name | Cmd | typeof EOF | { delim: string } {
    this.skipSpace();
    const d = this.data;
    if (this.pos >= this.end) return EOF;
    const c = d[this.pos];
    switch (c) {
      case 0x28: // (
        return this.literalString();
      case 0x3c: // <
        if (d[this.pos + 1] === 0x3c) {
          this.pos += 2;
          return { delim: "<<" };
        }
        return this.hexString();
      case 0x3e: // >
        if (d[this.pos + 1] === 0x3e) {
          this.pos += 2;
          return { delim: ">>" };
        }
        return unsupported("a stray `>`");
      case 0x5b:
      case 0x5d:
      case 0x7b:
      case 0x7d:
        this.pos++;
        return { delim: String.fromCharCode(c) };
      case 0x2f: // /
        return this.name();
      case 0x29:
        return unsupported("a stray `)`");
    }
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) return this.number();
    const start = this.pos;
    while (this.pos < this.end && !WHITE[d[this.pos]] && !DELIM[d[this.pos]]) this.pos++;
    const length = this.pos - start;
    const word = length === 1
      ? String.fromCharCode(c)
      : length === 2
      ? String.fromCharCode(c, d[start + 1])
      : charCodes(d.subarray(start, this.pos));
    return Cmd.get(word);
  }

  /**
   * A number as PDF.js's lexer computes it: the digits as one integer, divided by the power of
   * ten of its decimals (so the same double, even past 2^53). Its leniencies (a doubled minus,
   * a minus inside a number, a sign before an end of line) are left to PDF.js.
   */
  number(): number {
    const d = this.data;
    let pos = this.pos;
    let sign = 1;
    if (d[pos] === 0x2d) {
      sign = -1;
      pos++;
    } else if (d[pos] === 0x2b) pos++;
    let divide = 0;
    if (d[pos] === 0x2e) {
      divide = 10;
      pos++;
    }
    let c = d[pos];
    if (!(c >= 0x30 && c <= 0x39)) return unsupported("a malformed number");
    let value = c - 0x30;
    pos++;
    while (pos < this.end) {
      c = d[pos];
      if (c >= 0x30 && c <= 0x39) {
        if (divide !== 0) divide *= 10;
        value = value * 10 + (c - 0x30);
      } else if (c === 0x2e && divide === 0) divide = 1;
      else break;
      pos++;
    }
    if (pos < this.end && !WHITE[c] && !DELIM[c]) return unsupported("a number run into other characters");
    this.pos = pos;
    if (divide !== 0) value /= divide;
    return sign * value;
  }

  name(): Name {
    const d = this.data;
    this.pos++;
    let name = "";
    while (this.pos < this.end && !WHITE[d[this.pos]] && !DELIM[d[this.pos]]) {
      const c = d[this.pos++];
      if (c === 0x23) {
        const hex = String.fromCharCode(d[this.pos], d[this.pos + 1]);
        if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return unsupported("a name with a bad # escape");
        name += String.fromCharCode(parseInt(hex, 16));
        this.pos += 2;
      } else name += String.fromCharCode(c);
    }
    // PDF.js reads names as UTF-8 where they are valid UTF-8; keep to ASCII names here.
    if (/[^\x20-\x7e]/.test(name)) return unsupported("a name outside ASCII");
    return Name.get(name);
  }

  literalString(): string {
    const d = this.data;
    this.pos++;
    // Most strings have no escapes and no nested parentheses: read them straight from the bytes.
    for (let i = this.pos; i < this.end && i - this.pos < 4096; i++) {
      const c = d[i];
      if (c === 0x5c || c === 0x28) break;
      if (c === 0x29) {
        const text = charCodes(d.subarray(this.pos, i));
        this.pos = i + 1;
        return text;
      }
    }
    let depth = 1;
    const out: number[] = [];
    while (this.pos < this.end) {
      let c = d[this.pos++];
      if (c === 0x28) depth++;
      else if (c === 0x29) {
        if (--depth === 0) return bytesToString(out);
      } else if (c === 0x5c) {
        c = d[this.pos++];
        switch (c) {
          case 0x6e:
            out.push(10);
            continue;
          case 0x72:
            out.push(13);
            continue;
          case 0x74:
            out.push(9);
            continue;
          case 0x62:
            out.push(8);
            continue;
          case 0x66:
            out.push(12);
            continue;
          case 0x28:
          case 0x29:
          case 0x5c:
            out.push(c);
            continue;
          case 0x0d:
            if (d[this.pos] === 0x0a) this.pos++;
            continue;
          case 0x0a:
            continue;
        }
        if (c >= 0x30 && c <= 0x37) {
          let value = c - 0x30;
          for (let k = 0; k < 2 && d[this.pos] >= 0x30 && d[this.pos] <= 0x37; k++) {
            value = value * 8 + d[this.pos++] - 0x30;
          }
          out.push(value & 0xff);
          continue;
        }
        // An unknown escape: PDF.js keeps the character.
        if (c === undefined) break;
        out.push(c);
        continue;
      }
      out.push(c);
    }
    return unsupported("an unterminated string");
  }

  hexString(): string {
    const d = this.data;
    this.pos++;
    const out: number[] = [];
    let high = -1;
    while (this.pos < this.end) {
      const c = d[this.pos++];
      if (c === 0x3e) {
        if (high >= 0) out.push(high << 4);
        return bytesToString(out);
      }
      if (WHITE[c]) continue;
      const v = c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;
      if (v < 0) return unsupported("a bad hex string");
      if (high < 0) high = v;
      else {
        out.push((high << 4) | v);
        high = -1;
      }
    }
    return unsupported("an unterminated hex string");
  }

  /** One object; `n g R` is a reference where `allowRefs`. Returns a Cmd for operators. */
  object(allowRefs = true, depth = 0): PdfObject | Cmd | typeof EOF {
    if (depth > 100) return unsupported("objects nested too deep");
    const t = this.token();
    return this.objectFrom(t, allowRefs, depth);
  }

  objectFrom(
    t: ReturnType<Parser["token"]>,
    allowRefs: boolean,
    depth: number,
  ): PdfObject | Cmd | typeof EOF {
    if (t === EOF) return EOF;
    if (typeof t === "number") {
      if (allowRefs && Number.isInteger(t) && t >= 0) {
        const save = this.pos;
        const g = this.token();
        if (typeof g === "number" && Number.isInteger(g) && g >= 0) {
          const r = this.token();
          if (r instanceof Cmd && r.cmd === "R") return new Ref(t, g);
        }
        this.pos = save;
      }
      return t;
    }
    if (typeof t === "string" || t instanceof Name) return t;
    if (t instanceof Cmd) {
      if (t.cmd === "true") return true;
      if (t.cmd === "false") return false;
      if (t.cmd === "null") return null;
      return t;
    }
    switch (t.delim) {
      case "[": {
        const array: PdfObject[] = [];
        for (;;) {
          const next = this.token();
          if (next === EOF) return unsupported("an unterminated array");
          if (typeof next === "object" && "delim" in next && next.delim === "]") return array;
          const value = this.objectFrom(next, allowRefs, depth + 1);
          if (value instanceof Cmd || value === EOF) return unsupported("an operator inside an array");
          array.push(value);
        }
      }
      case "<<": {
        const dict = new Dict(this.xref);
        for (;;) {
          const key = this.token();
          if (key === EOF) return unsupported("an unterminated dictionary");
          if (typeof key === "object" && "delim" in key && key.delim === ">>") break;
          if (!(key instanceof Name)) return unsupported("a dictionary key that is not a name");
          const value = this.object(allowRefs, depth + 1);
          if (value instanceof Cmd || value === EOF) return unsupported("a dictionary value that is an operator");
          dict.map.set(key.name, value);
        }
        return dict;
      }
    }
    return unsupported(`an unexpected \`${t.delim}\``);
  }
}

function bytesToString(bytes: number[]): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode.apply(null, bytes.slice(i, i + 8192));
  return s;
}

/** Where an object lives: at a byte offset, or inside an object stream. */
type Entry = { offset: number; gen: number } | { stream: number; index: number };

/** The bytes inflated so far and the most the document may inflate to (doc.max_inflated_bytes). */
export class Budget {
  spent = 0;
  constructor(readonly limit: number) {}
  spend(bytes: number): void {
    this.spent += bytes;
    if (this.spent > this.limit) unsupported("more inflated data than doc.max_inflated_bytes allows");
  }
}

export class XRef {
  readonly entries = new Map<number, Entry | null>();
  #trailer: Dict | undefined;
  /** The newest section's trailer (PDF.js's `topDict`). */
  get trailer(): Dict {
    return this.#trailer ?? unsupported("no trailer");
  }
  readonly #cache = new Map<number, PdfObject>();
  readonly #objectStreams = new Map<number, { offsets: number[]; parser: Parser; first: number }>();
  readonly #fetching = new Set<number>();

  constructor(readonly data: Uint8Array, readonly budget: Budget) {}

  static open(data: Uint8Array, budget: Budget): XRef {
    const xref = new XRef(data, budget);
    xref.#read();
    return xref;
  }

  #read(): void {
    const d = this.data;
    // The header and a linearization dictionary: PDF.js starts from the first-page cross-reference
    // of a linearized file; rather than follow it, such files go to PDF.js.
    const head = latin1(d.subarray(0, Math.min(d.length, 1024)));
    if (!head.startsWith("%PDF-")) unsupported("no %PDF- header at the start");
    let offset: number;
    if (this.#linearized()) {
      // PDF.js starts from the first-page cross-reference, just after the first object.
      const end = head.indexOf("endobj");
      if (end < 0 || end + 6 > head.length - 6) return unsupported("a linearized file without an early endobj");
      offset = end + 6;
      while (offset < d.length && WHITE[d[offset]]) offset++;
    } else {
      const tail = latin1(d.subarray(Math.max(0, d.length - 1024)));
      const at = tail.lastIndexOf("startxref");
      if (at < 0) unsupported("no startxref");
      const m = /^startxref\s+(\d+)\s+%%EOF/.exec(tail.slice(at));
      if (!m) unsupported("a startxref without an offset and %%EOF");
      offset = Number(m[1]);
    }
    // PDF.js's queue: each section, then a table's /XRefStm (a hybrid file's stream), then its /Prev.
    const queue = [offset];
    const seen = new Set<number>();
    const streams = new Set<number>();
    while (queue.length > 0) {
      const at = queue.shift()!;
      if (seen.has(at) || seen.size > 100) unsupported("a loop in the /Prev chain");
      seen.add(at);
      const { trailer, table } = this.#readSection(at);
      this.#trailer ??= trailer;
      if (table) {
        const stm = trailer.getRaw("XRefStm");
        if (Number.isInteger(stm) && !streams.has(stm as number)) {
          streams.add(stm as number);
          queue.push(stm as number);
        } else if (stm !== undefined && !Number.isInteger(stm)) unsupported("a bad /XRefStm");
      }
      const prev = trailer.getRaw("Prev");
      if (prev === undefined) continue;
      if (typeof prev !== "number" || !Number.isInteger(prev) || prev < 0 || prev >= d.length) {
        unsupported("a bad /Prev");
      }
      queue.push(prev);
    }
    if (this.trailer.has("Encrypt")) unsupported("an encrypted file");
  }

  /** PDF.js's `Linearization.create`: the first object is a linearization dictionary whose /L is the file's length. */
  linearization: { numPages: number; firstPageObject: number; pageFirst: number } | null = null;
  #linearized(): boolean {
    let dict: PdfObject | Cmd | typeof EOF;
    try {
      const p = new Parser(this.data, 0, null);
      const n = p.token(), g = p.token(), obj = p.token();
      if (!Number.isInteger(n) || !Number.isInteger(g) || !(obj instanceof Cmd) || obj.cmd !== "obj") return false;
      dict = p.object(true);
    } catch (error) {
      // A first object this parser cannot read: PDF.js's may, and find a linearization dictionary.
      if (latin1(this.data.subarray(0, 1024)).includes("/Linearized")) throw error;
      return false;
    }
    if (!(dict instanceof Dict)) return false;
    const flag = dict.get("Linearized");
    if (typeof flag !== "number" || !(flag > 0)) return false;
    const int = (key: string, zero = false) => {
      const v = dict.get(key);
      return Number.isInteger(v) && (zero ? (v as number) >= 0 : (v as number) > 0) ? v as number : null;
    };
    const hints = dict.get("H");
    const hintsValid = Array.isArray(hints) && (hints.length === 2 || hints.length === 4) &&
      hints.every((h) => Number.isInteger(h) && (h as number) > 0);
    const pageFirst = dict.has("P") ? int("P", true) : 0;
    if (
      int("L") !== this.data.length || !hintsValid || int("O") === null || int("E") === null ||
      int("N") === null || int("T") === null || pageFirst === null
    ) {
      // PDF.js's check throws, and it reads the file as not linearized (from its last startxref).
      return false;
    }
    this.linearization = { numPages: int("N")!, firstPageObject: int("O")!, pageFirst };
    return true;
  }

  #readSection(offset: number): { trailer: Dict; table: boolean } {
    if (offset === 0) unsupported("a cross-reference at offset 0");
    const p = new Parser(this.data, offset, null);
    const t = p.token();
    if (t instanceof Cmd && t.cmd === "xref") {
      const trailer = this.#readTable(p);
      // PDF.js rejects a table whose object 0 is in use (after keeping its entries).
      if (this.entries.get(0)) unsupported("a cross-reference table whose object 0 is in use");
      return { trailer, table: true };
    }
    if (typeof t === "number") {
      const stream = this.#objectAt(offset, null);
      if (!(stream instanceof Stream) || !(stream.dict.get("Type") instanceof Name)) {
        return unsupported("startxref points at no cross-reference");
      }
      if ((stream.dict.get("Type") as Name).name !== "XRef") unsupported("startxref points at no cross-reference");
      this.#readStream(stream);
      return { trailer: stream.dict, table: false };
    }
    return unsupported("startxref points at no cross-reference");
  }

  #readTable(p: Parser): Dict {
    const d = this.data;
    for (;;) {
      const t = p.token();
      if (t instanceof Cmd && t.cmd === "trailer") break;
      if (typeof t !== "number") return unsupported("a bad cross-reference table");
      const count = p.token();
      if (typeof count !== "number" || !Number.isInteger(t) || !Number.isInteger(count) || count < 0) {
        return unsupported("a bad cross-reference subsection");
      }
      p.skipSpace();
      for (let i = 0; i < count; i++) {
        // "nnnnnnnnnn ggggg n" + a two-byte end of line: 20 bytes.
        const line = latin1(d.subarray(p.pos, p.pos + 20));
        const m = /^(\d{10}) (\d{5}) ([nf])(?: \r| \n|\r\n)$/.exec(line);
        if (!m) return unsupported("a malformed cross-reference entry");
        p.pos += 20;
        const num = t + i;
        if (t === 1 && i === 0 && m[3] === "f" && Number(m[1]) === 0) {
          // A table that starts at 1 with object 0's free entry: PDF.js shifts such a table.
          return unsupported("a cross-reference table off by one");
        }
        if (this.entries.has(num)) continue;
        this.entries.set(num, m[3] === "n" ? { offset: Number(m[1]), gen: Number(m[2]) } : null);
      }
    }
    const trailer = p.object(true);
    if (!(trailer instanceof Dict)) return unsupported("a trailer that is not a dictionary");
    return this.#bind(trailer);
  }

  #bind(dict: Dict): Dict {
    const bound = new Dict(this);
    for (const [k, v] of dict.map) bound.map.set(k, v);
    return bound;
  }

  #readStream(stream: Stream): void {
    const dict = stream.dict;
    const w = dict.get("W");
    const size = dict.get("Size");
    if (!Array.isArray(w) || w.length !== 3 || !w.every((x) => Number.isInteger(x) && (x as number) >= 0)) {
      unsupported("a bad /W in a cross-reference stream");
    }
    if (typeof size !== "number") unsupported("a cross-reference stream without /Size");
    const index = dict.get("Index") ?? [0, size];
    if (!Array.isArray(index) || index.length % 2 !== 0) unsupported("a bad /Index");
    const [w0, w1, w2] = w as number[];
    const data = stream.bytes();
    let pos = 0;
    const read = (n: number) => {
      let v = 0;
      for (let i = 0; i < n; i++) v = v * 256 + data[pos++];
      return v;
    };
    for (let k = 0; k < index.length; k += 2) {
      const start = index[k], count = index[k + 1];
      if (!Number.isInteger(start) || !Number.isInteger(count)) unsupported("a bad /Index");
      for (let i = 0; i < (count as number); i++) {
        if (pos + w0 + w1 + w2 > data.length) unsupported("a cross-reference stream shorter than its /Index");
        const type = w0 === 0 ? 1 : read(w0);
        const a = read(w1);
        const b = read(w2);
        const num = (start as number) + i;
        if (this.entries.has(num)) continue;
        if (type === 0) this.entries.set(num, null);
        else if (type === 1) this.entries.set(num, { offset: a, gen: b });
        else if (type === 2) this.entries.set(num, { stream: a, index: b });
        else unsupported("an unknown cross-reference entry type");
      }
    }
  }

  fetch(ref: Ref): PdfObject {
    const cached = this.#cache.get(ref.num);
    if (cached !== undefined) return cached;
    const entry = this.entries.get(ref.num);
    if (entry === undefined || entry === null) return unsupported(`object ${ref.num} is not in the cross-reference`);
    if (this.#fetching.has(ref.num)) return unsupported("an object that contains itself");
    this.#fetching.add(ref.num);
    try {
      let value: PdfObject;
      if ("offset" in entry) {
        if (entry.gen !== ref.gen) unsupported(`object ${ref.num}'s generation differs from its reference`);
        value = this.#objectAt(entry.offset, ref);
      } else {
        if (ref.gen !== 0) unsupported("a compressed object with a generation");
        value = this.#fromObjectStream(entry.stream, entry.index, ref.num);
      }
      this.#cache.set(ref.num, value);
      return value;
    } finally {
      this.#fetching.delete(ref.num);
    }
  }

  fetchIfRef(value: PdfObject | undefined): PdfObject | undefined {
    return value instanceof Ref ? this.fetch(value) : value;
  }

  /** The indirect object at `offset`; `ref` must match its header. */
  #objectAt(offset: number, ref: Ref | null): PdfObject {
    if (!Number.isInteger(offset) || offset < 0 || offset >= this.data.length) unsupported("an offset past the file");
    const p = new Parser(this.data, offset, ref ? this : null);
    const num = p.token(), gen = p.token(), obj = p.token();
    if (typeof num !== "number" || typeof gen !== "number" || !(obj instanceof Cmd) || obj.cmd !== "obj") {
      return unsupported("a cross-reference offset that points at no object");
    }
    if (ref && (num !== ref.num || gen !== ref.gen)) {
      unsupported("a cross-reference offset that points at another object");
    }
    const value = p.object(true);
    if (value === EOF || value instanceof Cmd) return unsupported("an object without a value");
    const after = p.token();
    if (after instanceof Cmd && after.cmd === "stream") {
      if (!(value instanceof Dict)) return unsupported("a stream without a dictionary");
      // The data starts after CRLF or LF.
      let start = p.pos;
      if (this.data[start] === 0x0d && this.data[start + 1] === 0x0a) start += 2;
      else if (this.data[start] === 0x0a) start += 1;
      else return unsupported("a stream keyword not followed by an end of line");
      const length = ref ? value.get("Length") : value.getRaw("Length");
      if (typeof length !== "number" || !Number.isInteger(length) || length < 0) {
        return unsupported("a stream without a direct, whole /Length");
      }
      const end = start + length;
      if (end > this.data.length) return unsupported("a stream longer than the file");
      const q = new Parser(this.data, end);
      const endstream = q.token();
      if (!(endstream instanceof Cmd) || endstream.cmd !== "endstream") {
        return unsupported("a stream whose /Length does not end at endstream");
      }
      const dict = ref ? value : this.#bind(value);
      return new Stream(dict, this.data.subarray(start, end), this);
    }
    if (!(after instanceof Cmd) || after.cmd !== "endobj") return unsupported("an object without endobj");
    return value;
  }

  #fromObjectStream(streamNum: number, index: number, num: number): PdfObject {
    let os = this.#objectStreams.get(streamNum);
    if (!os) {
      const stream = this.fetch(new Ref(streamNum, 0));
      if (!(stream instanceof Stream)) return unsupported("an object stream that is not a stream");
      const n = stream.dict.get("N"), first = stream.dict.get("First");
      if (!Number.isInteger(n) || !Number.isInteger(first)) return unsupported("an object stream without /N or /First");
      const data = stream.bytes();
      const p = new Parser(data, 0, this, first as number);
      const offsets: number[] = [];
      for (let i = 0; i < (n as number); i++) {
        const objNum = p.token(), objOffset = p.token();
        if (typeof objNum !== "number" || typeof objOffset !== "number") {
          return unsupported("a bad object stream header");
        }
        offsets.push(objNum, objOffset);
      }
      os = { offsets, parser: new Parser(data, 0, this), first: first as number };
      this.#objectStreams.set(streamNum, os);
    }
    if (index * 2 + 1 >= os.offsets.length || os.offsets[index * 2] !== num) {
      return unsupported("an object stream that does not hold the object where the cross-reference says");
    }
    const p = new Parser(os.parser.data, os.first + os.offsets[index * 2 + 1], this);
    const value = p.object(true);
    if (value === EOF || value instanceof Cmd) return unsupported("an empty object in an object stream");
    return value;
  }
}

/** Bytes (up to ~64K) as a string of char codes; `apply` takes a typed array without iterating it as a spread does. */
function charCodes(bytes: Uint8Array): string {
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

export function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) s += charCodes(bytes.subarray(i, i + 8192));
  return s;
}

/** A stream's data after its filters: none, FlateDecode (with a PNG predictor), ASCII85Decode, or both. */
export function decodeStream(
  dict: Dict,
  raw: Uint8Array,
  budget: Budget | null,
  sizeHint = raw.length * 6,
): Uint8Array {
  let filter = dict.get("Filter");
  let parms = dict.get("DecodeParms");
  if (Array.isArray(filter)) {
    // With a list of filters PDF.js takes each one's parameters from a list, and none from a dictionary.
    let parmsList = Array.isArray(parms) ? parms : [];
    // ASCII85 first, then Flate: what reportlab writes by default.
    if (filter.length === 2 && isAscii85(filter[0])) {
      raw = decodeAscii85(raw);
      sizeHint = raw.length * 6;
      filter = filter.slice(1);
      parmsList = parmsList.slice(1);
    }
    if (filter.length > 1) return unsupported("a stream with several filters");
    filter = filter[0];
    parms = parmsList[0];
  }
  if (filter === undefined || filter === null) return raw;
  if (isAscii85(filter)) return decodeAscii85(raw);
  if (!(filter instanceof Name) || filter.name !== "FlateDecode") {
    return unsupported(`the filter ${filter instanceof Name ? filter.name : "?"}`);
  }
  let data: Uint8Array;
  let end: number;
  try {
    ({ data, end } = inflateZlibStream(
      raw,
      Math.max(1024, sizeHint),
      budget ? budget.limit - budget.spent : undefined,
    ));
  } catch (error) {
    if (error instanceof Unsupported) throw error;
    return unsupported(`a Flate stream that does not inflate cleanly (${(error as Error).message})`);
  }
  // Neither PDF.js nor the inflater checks the Adler-32 trailer; here a mismatch means damaged
  // data that may inflate to something else than the producer wrote, which PDF.js may then read
  // differently (a font program its parser rejects): such a document goes to PDF.js.
  const trailer = ((raw[end - 4] << 24) | (raw[end - 3] << 16) | (raw[end - 2] << 8) | raw[end - 1]) >>> 0;
  if (adler32(data) !== trailer) return unsupported("a Flate stream whose checksum does not match");
  budget?.spend(data.length);
  if (parms instanceof Ref && dict.xref) parms = dict.xref.fetch(parms);
  if (parms instanceof Dict) {
    const predictor = parms.get("Predictor") ?? 1;
    if (predictor === 1) return data;
    if (typeof predictor !== "number" || predictor < 10) return unsupported("a TIFF predictor");
    const colors = parms.get("Colors") ?? 1,
      bits = parms.get("BitsPerComponent") ?? 8,
      columns = parms.get("Columns") ?? 1;
    if (colors !== 1 && colors !== 3 && colors !== 4) return unsupported("a predictor with unusual /Colors");
    if (bits !== 8) return unsupported("a predictor with unusual /BitsPerComponent");
    if (!Number.isInteger(columns) || (columns as number) < 1) return unsupported("a predictor with bad /Columns");
    return unpredictPng(data, colors as number, columns as number);
  }
  if (parms !== undefined && parms !== null) return unsupported("bad /DecodeParms");
  return data;
}

function isAscii85(filter: PdfObject): boolean {
  return filter instanceof Name && (filter.name === "ASCII85Decode" || filter.name === "A85");
}

/**
 * ASCII85 data as PDF.js's `Ascii85Stream` decodes it, where it is well formed: groups of five
 * digits `!`…`u` (at most 2^32 − 1) or `z`, white space between them, a short last group, up to
 * `~` or the end. Anything else PDF.js would decode to bytes no encoder meant: `Unsupported`.
 */
export function decodeAscii85(data: Uint8Array): Uint8Array {
  // Five digits make four bytes, and `z` four on its own.
  let zeroGroups = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0x7a) zeroGroups++;
  const out = new Uint8Array(Math.ceil(data.length / 5) * 4 + zeroGroups * 4 + 4);
  let length = 0, digits = 0, value = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) continue;
    if (c === 0x7e) break;
    if (c === 0x7a && digits === 0) {
      length += 4; // four zero bytes (the array is zeroed)
      continue;
    }
    if (c < 0x21 || c > 0x75) return unsupported("ASCII85 data with a stray byte");
    value = value * 85 + (c - 0x21);
    if (++digits === 5) {
      if (value > 0xffffffff) return unsupported("an ASCII85 group past 2^32");
      out[length++] = value >>> 24;
      out[length++] = (value >>> 16) & 0xff;
      out[length++] = (value >>> 8) & 0xff;
      out[length++] = value & 0xff;
      digits = value = 0;
    }
  }
  if (digits > 0) {
    // PDF.js pads a short group with `u` and keeps one byte fewer than its digits.
    for (let k = digits; k < 5; k++) value = value * 85 + 84;
    if (value > 0xffffffff) return unsupported("an ASCII85 group past 2^32");
    for (let k = 0; k < digits - 1; k++) out[length++] = (value >>> (24 - 8 * k)) & 0xff;
  }
  return out.subarray(0, length);
}

/** The Adler-32 checksum (RFC 1950) of `data`. */
export function adler32(data: Uint8Array): number {
  let a = 1, b = 0;
  const n = data.length;
  for (let i = 0; i < n;) {
    // Reduced every 2,048 bytes (zlib waits 5,552, the most 32 bits allow): the sums then stay
    // below 2^30, small integers that V8's interpreter, where a one-shot process runs this, keeps
    // unboxed; larger ones become a new heap number per byte.
    const stop = Math.min(n, i + 2048);
    for (; i < stop; i++) {
      a += data[i];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** PNG row filters (None, Sub, Up, Average, Paeth), each row led by its filter byte. */
export function unpredictPng(data: Uint8Array, bytesPerPixel: number, columns: number): Uint8Array {
  const rowLength = bytesPerPixel * columns;
  const rows = Math.floor(data.length / (rowLength + 1));
  if (rows * (rowLength + 1) !== data.length) return unsupported("PNG-predicted data that is not whole rows");
  const out = new Uint8Array(rows * rowLength);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (rowLength + 1)];
    const src = r * (rowLength + 1) + 1;
    const dst = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const x = data[src + i];
      const left = i >= bytesPerPixel ? out[dst + i - bytesPerPixel] : 0;
      const up = r > 0 ? out[dst - rowLength + i] : 0;
      const upLeft = r > 0 && i >= bytesPerPixel ? out[dst - rowLength + i - bytesPerPixel] : 0;
      let v: number;
      switch (type) {
        case 0:
          v = x;
          break;
        case 1:
          v = x + left;
          break;
        case 2:
          v = x + up;
          break;
        case 3:
          v = x + ((left + up) >> 1);
          break;
        case 4: {
          const p = left + up - upLeft;
          const pa = Math.abs(p - left), pb = Math.abs(p - up), pc = Math.abs(p - upLeft);
          v = x + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
          break;
        }
        default:
          return unsupported("an unknown PNG row filter");
      }
      out[dst + i] = v & 0xff;
    }
  }
  return out;
}

export { EOF };
