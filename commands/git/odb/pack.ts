/**
 * Reading packfiles (gitformat-pack: `.idx` version 2 and `.pack` versions 2 and 3, with
 * OFS_DELTA and REF_DELTA chains). Objects are located by binary search in the index and read
 * with positioned reads, so a large pack is never loaded whole, and — as git itself does — the
 * pack's checksum is not recomputed on every read.
 */

import { PtermError } from "../../../core/errors.ts";
import { fromHex, fromHexInto, toHex } from "./bytes.ts";
import type { ObjectType } from "./object.ts";
import { inflateInto, inflateIntoStreaming, inflateStreaming, INPUT_ENDED_EARLY } from "../../../lib/inflate.ts";
import { inCall, releaseAtCallEnd } from "../../../core/call_scope.ts";
import { releaseBytes } from "../../../core/bytes.ts";
import { createHeld } from "./held_file.ts";

const TYPES: Record<number, ObjectType> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };
const OFS_DELTA = 6;
const REF_DELTA = 7;

export type Inflate = (data: Uint8Array) => Promise<Uint8Array>;

function corrupt(message: string): PtermError {
  return new PtermError("CorruptRepository", `${message}. Check the repository with the real git (\`git fsck\`).`);
}

/** The binary name of the object `find` looks for (lookups are synchronous: one buffer serves all). */
const LOOKUP_KEY = new Uint8Array(20);

/**
 * A pack index. Version 2: magic, fan-out, names, CRCs, 31-bit offsets, 64-bit offsets.
 * Version 1 (git before 1.5.2): fan-out, then (offset, name) pairs.
 */
class PackIndex {
  readonly count: number;
  readonly #data: Uint8Array;
  readonly #view: DataView;
  readonly #v1: boolean;
  readonly #fanoutAt: number;
  readonly #namesAt: number;
  /** Bytes from one name to the next. */
  readonly #stride: number;
  #sortedOffsets: Float64Array | null = null;

  constructor(data: Uint8Array) {
    this.#data = data;
    this.#view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    this.#v1 = this.#view.getUint32(0) !== 0xff744f63;
    if (!this.#v1 && this.#view.getUint32(4) !== 2) {
      throw new PtermError(
        "UnsupportedFormat",
        `pack index version ${this.#view.getUint32(4)} is not supported (1 and 2 are).`,
      );
    }
    this.#fanoutAt = this.#v1 ? 0 : 8;
    this.#namesAt = this.#v1 ? 1024 + 4 : 8 + 1024;
    this.#stride = this.#v1 ? 24 : 20;
    this.count = this.#view.getUint32(this.#fanoutAt + 255 * 4);
  }

  #fanout(byte: number): number {
    return this.#view.getUint32(this.#fanoutAt + byte * 4);
  }

  #compareAt(i: number, key: Uint8Array): number {
    const start = this.#namesAt + i * this.#stride;
    for (let k = 0; k < 20; k++) {
      const d = this.#data[start + k] - key[k];
      if (d !== 0) return d;
    }
    return 0;
  }

  /** The position of `oid` in the index, or -1. */
  find(oid: string): number {
    const key = fromHexInto(oid, LOOKUP_KEY);
    let lo = key[0] === 0 ? 0 : this.#fanout(key[0] - 1);
    let hi = this.#fanout(key[0]);
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = this.#compareAt(mid, key);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }

  /**
   * The most hex digits `oid` shares with any other name in the index: its sorted neighbours are
   * the closest (what git's find_abbrev_len_packed compares).
   */
  sharedHexDigits(oid: string): number {
    const key = fromHex(oid);
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#compareAt(mid, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    let shared = 0;
    for (const i of [lo - 1, lo, lo + 1]) {
      if (i < 0 || i >= this.count || this.#compareAt(i, key) === 0) continue;
      shared = Math.max(shared, this.#sharedWith(i, key));
    }
    return shared;
  }

  #sharedWith(i: number, key: Uint8Array): number {
    const start = this.#namesAt + i * this.#stride;
    for (let k = 0; k < 20; k++) {
      const a = this.#data[start + k];
      if (a !== key[k]) return 2 * k + ((a >> 4) === (key[k] >> 4) ? 1 : 0);
    }
    return 40;
  }

  /** Names starting with `prefix` (hex, even or odd length). */
  matching(prefix: string): string[] {
    const first = parseInt(prefix.slice(0, 2), 16);
    const lo = first === 0 ? 0 : this.#fanout(first - 1);
    const hi = this.#fanout(first);
    const out: string[] = [];
    for (let i = lo; i < hi; i++) {
      const name = this.name(i);
      if (name.startsWith(prefix)) out.push(name);
    }
    return out;
  }

  name(i: number): string {
    const at = this.#namesAt + i * this.#stride;
    return toHex(this.#data, at, at + 20);
  }

  offset(i: number): number {
    if (this.#v1) return this.#view.getUint32(1024 + i * 24);
    const offsetsAt = this.#namesAt + this.count * 24;
    const small = this.#view.getUint32(offsetsAt + i * 4);
    if ((small & 0x80000000) === 0) return small;
    const largeAt = offsetsAt + this.count * 4 + (small & 0x7fffffff) * 8;
    return this.#view.getUint32(largeAt) * 2 ** 32 + this.#view.getUint32(largeAt + 4);
  }

  /** Where the object at `offset` ends (the next object's start, or the pack's trailer). */
  endOf(offset: number, packSize: number): number {
    if (!this.#sortedOffsets) {
      const all = new Float64Array(this.count);
      for (let i = 0; i < this.count; i++) all[i] = this.offset(i);
      this.#sortedOffsets = all.sort();
    }
    const sorted = this.#sortedOffsets;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo < sorted.length ? sorted[lo] : packSize - 20;
  }
}

/**
 * Pack files held open, by path: inside `holdingPackFiles`, and for the rest of a running call
 * (core/call_scope.ts), so a read costs no open — which under a sandbox's narrowed permissions
 * costs a path canonicalization: ~9,000 opens in the checkout of a clone (bench git-remote), one
 * per object of every commit and tree a `blame` or `log` walks. Outside both every read opens the
 * file and closes it again, so no handle outlives the operation that needed it.
 */
const heldPackFiles = new Map<string, Deno.FsFile>();
let holdDepth = 0;
/** Whether the running call will close the held files (else the outermost `holdingPackFiles` does). */
let callHolds = false;

function closeHeldPackFiles(): void {
  for (const file of heldPackFiles.values()) file.close();
  heldPackFiles.clear();
}

/** Runs `work` with every pack file it reads held open once, closed when it ends. */
export async function holdingPackFiles<T>(work: () => Promise<T>): Promise<T> {
  holdDepth++;
  try {
    return await work();
  } finally {
    if (--holdDepth === 0 && !callHolds) closeHeldPackFiles();
  }
}

/** The pack file at `path` for a read, and whether the reader closes it after (not when it is held). */
function openPackFile(path: string): { file: Deno.FsFile; owned: boolean } {
  const held = heldPackFiles.get(path);
  if (held) return { file: held, owned: false };
  if (holdDepth === 0 && !inCall()) return { file: Deno.openSync(path, { read: true }), owned: true };
  const file = Deno.openSync(path, { read: true });
  heldPackFiles.set(path, file);
  if (inCall() && !callHolds) {
    callHolds = true;
    releaseAtCallEnd(() => {
      callHolds = false;
      if (holdDepth === 0) closeHeldPackFiles();
    });
  }
  return { file, owned: false };
}

class Pack {
  readonly index: PackIndex;
  /** This pack's number among the repository's packs: offsets are only unique within one pack. */
  readonly id: number;
  readonly #path: string;
  readonly #size: number;

  constructor(index: PackIndex, path: string, id: number) {
    this.index = index;
    this.id = id;
    this.#path = path;
    this.#size = Deno.statSync(path).size;
  }

  /** A positioned read (the file held open as openPackFile says). */
  read(offset: number, length: number): Uint8Array {
    const out = new Uint8Array(Math.max(0, Math.min(length, this.#size - offset)));
    const { file, owned } = openPackFile(this.#path);
    try {
      file.seekSync(offset, Deno.SeekMode.Start);
      let got = 0;
      while (got < out.length) {
        const n = file.readSync(out.subarray(got));
        if (n === null || n === 0) break;
        got += n;
      }
      return out.subarray(0, got);
    } finally {
      if (owned) file.close();
    }
  }

  end(offset: number): number {
    return this.index.endOf(offset, this.#size);
  }

  /**
   * The `length` bytes from `offset` (fewer at the end of the file), through `pages`: a view of
   * one page when they lie in one (the pages are never written), else copied into `scratch`
   * (which must have room for `length`). Either way valid until `scratch` is reused.
   */
  window(offset: number, length: number, scratch: Uint8Array, pages: PageCache): Uint8Array {
    const end = Math.min(offset + Math.max(0, length), this.#size);
    if (end <= offset) return scratch.subarray(0, 0);
    const first = Math.floor(offset / PAGE_BYTES);
    const last = Math.floor((end - 1) / PAGE_BYTES);
    if (first === last) {
      const page = pages.page(this, first);
      const from = offset - first * PAGE_BYTES;
      return page.subarray(from, Math.min(page.length, from + end - offset));
    }
    let got = 0;
    for (let number = first; number <= last && offset + got < end; number++) {
      const page = pages.page(this, number);
      const from = offset + got - number * PAGE_BYTES;
      const take = Math.min(page.length - from, end - offset - got);
      if (take <= 0) break;
      scratch.set(page.subarray(from, from + take), got);
      got += take;
    }
    return scratch.subarray(0, got);
  }

  /** Reads from `offset` into `target` (fewer bytes at the end of the file); returns the bytes read. */
  readInto(offset: number, target: Uint8Array, file?: Deno.FsFile): Uint8Array {
    const opened = file ? null : openPackFile(this.#path);
    const own = file ?? opened!.file;
    try {
      own.seekSync(offset, Deno.SeekMode.Start);
      let got = 0;
      while (got < target.length) {
        const n = own.readSync(target.subarray(got));
        if (n === null || n === 0) break;
        got += n;
      }
      return target.subarray(0, got);
    } finally {
      if (opened?.owned) own.close();
    }
  }

  /**
   * Inflates the zlib stream in `[from, to)`, which must give `size` bytes, into `sink` piece by
   * piece, through the shared streaming buffers; `first`, when given, holds the stream's first
   * bytes already (in the read buffer) and saves a read.
   */
  inflateRange(
    from: number,
    to: number,
    size: number,
    sink: (chunk: Uint8Array) => void,
    first: Uint8Array | null,
  ): void {
    const { out } = streamBuffers();
    this.#inflateFromRange(from, to, first, (input) => inflateStreaming(input, size, sink, out));
  }

  /**
   * The `size` bytes the zlib stream in `[from, to)` gives, decoded whole (into `into` when given,
   * which has room for them) but read through the shared read buffer: a large object without a
   * copy of its compressed bytes beside it.
   */
  inflateWhole(from: number, to: number, size: number, first: Uint8Array | null, into?: Uint8Array): Uint8Array {
    const content = into ? into.subarray(0, size) : new Uint8Array(size);
    this.#inflateFromRange(from, to, first, (input) => inflateIntoStreaming(input, content, 0, size));
    return content;
  }

  /** Runs `inflate` on the stream in `[from, to)`, read through the shared read buffer (after `first`). */
  #inflateFromRange(
    from: number,
    to: number,
    first: Uint8Array | null,
    inflate: (input: (offset: number) => Uint8Array) => number,
  ): void {
    const { read } = streamBuffers();
    let opened: { file: Deno.FsFile; owned: boolean } | null = null;
    let held = first;
    try {
      const input = (offset: number): Uint8Array => {
        if (held !== null && offset < held.length) return held.subarray(offset);
        // The read below overwrites what `held` shows, and what any source made before holds.
        held = null;
        streamGeneration++;
        opened ??= openPackFile(this.#path);
        const want = Math.max(0, Math.min(read.length, to - from - offset));
        return this.readInto(from + offset, read.subarray(0, want), opened.file);
      };
      let end: number;
      try {
        end = inflate(input);
      } catch (error) {
        if (error instanceof Error && error.message.startsWith("inflate:")) {
          throw corrupt("a packed object cannot be inflated to the size its header gives");
        }
        throw error;
      }
      if (from + end > to) throw corrupt("a packed object runs into the next one");
    } finally {
      const used = opened as { file: Deno.FsFile; owned: boolean } | null;
      if (used?.owned) used.file.close();
    }
  }
}

/**
 * Pages of a repository's pack files read so far (PAGE_BYTES each, at multiples of it), least
 * recently used first, at most PAGE_CACHE_BYTES for all its packs together: a walk reads
 * thousands of small entries that lie close together (commits, then trees, then blobs, as git
 * writes a pack), each of which would otherwise cost a seek and a read. A pack file is never
 * rewritten under its name (git and pterm write a new pack and remove the old one), so a page
 * stays what the file holds.
 */
class PageCache {
  readonly #pages = new Map<number | string, Uint8Array>();
  #bytes = 0;

  /** Page `number` of `pack` (shorter than PAGE_BYTES at the end of the file). */
  page(pack: Pack, number: number): Uint8Array {
    const key = pack.id < 4096 && number < 2 ** 30 ? pack.id * 2 ** 30 + number : `${pack.id}:${number}`;
    const hit = this.#pages.get(key);
    if (hit) {
      this.#pages.delete(key);
      this.#pages.set(key, hit);
      return hit;
    }
    const page = pack.read(number * PAGE_BYTES, PAGE_BYTES);
    while (this.#bytes + page.length > PAGE_CACHE_BYTES && this.#pages.size > 0) {
      const [oldest, old] = this.#pages.entries().next().value!;
      this.#pages.delete(oldest);
      this.#bytes -= old.length;
    }
    this.#pages.set(key, page);
    this.#bytes += page.length;
    return page;
  }

  /** Bytes of pages held (at most PAGE_CACHE_BYTES). */
  get bytes(): number {
    return this.#bytes;
  }
}

/** The read and output buffers of streamed blobs, shared (reads are synchronous): see streamBuffers. */
let sharedStreamBuffers: { read: Uint8Array; out: Uint8Array } | null = null;
/** Counts uses of the shared read buffer: a source whose first bytes were overwritten since reads them again. */
let streamGeneration = 0;

function streamBuffers(): { read: Uint8Array; out: Uint8Array } {
  sharedStreamBuffers ??= { read: new Uint8Array(STREAM_READ_BYTES), out: new Uint8Array(STREAM_OUT_BYTES) };
  return sharedStreamBuffers;
}

/** What streamed reads of large blobs read at once, and the output pieces they hand on (plus deflate's 32 KiB history). */
const STREAM_READ_BYTES = 1024 * 1024;
const STREAM_OUT_BYTES = 288 * 1024;

/**
 * The buffer of a large object decoded only to be a delta's base while the delta is streamed
 * (applyDeltaStreaming), shared by the pack indexer and the pack reader, held weakly: a clone
 * indexes its pack and then checks it out, decoding the same large base one after the other, and
 * a buffer each left the first to the collector while the second was made — twice the object at
 * the peak. Whoever takes it uses it before anything else can (synchronously) and keeps no view of
 * it; the collector takes it once nothing uses it.
 */
let sharedLargeBase: WeakRef<Uint8Array<ArrayBuffer>> | null = null;

/** Room for `size` bytes of a large delta base (see sharedLargeBase): valid until the next call. */
export function largeBaseBuffer(size: number): Uint8Array {
  const held = sharedLargeBase?.deref();
  if (held && held.length >= size) return held.subarray(0, size);
  const fresh = new Uint8Array(size);
  sharedLargeBase = new WeakRef(fresh);
  return fresh;
}

/** A delta base larger than this is not held in memory while its delta streams: it is spilled (SpilledBase). */
export const SPILL_BASE_BYTES = 8 * 1024 * 1024;

/** What a spilled base is read back through. */
const SPILL_WINDOW_BYTES = 1024 * 1024;

/**
 * A large delta base in a temporary file beside the packs instead of in memory — `tmp_base_*`,
 * held under an flock as the indexer's temporary files are, so a pterm killed meanwhile leaves
 * one that the next fetch removes (leftovers.ts), and git ignores — written once as it is
 * inflated, then read back where the delta copies from, through a window. A large file stored as a
 * delta is then hashed and checked out holding neither it nor its base whole (git holds the base).
 */
export class SpilledBase {
  readonly length: number;
  readonly #file: Deno.FsFile;
  readonly #path: string;
  #buffer: Uint8Array<ArrayBuffer> | null = null;
  #window = new Uint8Array(0);
  #start = 0;

  private constructor(file: Deno.FsFile, path: string, length: number) {
    this.#file = file;
    this.#path = path;
    this.length = length;
  }

  /**
   * `size` bytes, which `fill` hands to its `write` in order, in a new file in `dir`; null when
   * the file cannot be made there (the caller holds the base in memory then). A failure of `fill`
   * removes the file and is thrown.
   */
  static create(
    dir: string,
    size: number,
    fill: (write: (chunk: Uint8Array) => void) => void,
  ): SpilledBase | null {
    const path = `${dir}/tmp_base_${crypto.randomUUID().slice(0, 8)}`;
    let file: Deno.FsFile;
    try {
      file = createHeld(path);
    } catch {
      return null;
    }
    const spilled = new SpilledBase(file, path, size);
    try {
      let written = 0;
      fill((chunk) => {
        for (let at = 0; at < chunk.length;) at += file.writeSync(chunk.subarray(at));
        written += chunk.length;
      });
      if (written !== size) throw corrupt("a delta base is not the size its header gives");
    } catch (error) {
      spilled.close();
      throw error;
    }
    return spilled;
  }

  /** The `length` bytes from `offset` (at most SPILL_WINDOW_BYTES, within the base): a view valid until the next call. */
  bytes(offset: number, length: number): Uint8Array {
    if (offset < this.#start || offset + length > this.#start + this.#window.length) {
      this.#buffer ??= new Uint8Array(SPILL_WINDOW_BYTES);
      const want = Math.min(SPILL_WINDOW_BYTES, this.length - offset);
      this.#file.seekSync(offset, Deno.SeekMode.Start);
      let got = 0;
      while (got < want) {
        const n = this.#file.readSync(this.#buffer.subarray(got, want));
        if (n === null || n === 0) break;
        got += n;
      }
      if (got < length) throw corrupt("a spilled delta base was cut short");
      this.#window = this.#buffer.subarray(0, got);
      this.#start = offset;
    }
    return this.#window.subarray(offset - this.#start, offset - this.#start + length);
  }

  /** Closes and removes the file. */
  close(): void {
    releaseBytes(this.#buffer);
    this.#buffer = null;
    this.#window = new Uint8Array(0);
    try {
      Deno.removeSync(this.#path);
    } finally {
      this.#file.close();
    }
  }
}

/** A large blob read piece by piece: `pipe` hands its `size` bytes to `sink` in order (each piece overwritten after). */
export interface BlobSource {
  readonly size: number;
  pipe(sink: (chunk: Uint8Array) => void): void;
}

/** The packs of one repository, opened on first use. */
export class PackSet {
  readonly #dir: string;
  #packs: Pack[] | null = null;
  /**
   * Objects recently decoded from the packs, by pack and offset (every pack's first object is at
   * offset 12): delta chains share their bases. Least recently used first; bounded by bytes, so
   * a history of large blobs cannot hold more than BASE_CACHE_BYTES.
   */
  readonly #bases = new Map<number | string, { type: ObjectType; content: Uint8Array }>();
  #baseBytes = 0;
  /** The read buffer and delta arena of #readAt (see there). */
  #raw: Uint8Array | null = null;
  readonly #pages = new PageCache();
  readonly #arena = new DeltaArena();
  #arenaBusy = false;
  readonly #inflate: Inflate;
  readonly #resolveExternal: (oid: string) => Promise<{ type: ObjectType; content: Uint8Array } | null>;

  constructor(
    objectsDir: string,
    inflate: Inflate,
    resolveExternal: (oid: string) => Promise<{ type: ObjectType; content: Uint8Array } | null>,
  ) {
    this.#dir = `${objectsDir}/pack`;
    this.#inflate = inflate;
    this.#resolveExternal = resolveExternal;
  }

  #open(): Pack[] {
    if (this.#packs) return this.#packs;
    const packs: Pack[] = [];
    let names: string[] = [];
    try {
      names = [...Deno.readDirSync(this.#dir)].map((e) => e.name).filter((n) => n.endsWith(".idx")).sort();
    } catch { /* no pack folder */ }
    for (const name of names) {
      const index = new PackIndex(Deno.readFileSync(`${this.#dir}/${name}`));
      packs.push(new Pack(index, `${this.#dir}/${name.replace(/\.idx$/, ".pack")}`, packs.length));
    }
    this.#packs = packs;
    return packs;
  }

  has(oid: string): boolean {
    return this.#open().some((p) => p.index.find(oid) >= 0);
  }

  matching(prefix: string): string[] {
    return this.#open().flatMap((p) => p.index.matching(prefix));
  }

  /** How many objects the packs hold (git's approximate object count: loose objects are not counted). */
  objectCount(): number {
    return this.#open().reduce((sum, p) => sum + p.index.count, 0);
  }

  /** The most hex digits `oid` shares with another object in the packs. */
  sharedHexDigits(oid: string): number {
    return this.#open().reduce((most, p) => Math.max(most, p.index.sharedHexDigits(oid)), 0);
  }

  /**
   * A blob stored whole (not as a delta) in a pack and larger than `threshold` bytes, as a source
   * its reader pulls piece by piece (`pipe`, through buffers shared by all sources: nothing is
   * allocated per blob), never whole in memory; null for anything else.
   */
  blobSource(oid: string, threshold: number): BlobSource | null {
    for (const pack of this.#open()) {
      const i = pack.index.find(oid);
      if (i < 0) continue;
      const offset = pack.index.offset(i);
      const dataEnd = pack.end(offset);
      // The header and, for most objects, the whole stream in one read into the shared buffer.
      const { read } = streamBuffers();
      const head = pack.readInto(offset, read.subarray(0, Math.min(read.length, dataEnd - offset)));
      const generation = ++streamGeneration;
      let p = 0;
      let byte = head[p++];
      const typeCode = (byte >> 4) & 7;
      let size = byte & 15;
      let shift = 4;
      while (byte & 0x80 && p < head.length) {
        byte = head[p++];
        size += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      }
      if (p >= head.length) return null;
      if (typeCode === OFS_DELTA || typeCode === REF_DELTA) {
        return this.#deltaSource(pack, offset, dataEnd, head, threshold);
      }
      if (TYPES[typeCode] !== "blob" || size <= threshold) return null;
      const dataAt = offset + p;
      return {
        size,
        pipe: (sink) =>
          pack.inflateRange(dataAt, dataEnd, size, sink, generation === streamGeneration ? head.subarray(p) : null),
      };
    }
    return null;
  }

  /**
   * A blob stored as a delta, as a source: its base decoded as any read decodes it (from the
   * cache, a large one inflated through the read buffer) and the delta applied into the sink piece
   * by piece, so the blob itself is never whole in memory. `head` holds the entry's first bytes
   * (in the shared read buffer). Null when the result is not larger than `threshold`, when the
   * base must wait (outside the packs, or for the injected inflater) or is not a blob: read it
   * whole then.
   */
  #deltaSource(pack: Pack, offset: number, dataEnd: number, head: Uint8Array, threshold: number): BlobSource | null {
    const entry = entryHeader(head);
    if (entry.dataAt >= head.length) return null;
    // The delta first: a large base is inflated through the read buffer `head` lies in.
    let delta: Uint8Array = new Uint8Array(entry.size);
    try {
      inflateInto(head, entry.dataAt, delta, 0, entry.size);
    } catch (error) {
      const cut = error instanceof Error && error.message === INPUT_ENDED_EARLY && head.length < dataEnd - offset;
      if (!cut) throw corrupt("a packed object cannot be inflated to the size its header gives");
      delta = pack.inflateWhole(offset + entry.dataAt, dataEnd, entry.size, head.subarray(entry.dataAt));
    }
    const size = deltaResultSize(delta);
    if (size <= threshold) return null;
    let basePack = pack;
    let baseOffset: number;
    if (entry.typeCode === OFS_DELTA) {
      if (entry.back <= 0 || entry.back > offset) throw corrupt("a delta in a pack points outside it");
      baseOffset = offset - entry.back;
    } else {
      const oid = toHex(head, entry.dataAt - 20, entry.dataAt);
      const home = this.#open().find((p) => p.index.find(oid) >= 0);
      if (!home) return null;
      basePack = home;
      baseOffset = home.index.offset(home.index.find(oid));
    }
    if (!this.#cached(basePack, baseOffset)) {
      // A base stored whole and too large for the cache (it would not be kept) is decoded when the
      // source is read: spilled to a temporary file, or where that cannot be made, into the
      // shared buffer.
      const raw = this.#readRaw(basePack, baseOffset, ENTRY_WINDOW);
      const baseEntry = entryHeader(raw);
      const baseSize = baseEntry.size;
      if (TYPES[baseEntry.typeCode] && baseSize > SPILL_BASE_BYTES && baseSize <= LARGE_OBJECT) {
        if (TYPES[baseEntry.typeCode] !== "blob") return null;
        const from = baseOffset + baseEntry.dataAt;
        return {
          size,
          pipe: (sink) => {
            const to = basePack.end(baseOffset);
            const spilled = SpilledBase.create(
              this.#dir,
              baseSize,
              (write) => basePack.inflateRange(from, to, baseSize, write, null),
            );
            if (spilled) {
              try {
                applyDeltaStreaming(spilled, delta, sink, streamBuffers().out);
              } finally {
                spilled.close();
              }
              return;
            }
            const content = basePack.inflateWhole(from, to, baseSize, null, largeBaseBuffer(baseSize));
            applyDeltaStreaming(content, delta, sink, streamBuffers().out);
          },
        };
      }
    }
    const base = this.#readAt(basePack, baseOffset);
    if (base instanceof Promise) {
      // Read whole instead; this read's outcome is the one that one will meet again.
      base.catch(() => {});
      return null;
    }
    if (base.type !== "blob") return null;
    const content = base.content;
    return { size, pipe: (sink) => void applyDeltaStreaming(content, delta, sink, streamBuffers().out) };
  }

  async read(oid: string): Promise<{ type: ObjectType; content: Uint8Array } | null> {
    return await this.readNow(oid);
  }

  /**
   * The object as `read` gives it, given at once — no promise, no await — unless decoding it
   * must wait (a REF_DELTA's base, an object for the injected inflater): then a promise of it.
   */
  readNow(
    oid: string,
  ): { type: ObjectType; content: Uint8Array } | null | Promise<{ type: ObjectType; content: Uint8Array }> {
    for (const pack of this.#open()) {
      const i = pack.index.find(oid);
      if (i >= 0) return this.#readAt(pack, pack.index.offset(i));
    }
    return null;
  }

  /**
   * The object at `offset`: its delta chain is walked down to a base first (no recursion, so
   * chains as long as git allows — 4,095 — read in bounded stack), then the deltas are applied
   * back up. Every object decoded on the way is remembered, since chains share their bases.
   * The entries' bytes are read into one reused buffer and the deltas inflated into one reused
   * arena (a call that finds the arena taken — reads may interleave at their awaits — gets its
   * own): only the decoded objects, which the cache keeps, are allocated.
   */
  #readAt(
    pack: Pack,
    offset: number,
  ): { type: ObjectType; content: Uint8Array } | Promise<{ type: ObjectType; content: Uint8Array }> {
    const arena = this.#arenaBusy ? new DeltaArena() : this.#arena;
    this.#arenaBusy = true;
    // The arena stays taken until the object is decoded, after any wait.
    const release = () => {
      if (arena === this.#arena) {
        this.#arenaBusy = false;
        arena.clear();
      }
    };
    let result: { type: ObjectType; content: Uint8Array } | Promise<{ type: ObjectType; content: Uint8Array }>;
    try {
      result = this.#readChain(pack, offset, arena);
    } catch (error) {
      release();
      throw error;
    }
    if (result instanceof Promise) return result.finally(release);
    release();
    return result;
  }

  #readChain(
    pack: Pack,
    offset: number,
    arena: DeltaArena,
  ): { type: ObjectType; content: Uint8Array } | Promise<{ type: ObjectType; content: Uint8Array }> {
    /** Each link of the chain: where its object is, and its delta's place in the arena. */
    const chain: { offset: number; deltaAt: number; deltaSize: number }[] = [];
    let base: { type: ObjectType; content: Uint8Array } | Promise<{ type: ObjectType; content: Uint8Array }> | null =
      null;
    let at = offset;
    while (base === null) {
      if (chain.length > MAX_DELTA_CHAIN) {
        throw corrupt(`a delta chain in a pack is longer than git's ${MAX_DELTA_CHAIN}`);
      }
      const cached = this.#cached(pack, at);
      if (cached) {
        base = cached;
        break;
      }
      // `raw` is read into the shared buffer and used up before anything waits. Most
      // entries end within a first window, and the rest within zlib's bound past their header:
      // neither needs the next object's offset (sorting every offset of the pack once per store).
      // Only a stream that a compressor other than zlib made longer than that bound is read to it.
      let raw = this.#readRaw(pack, at, ENTRY_WINDOW);
      let entry = entryHeader(raw);
      let whole = raw.length < ENTRY_WINDOW;
      const bound = entry.dataAt + deflateBound(entry.size);
      const wholeType = TYPES[entry.typeCode];
      if (!whole && bound > RAW_BUFFER_BYTES && wholeType && entry.size <= LARGE_OBJECT) {
        // A large object (a big file, the base of its delta) is inflated through the read buffer:
        // its compressed bytes are never held beside it.
        const content = pack.inflateWhole(at + entry.dataAt, pack.end(at), entry.size, raw.subarray(entry.dataAt));
        base = { type: wholeType, content };
        this.#remember(pack, at, base);
        break;
      }
      if (!whole && bound > raw.length) {
        raw = this.#readRaw(pack, at, bound);
        entry = entryHeader(raw);
        whole = raw.length < bound;
      }
      for (;;) {
        try {
          base = this.#decodeEntry(pack, at, raw, entry, chain, arena, whole);
          break;
        } catch (error) {
          if (whole || !(error instanceof Error && error.message === INPUT_ENDED_EARLY)) throw error;
          raw = this.#readRaw(pack, at, pack.end(at) - at);
          entry = entryHeader(raw);
          whole = true;
        }
      }
      if (entry.typeCode === OFS_DELTA) at -= entry.back;
    }
    // A base that must wait ends the walk down (what waits never ends its input early: no re-read).
    if (base instanceof Promise) return base.then((object) => this.#applyChain(pack, object, chain, arena));
    return this.#applyChain(pack, base, chain, arena);
  }

  /** The deltas of `chain` applied to `base`, from the base's end of the chain up; each result remembered. */
  #applyChain(
    pack: Pack,
    base: { type: ObjectType; content: Uint8Array },
    chain: { offset: number; deltaAt: number; deltaSize: number }[],
    arena: DeltaArena,
  ): { type: ObjectType; content: Uint8Array } {
    let result = base;
    for (let i = chain.length - 1; i >= 0; i--) {
      const link = chain[i];
      const delta = arena.bytes.subarray(link.deltaAt, link.deltaAt + link.deltaSize);
      result = { type: result.type, content: applyDelta(result.content, delta) };
      this.#remember(pack, link.offset, result);
    }
    return result;
  }

  /**
   * One entry of a delta chain: a base object (returned, and remembered), or a delta (its link
   * pushed to `chain`; null returned, or an external base for a REF_DELTA). Until `whole`, an
   * input that ends early is thrown as the inflater's INPUT_ENDED_EARLY, for a re-read. Only what
   * must wait — a REF_DELTA's base, an object for the injected inflater — is a promise: the
   * thousands of entries a walk decodes cost no await each.
   */
  #decodeEntry(
    pack: Pack,
    at: number,
    raw: Uint8Array,
    entry: EntryHeader,
    chain: { offset: number; deltaAt: number; deltaSize: number }[],
    arena: DeltaArena,
    whole: boolean,
  ): { type: ObjectType; content: Uint8Array } | null | Promise<{ type: ObjectType; content: Uint8Array }> {
    const { typeCode, size, dataAt } = entry;
    if (typeCode === OFS_DELTA) {
      if (entry.back <= 0 || entry.back > at) throw corrupt("a delta in a pack points outside it");
      chain.push({ offset: at, deltaAt: this.#inflateDelta(raw, dataAt, size, arena, whole), deltaSize: size });
      return null;
    }
    if (typeCode === REF_DELTA) {
      const baseOid = toHex(raw, dataAt - 20, dataAt);
      chain.push({ offset: at, deltaAt: this.#inflateDelta(raw, dataAt, size, arena, whole), deltaSize: size });
      return this.#externalBase(baseOid);
    }
    const type = TYPES[typeCode];
    if (!type) throw corrupt(`a pack has an object of unknown type ${typeCode}`);
    if (size > LARGE_OBJECT) {
      // `raw` may be the shared buffer, reused while this waits.
      return this.#inflateLarge(raw.slice(dataAt), size).then((content) => {
        const base = { type, content };
        this.#remember(pack, at, base);
        return base;
      });
    }
    const base = { type, content: this.#inflateSized(raw, dataAt, size, whole) };
    this.#remember(pack, at, base);
    return base;
  }

  async #externalBase(oid: string): Promise<{ type: ObjectType; content: Uint8Array }> {
    const base = await this.#resolveExternal(oid);
    if (!base) throw corrupt(`the delta base ${oid} is missing`);
    return base;
  }

  /** `length` bytes of `pack` from `offset`, in the shared read buffer (valid until the next read). */
  #readRaw(pack: Pack, offset: number, length: number): Uint8Array {
    if (length > RAW_BUFFER_BYTES) return pack.read(offset, length);
    this.#raw ??= new Uint8Array(RAW_BUFFER_BYTES);
    return pack.window(offset, length, this.#raw, this.#pages);
  }

  /** Inflates a delta of `size` bytes at `raw[at]` into the arena; returns where it starts there. */
  #inflateDelta(raw: Uint8Array, at: number, size: number, arena: DeltaArena, whole: boolean): number {
    const start = arena.reserve(size);
    try {
      inflateInto(raw, at, arena.bytes, start, size);
    } catch (error) {
      if (!whole && error instanceof Error && error.message === INPUT_ENDED_EARLY) throw error;
      throw corrupt("a packed object cannot be inflated to the size its header gives");
    }
    return start;
  }

  /**
   * The zlib data at `raw[at]`, which the entry's header says inflates to `size` bytes: into a
   * buffer of exactly that size, in JavaScript (no Node layer to boot, no over-allocated output
   * kept in the cache); objects past LARGE_OBJECT go to `#inflateLarge` instead.
   */
  #inflateSized(raw: Uint8Array, at: number, size: number, whole: boolean): Uint8Array {
    const content = new Uint8Array(size);
    try {
      inflateInto(raw, at, content, 0, size);
    } catch (error) {
      if (!whole && error instanceof Error && error.message === INPUT_ENDED_EARLY) throw error;
      throw corrupt("a packed object cannot be inflated to the size its header gives");
    }
    return content;
  }

  /** An object past LARGE_OBJECT bytes, through the injected (native) inflater. */
  async #inflateLarge(stream: Uint8Array, size: number): Promise<Uint8Array> {
    const content = await this.#inflate(stream);
    if (content.length !== size) throw corrupt("a packed object has the wrong size");
    return content;
  }

  /** Bytes of decoded objects kept for delta chains (at most BASE_CACHE_BYTES). */
  get cachedBytes(): number {
    return this.#baseBytes;
  }

  /** Bytes of pack file pages kept (at most PAGE_CACHE_BYTES). */
  get pageBytes(): number {
    return this.#pages.bytes;
  }

  #cached(pack: Pack, offset: number): { type: ObjectType; content: Uint8Array } | undefined {
    const key = baseKey(pack, offset);
    const hit = this.#bases.get(key);
    if (hit) {
      this.#bases.delete(key);
      this.#bases.set(key, hit);
    }
    return hit;
  }

  #remember(pack: Pack, offset: number, object: { type: ObjectType; content: Uint8Array }): void {
    const size = object.content.length;
    if (size > BASE_CACHE_BYTES / 4) return;
    const key = baseKey(pack, offset);
    if (this.#bases.has(key)) return;
    while (this.#baseBytes + size > BASE_CACHE_BYTES && this.#bases.size > 0) {
      const [oldest, old] = this.#bases.entries().next().value!;
      this.#bases.delete(oldest);
      this.#baseBytes -= old.content.length;
    }
    this.#bases.set(key, object);
    this.#baseBytes += size;
  }
}

/**
 * The key of the object at `offset` of `pack` in the cache of decoded objects: a number (no string
 * made per lookup) while pack number and offset fit one exactly, else their text.
 */
function baseKey(pack: Pack, offset: number): number | string {
  return pack.id < 4096 && offset < 2 ** 40 ? pack.id * 2 ** 40 + offset : `${pack.id}:${offset}`;
}

/** What is read of a pack entry first: its header and, for most entries, all of its stream. */
const ENTRY_WINDOW = 8 * 1024;

/**
 * The most bytes zlib's deflate makes of `size` bytes (its deflateBound, with the zlib header
 * and trailer, rounded up generously): a stream that long is surely in hand.
 */
function deflateBound(size: number): number {
  return size + (size >> 11) + 64;
}

interface EntryHeader {
  readonly typeCode: number;
  /** The size of the object, or of the delta. */
  readonly size: number;
  /** Where the zlib stream starts. */
  readonly dataAt: number;
  /** For an OFS_DELTA: how far before the entry its base is. */
  readonly back: number;
}

/** A pack entry's header: type and size, then an OFS_DELTA's distance or a REF_DELTA's base name. */
function entryHeader(raw: Uint8Array): EntryHeader {
  let p = 0;
  let byte = raw[p++];
  const typeCode = (byte >> 4) & 7;
  let size = byte & 15;
  let shift = 4;
  while (byte & 0x80) {
    byte = raw[p++];
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  }
  let back = 0;
  if (typeCode === OFS_DELTA) {
    byte = raw[p++];
    back = byte & 0x7f;
    while (byte & 0x80) {
      byte = raw[p++];
      back = (back + 1) * 128 + (byte & 0x7f);
    }
  } else if (typeCode === REF_DELTA) p += 20;
  return { typeCode, size, dataAt: p, back };
}

/** Entries up to this size are read through the pages (or PackSet's shared buffer); larger ones into their own. */
const RAW_BUFFER_BYTES = 1024 * 1024;

/** What one read of a pack file brings in for the entries that follow, and what a pack keeps of them. */
const PAGE_BYTES = 256 * 1024;
const PAGE_CACHE_BYTES = 32 * 1024 * 1024;

/** The deltas of one chain, inflated one after another into a buffer that grows and is reused. */
class DeltaArena {
  bytes = new Uint8Array(0);
  #used = 0;

  /** Room for `size` more bytes: where they start. Growing copies what is there (the links hold offsets). */
  reserve(size: number): number {
    const start = this.#used;
    if (start + size > this.bytes.length) {
      const grown = new Uint8Array(Math.max(start + size, 2 * this.bytes.length, 64 * 1024));
      grown.set(this.bytes.subarray(0, start));
      this.bytes = grown;
    }
    this.#used = start + size;
    return start;
  }

  clear(): void {
    this.#used = 0;
    // A chain of huge deltas does not keep its arena.
    if (this.bytes.length > 16 * 1024 * 1024) this.bytes = new Uint8Array(0);
  }
}

/** What the cache of decoded pack objects may hold (git's core.deltaBaseCacheLimit is 96 MiB). */
const BASE_CACHE_BYTES = 32 * 1024 * 1024;

/** git's own limit on delta chains (pack.depth is capped at 4095). */
const MAX_DELTA_CHAIN = 4095;

/** Objects above this size are inflated by the injected (native) inflater (Node's zlib is faster on them). */
const LARGE_OBJECT = 256 * 1024 * 1024;

function readVarint(data: Uint8Array, at: { p: number }): number {
  let value = 0;
  let shift = 0;
  let byte: number;
  do {
    byte = data[at.p++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return value;
}

/** The copy instruction just read by `readCopy`: where in the base, and how many bytes. */
const copy = { offset: 0, length: 0 };

/**
 * Reads the operands of git's delta copy instruction `op` (its bits say which offset and length
 * bytes follow) from `delta` at `p` into `copy`; returns the position after them. A length of 0
 * means 0x10000, as git's patch-delta.c reads it.
 */
function readCopy(delta: Uint8Array, op: number, p: number): number {
  let offset = 0;
  let length = 0;
  if (op & 0x01) offset |= delta[p++];
  if (op & 0x02) offset |= delta[p++] << 8;
  if (op & 0x04) offset |= delta[p++] << 16;
  if (op & 0x08) offset += delta[p++] * 2 ** 24;
  if (op & 0x10) length |= delta[p++];
  if (op & 0x20) length |= delta[p++] << 8;
  if (op & 0x40) length |= delta[p++] << 16;
  copy.offset = offset;
  copy.length = length === 0 ? 0x10000 : length;
  return p;
}

/** git's delta format: copy ranges of the base and insert literal bytes. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  const out = new Uint8Array(deltaResultSize(delta));
  applyDeltaInto(base, delta, out, 0);
  return out;
}

/** The size of the object `delta` makes (its header's second number). */
export function deltaResultSize(delta: Uint8Array): number {
  const at = { p: 0 };
  readVarint(delta, at);
  return readVarint(delta, at);
}

/**
 * Applies `delta` to `base`, writing the result into `out` from `outAt` (it must have room for
 * `deltaResultSize(delta)` bytes, and must not overlap `base`); returns the result's size.
 */
export function applyDeltaInto(base: Uint8Array, delta: Uint8Array, out: Uint8Array, outAt: number): number {
  const at = { p: 0 };
  const baseSize = readVarint(delta, at);
  if (baseSize !== base.length) throw corrupt("a delta does not fit its base");
  const size = readVarint(delta, at);
  if (outAt + size > out.length) throw corrupt("a delta's result does not fit");
  let p = at.p;
  let o = outAt;
  const end = outAt + size;
  while (p < delta.length) {
    const op = delta[p++];
    if (op & 0x80) {
      p = readCopy(delta, op, p);
      const { offset, length } = copy;
      if (offset + length > base.length || o + length > end) throw corrupt("a delta copies outside its base");
      // Short copies byte by byte: a subarray and set() cost more than the loop for them.
      if (length > 64) out.set(base.subarray(offset, offset + length), o);
      else for (let i = 0; i < length; i++) out[o + i] = base[offset + i];
      o += length;
    } else if (op > 0) {
      if (p + op > delta.length || o + op > end) throw corrupt("a delta inserts past its end");
      for (let i = 0; i < op; i++) out[o + i] = delta[p + i];
      o += op;
      p += op;
    } else {
      throw corrupt("a delta has a reserved instruction");
    }
  }
  if (o !== end) throw corrupt("a delta produced the wrong size");
  return size;
}

/** Copies at least this long go from the base to the sink as they are, not through the buffer. */
const DIRECT_COPY_BYTES = 16 * 1024;

/**
 * Applies `delta` to `base` as `applyDeltaInto` does, with the same checks, but hands the result
 * to `sink` in order, in pieces — through `buffer` (reused: a piece is overwritten once the sink
 * returns), or a view of `base` for a long copy — so it is never held whole: the way a large blob
 * stored as a delta is hashed while indexing and written while checking out. `buffer` holds at
 * least DIRECT_COPY_BYTES. Returns the result's size.
 */
export function applyDeltaStreaming(
  base: Uint8Array | SpilledBase,
  delta: Uint8Array,
  sink: (chunk: Uint8Array) => void,
  buffer: Uint8Array,
): number {
  if (buffer.length < DIRECT_COPY_BYTES) throw new Error("applyDeltaStreaming: the buffer is too small");
  const at = { p: 0 };
  const baseSize = readVarint(delta, at);
  if (baseSize !== base.length) throw corrupt("a delta does not fit its base");
  const size = readVarint(delta, at);
  let p = at.p;
  /** Bytes of the result produced so far (handed on or in `buffer`), and in `buffer`. */
  let produced = 0;
  let fill = 0;
  const flush = () => {
    if (fill > 0) sink(buffer.subarray(0, fill));
    fill = 0;
  };
  while (p < delta.length) {
    const op = delta[p++];
    if (op & 0x80) {
      p = readCopy(delta, op, p);
      const { offset, length } = copy;
      if (offset + length > base.length || produced + length > size) throw corrupt("a delta copies outside its base");
      produced += length;
      if (base instanceof SpilledBase) {
        // From the file, a window at a time.
        for (let from = offset, left = length; left > 0;) {
          const piece = base.bytes(from, Math.min(left, SPILL_WINDOW_BYTES));
          if (piece.length >= DIRECT_COPY_BYTES) {
            flush();
            sink(piece);
          } else {
            if (fill + piece.length > buffer.length) flush();
            buffer.set(piece, fill);
            fill += piece.length;
          }
          from += piece.length;
          left -= piece.length;
        }
        continue;
      }
      if (length >= DIRECT_COPY_BYTES) {
        flush();
        sink(base.subarray(offset, offset + length));
        continue;
      }
      if (fill + length > buffer.length) flush();
      if (length > 64) buffer.set(base.subarray(offset, offset + length), fill);
      else for (let i = 0; i < length; i++) buffer[fill + i] = base[offset + i];
      fill += length;
    } else if (op > 0) {
      if (p + op > delta.length || produced + op > size) throw corrupt("a delta inserts past its end");
      produced += op;
      if (fill + op > buffer.length) flush();
      for (let i = 0; i < op; i++) buffer[fill + i] = delta[p + i];
      fill += op;
      p += op;
    } else {
      throw corrupt("a delta has a reserved instruction");
    }
  }
  if (produced !== size) throw corrupt("a delta produced the wrong size");
  flush();
  return size;
}
