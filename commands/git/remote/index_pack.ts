/**
 * git's `index-pack` for a pack arriving from a remote: the pack is streamed to a temporary file
 * under objects/pack (never held in memory), its trailing checksum verified, every object
 * inflated and hashed (a delta after applying it to its base), every tree checked as git's fsck
 * and verify_path do, and an `.idx` version 2 written beside it. Only then are both renamed to
 * `pack-<checksum>.{pack,idx}` — the `.idx` last, since readers find packs by their index — so an
 * interrupted transfer leaves at most a `tmp_pack_*` file that git itself ignores.
 */

import { PtermError } from "../../../core/errors.ts";
import {
  applyDeltaInto,
  applyDeltaStreaming,
  deltaResultSize,
  largeBaseBuffer,
  SPILL_BASE_BYTES,
  SpilledBase,
} from "../odb/pack.ts";
import { decodeName, fromHex, toHex } from "../odb/bytes.ts";
import { inflateInto, inflateIntoStreaming, inflateStreaming, INPUT_ENDED_EARLY } from "../../../lib/inflate.ts";
import { parseCommit, parseTag } from "../odb/objects.ts";
import type { ObjectType } from "../odb/object.ts";
import { verifyTreeEntryName } from "../worktree/verify_path.ts";
import { Sha1 } from "../odb/sha1.ts";
import { createHeld } from "../odb/held_file.ts";
import { releaseBytes } from "../../../core/bytes.ts";

const TYPES: Record<number, ObjectType> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };
const BLOB = 3;
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** git's own limit on delta chains (pack.depth is capped at 4095). */
const MAX_DELTA_CHAIN = 4095;
/** The ring of decoded objects indexing keeps for delta bases (see DecodedRing). */
const RING_BYTES = 4 * 1024 * 1024;

export interface IndexedPack {
  /** `pack-<checksum>`: the files are objects/pack/<name>.pack and .idx. */
  readonly name: string;
  readonly objects: number;
  readonly bytes: number;
  /** What the pack's objects name, for the connectivity check (`checkConnected` in operations.ts). */
  readonly links: PackLinks;
}

/** The objects a pack holds and the ones its commits, trees and tags name (submodule commits aside). */
export interface PackLinks {
  /** Whether the pack holds `oid`. */
  has(oid: string): boolean;
  /** Trees, blobs and tag targets named by the pack's objects but not in it, each once. */
  named(): Iterable<string>;
  /** Each commit's parents (kept apart: a shallow boundary commit's parents are legitimately absent). */
  readonly parents: ReadonlyMap<string, readonly string[]>;
  /** Hands back the memory behind these links at once: they answer nothing after. */
  release(): void;
}

export interface ReceiveOptions {
  /** The pack is refused (InputTooLarge) once it grows past this many bytes. */
  readonly maxBytes: number;
  readonly signal?: AbortSignal;
  /** Called as bytes arrive (`received`) and as objects are indexed (`indexed` of `total`). */
  readonly onProgress?: (stage: "receiving" | "indexing", done: number, total?: number) => void;
  /** The ring of decoded delta bases (RING_BYTES unless given; the tests make it small). */
  readonly cacheBytes?: number;
}

function corruptPack(message: string): PtermError {
  return new PtermError(
    "CorruptInput",
    `the remote sent a damaged pack (${message}); nothing was stored and no ref was changed. Retry; if it ` +
      "persists the remote repository itself may be damaged.",
  );
}

/** Runs `inflate`; the inflater's own errors say the pack's data is bad, anything else (the call's signal) goes on. */
function inflating<T>(inflate: () => T): T {
  try {
    return inflate();
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("inflate:")) {
      throw corruptPack("an object cannot be inflated");
    }
    throw error;
  }
}

/** Writes the stream to `file` (the caller closes it), returning its size and the SHA-1 of all but its last 20 bytes (the pack trailer). */
async function spool(
  chunks: AsyncIterable<Uint8Array>,
  file: Deno.FsFile,
  options: ReceiveOptions,
): Promise<{ size: number; computed: string; trailer: string }> {
  const hash = new Sha1();
  let size = 0;
  /** The last up to 20 bytes seen, not yet hashed: they may be the trailer. */
  let tail = new Uint8Array(0);
  for await (const chunk of chunks) {
    options.signal?.throwIfAborted();
    size += chunk.length;
    if (size > options.maxBytes) {
      throw new PtermError(
        "InputTooLarge",
        `the remote's pack is larger than git.max_fetch_bytes (${options.maxBytes} bytes); nothing was stored. ` +
          "Fetch less (--depth 1, --branch) or raise git.max_fetch_bytes in pterm.json.",
      );
    }
    // All but the last 20 bytes are hashed as they pass; those may be the trailer.
    if (chunk.length >= 20) {
      hash.update(tail);
      hash.update(chunk.subarray(0, chunk.length - 20));
      tail = chunk.slice(chunk.length - 20);
    } else {
      const joined = new Uint8Array(tail.length + chunk.length);
      joined.set(tail);
      joined.set(chunk, tail.length);
      const keep = Math.min(20, joined.length);
      hash.update(joined.subarray(0, joined.length - keep));
      tail = joined.slice(joined.length - keep);
    }
    let written = 0;
    while (written < chunk.length) written += file.writeSync(chunk.subarray(written));
    options.onProgress?.("receiving", size);
  }
  if (tail.length < 20) throw corruptPack("it ended before its checksum");
  const digest = new Uint8Array(20);
  hash.digestInto(digest, 0);
  return { size, computed: toHex(digest), trailer: toHex(tail) };
}

/** The pack is read through a window of this many bytes. */
const WINDOW_BYTES = 1024 * 1024;
/**
 * Random reads (pass two's delta chains) go through a second window of this many bytes: nearly
 * all of them (14,501 of 15,291 on the bench's pack) fall within it after the one before, where
 * each was a seek, a read and a new buffer.
 */
const RANDOM_WINDOW_BYTES = 128 * 1024;
/** The output buffer of a streamed blob: pieces of up to 256 KiB go to the hash, plus the 32 KiB deflate history. */
const STREAM_BUFFER_BYTES = 288 * 1024;

/** Positioned reads through one moving window, so a sequential walk costs one read per few MiB. */
class PackReader {
  readonly size: number;
  readonly #file: Deno.FsFile;
  #buffer = new Uint8Array(0);
  #window = new Uint8Array(0);
  #start = 0;
  #randomBuffer: Uint8Array<ArrayBuffer> | null = null;
  #random = new Uint8Array(0);
  #randomStart = 0;

  constructor(file: Deno.FsFile, size: number) {
    this.#file = file;
    this.size = size;
  }

  /**
   * Up to `length` bytes from `offset` (fewer at the end of the file). A sequential walk moves the
   * window forward; a random read (`sequential` false: a delta base far back) keeps that window
   * where it is and goes through a second, smaller one (a read larger than it gets its own buffer).
   * Either window's buffer is reused: a view handed out is valid until the next read of its kind.
   */
  bytes(offset: number, length: number, sequential = true): Uint8Array {
    const end = Math.min(this.size, offset + length);
    if (offset >= this.#start && end <= this.#start + this.#window.length) {
      return this.#window.subarray(offset - this.#start, end - this.#start);
    }
    if (!sequential) {
      if (offset >= this.#randomStart && end <= this.#randomStart + this.#random.length) {
        return this.#random.subarray(offset - this.#randomStart, end - this.#randomStart);
      }
      if (end - offset > RANDOM_WINDOW_BYTES) return this.#readAt(offset, end - offset);
      this.#randomBuffer ??= new Uint8Array(RANDOM_WINDOW_BYTES);
      this.#random = this.#fill(this.#randomBuffer, offset, Math.min(RANDOM_WINDOW_BYTES, this.size - offset));
      this.#randomStart = offset;
      return this.#random.subarray(0, Math.min(this.#random.length, end - offset));
    }
    // The window's buffer is reused: views of it handed out before are not kept across reads.
    const want = Math.min(this.size - offset, Math.max(length, WINDOW_BYTES));
    if (this.#buffer.length < want) this.#buffer = new Uint8Array(Math.max(want, WINDOW_BYTES));
    this.#window = this.#fill(this.#buffer, offset, want);
    this.#start = offset;
    return this.#window.subarray(0, Math.min(this.#window.length, end - offset));
  }

  #readAt(offset: number, length: number): Uint8Array {
    return this.#fill(new Uint8Array(length), offset, length);
  }

  /** Hands back the windows' buffers (see releaseBytes); the reader reads nothing after. */
  release(): void {
    releaseBytes(this.#buffer, this.#randomBuffer);
  }

  /** Reads `length` bytes from `offset` into the start of `buffer`; the view of what was read. */
  #fill(buffer: Uint8Array<ArrayBuffer>, offset: number, length: number): Uint8Array<ArrayBuffer> {
    this.#file.seekSync(offset, Deno.SeekMode.Start);
    let got = 0;
    while (got < length) {
      const n = this.#file.readSync(buffer.subarray(got, length));
      if (n === null || n === 0) break;
      got += n;
    }
    return buffer.subarray(0, got);
  }
}

/** CRC-32 (the IEEE polynomial, as zlib's crc32), for the `.idx`'s per-object checksums. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 of `data`, continuing from `crc` (the CRC of the bytes before it). */
function crc32(data: Uint8Array, crc = 0): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * Objects decoded while indexing, kept for the deltas that follow them: one ring of
 * RING_BYTES, written in order and overwritten when it wraps (first in, first out). Bases come
 * shortly before their deltas in the packs git writes, so a ring of a few MiB resolves nearly
 * every delta when it is read, and indexing allocates nothing per object (git's index-pack bounds
 * its base cache the same way, by core.deltaBaseCacheLimit).
 */
class DecodedRing {
  readonly #bytes: Uint8Array;
  readonly #capacity: number;
  /** Where the next object goes, counted from the start of all writes (not wrapped). */
  #written = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#bytes = new Uint8Array(capacity);
  }

  /** Objects larger than this are not kept (they get their own buffer). */
  get largest(): number {
    return this.#capacity >> 2;
  }

  /** Room for `length` bytes: its position (not wrapped); what was there is overwritten. */
  reserve(length: number): number {
    let at = this.#written;
    if ((at % this.#capacity) + length > this.#capacity) at = (Math.floor(at / this.#capacity) + 1) * this.#capacity;
    this.#written = at + length;
    return at;
  }

  /** Whether the `length` bytes reserved at `at` are still there. */
  holds(at: number): boolean {
    return at >= 0 && this.#written <= at + this.#capacity;
  }

  view(at: number, length: number): Uint8Array {
    const start = at % this.#capacity;
    return this.#bytes.subarray(start, start + length);
  }

  /** Hands back the ring's buffer (see releaseBytes): it holds nothing after. */
  release(): void {
    releaseBytes(this.#bytes);
  }
}

/**
 * A set of object names kept as bytes (open addressing over the names' first bytes, which SHA-1
 * spreads evenly): a pack's trees name hundreds of thousands of entries, mostly the same objects
 * again, and turning each into a string costs more than the rest of indexing.
 */
class OidSet {
  #keys: Uint8Array;
  #used: Uint8Array;
  #mask: number;
  size = 0;

  constructor(capacity = 1 << 12) {
    this.#keys = new Uint8Array(capacity * 20);
    this.#used = new Uint8Array(capacity);
    this.#mask = capacity - 1;
  }

  add(source: Uint8Array, at: number): void {
    const keys = this.#keys;
    let slot = ((source[at] << 16) | (source[at + 1] << 8) | source[at + 2]) & this.#mask;
    for (;; slot = (slot + 1) & this.#mask) {
      if (!this.#used[slot]) break;
      const k = slot * 20;
      let same = true;
      for (let b = 0; b < 20; b++) {
        if (keys[k + b] !== source[at + b]) {
          same = false;
          break;
        }
      }
      if (same) return;
    }
    keys.set(source.subarray(at, at + 20), slot * 20);
    this.#used[slot] = 1;
    if (++this.size * 2 > this.#used.length) this.#grow();
  }

  addHex(oid: string): void {
    this.add(fromHex(oid), 0);
  }

  /** Hands back the set's tables (see releaseBytes): it holds nothing after. */
  release(): void {
    releaseBytes(this.#keys, this.#used);
    this.size = 0;
  }

  #grow(): void {
    const keys = this.#keys;
    const used = this.#used;
    this.#keys = new Uint8Array(keys.length * 2);
    this.#used = new Uint8Array(used.length * 2);
    this.#mask = this.#used.length - 1;
    this.size = 0;
    for (let slot = 0; slot < used.length; slot++) if (used[slot]) this.add(keys, slot * 20);
  }

  /** The names for which `skip` (given the keys and a name's offset in them) is false, as hex. */
  *hexExcept(skip: (keys: Uint8Array, at: number) => boolean): Generator<string> {
    for (let slot = 0; slot < this.#used.length; slot++) {
      if (this.#used[slot] && !skip(this.#keys, slot * 20)) yield toHex(this.#keys, slot * 20, slot * 20 + 20);
    }
  }
}

/** The pack's entries, one slot of each array per object in pack order (no object per entry). */
interface Entries {
  readonly count: number;
  readonly offsets: Float64Array;
  /** Bytes of each entry's header (type, size, delta base): its zlib data starts after them. */
  readonly headerBytes: Uint8Array;
  readonly sizes: Float64Array;
  /** 1-4 for a whole object, OFS_DELTA or REF_DELTA. */
  readonly codes: Uint8Array;
  /** An OFS_DELTA's base entry; -1 otherwise. */
  readonly bases: Int32Array;
  /** A REF_DELTA's base object, by entry. */
  readonly refBases: Map<number, string>;
  /** The resolved type (1-4), 0 while unknown. */
  readonly types: Uint8Array;
  /** Each object's name, 20 bytes an entry. */
  readonly oids: Uint8Array;
  readonly crcs: Uint32Array;
  /** Where a decoded copy is in the ring, -1 for none. */
  readonly cached: Float64Array;
}

interface Indexed {
  readonly entries: Entries;
  /** What the pack's trees, commits and tags name. */
  readonly named: OidSet;
  readonly parents: Map<string, readonly string[]>;
}

const headerScratch = new Uint8Array(32);
const TYPE_BYTES: Record<number, Uint8Array> = Object.fromEntries(
  Object.entries(TYPES).map(([code, name]) => [code, new TextEncoder().encode(`${name} `)]),
);

/** git's object header (`blob 123\0`, as objects.ts's objectHeader), in a reused buffer. */
function headerOf(typeCode: number, length: number): Uint8Array {
  const type = TYPE_BYTES[typeCode];
  headerScratch.set(type);
  let p = type.length;
  const digits = String(length);
  for (let k = 0; k < digits.length; k++) headerScratch[p++] = digits.charCodeAt(k);
  headerScratch[p++] = 0;
  return headerScratch.subarray(0, p);
}

/** The entry starting at `offset` (offsets ascend), or -1. */
function entryAt(offsets: Float64Array, count: number, offset: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const value = offsets[mid];
    if (value === offset) return mid;
    if (value < offset) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

export async function receivePack(
  chunks: AsyncIterable<Uint8Array>,
  objectsDir: string,
  options: ReceiveOptions,
): Promise<IndexedPack | null> {
  const packDir = `${objectsDir}/pack`;
  await Deno.mkdir(packDir, { recursive: true });
  const id = crypto.randomUUID().slice(0, 8);
  const tmpPack = `${packDir}/tmp_pack_${id}`;
  const tmpIdx = `${packDir}/tmp_idx_${id}`;
  // Each temporary file is held under an flock until it is renamed or removed: a pterm that dies
  // (kill -9) lets go of it, and the next fetch knows the file for a dead one's (leftovers.ts).
  const held: Deno.FsFile[] = [];
  try {
    held.push(createHeld(tmpPack));
    const { size, computed, trailer } = await spool(chunks, held[0], options);
    if (computed !== trailer) throw corruptPack("its checksum does not match its content");
    const file = await Deno.open(tmpPack, { read: true });
    let indexed: Indexed;
    const reader = new PackReader(file, size);
    try {
      indexed = indexEntries(reader, options, packDir);
    } finally {
      reader.release();
      file.close();
    }
    const { entries } = indexed;
    if (entries.count === 0) {
      await Deno.remove(tmpPack);
      return null;
    }
    const { idx, sorted } = serializeIndex(entries, fromHex(trailer));
    // The entries' arrays are done with: handed back before the checkout that follows a clone.
    releaseBytes(
      entries.offsets,
      entries.headerBytes,
      entries.sizes,
      entries.codes,
      entries.bases,
      entries.types,
      entries.oids,
      entries.crcs,
      entries.cached,
    );
    const idxFile = createHeld(tmpIdx);
    held.push(idxFile);
    let written = 0;
    while (written < idx.length) written += idxFile.writeSync(idx.subarray(written));
    const name = `pack-${trailer}`;
    await Deno.chmod(tmpPack, 0o444);
    await Deno.chmod(tmpIdx, 0o444);
    await Deno.rename(tmpPack, `${packDir}/${name}.pack`);
    await Deno.rename(tmpIdx, `${packDir}/${name}.idx`);
    // What the connectivity check needs, and nothing more.
    const { named, parents } = indexed;
    return {
      name,
      objects: entries.count,
      bytes: size,
      links: {
        has: (oid) => findSorted(sorted, fromHex(oid)),
        named: () => named.hexExcept((keys, at) => findSorted(sorted, keys, at)),
        parents,
        release: () => {
          named.release();
          releaseBytes(idx);
        },
      },
    };
  } catch (error) {
    await Deno.remove(tmpPack).catch(() => {});
    await Deno.remove(tmpIdx).catch(() => {});
    throw error;
  } finally {
    for (const file of held) file.close();
  }
}

/** Whether the name at `key[at]` is among `sorted` (names, 20 bytes each, ascending). */
function findSorted(sorted: Uint8Array, key: Uint8Array, at = 0): boolean {
  let lo = 0;
  let hi = sorted.length / 20;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    let c = 0;
    for (let b = 0; b < 20 && c === 0; b++) c = sorted[mid * 20 + b] - key[at + b];
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

/**
 * Pass one reads every entry's header and inflates it (which also finds where it ends): whole
 * objects are hashed and checked at once, and so is every delta whose base is still in the ring.
 * Pass two resolves the rest (bases that left the ring, REF_DELTA bases that came later) by
 * walking down each one's chain to something decoded and applying the deltas back up.
 */
function indexEntries(
  reader: PackReader,
  options: ReceiveOptions,
  /** Where a large delta base may be spilled (see SpilledBase): the pack's own folder. */
  spillDir: string,
): Indexed {
  const sha1 = new Sha1();
  const head = reader.bytes(0, 12);
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (head.length < 12 || view.getUint32(0) !== 0x5041434b) throw corruptPack("it does not start with PACK");
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) throw corruptPack(`version ${version}`);
  const count = view.getUint32(8);
  const dataEnd = reader.size - 20;
  // Every entry takes at least a header byte and a zlib stream of 8: a larger count is a lie
  // (and would size the arrays below).
  if (count * 9 > dataEnd - 12) throw corruptPack("it holds fewer objects than its header says");
  const entries: Entries = {
    count,
    offsets: new Float64Array(count),
    headerBytes: new Uint8Array(count),
    sizes: new Float64Array(count),
    codes: new Uint8Array(count),
    bases: new Int32Array(count).fill(-1),
    refBases: new Map(),
    types: new Uint8Array(count),
    oids: new Uint8Array(count * 20),
    crcs: new Uint32Array(count),
    cached: new Float64Array(count).fill(-1),
  };
  const { offsets, headerBytes, sizes, codes, bases, refBases, types, oids, crcs, cached } = entries;
  const ring = new DecodedRing(options.cacheBytes ?? RING_BYTES);
  /** Each object's size once decoded (a delta entry's own size is its delta's). */
  const decodedSizes = new Float64Array(count);
  let deltaScratch = new Uint8Array(64 * 1024);

  /** The bytes the last inflateEntry read, from its entry's zlib data on (for its CRC); null when it read them a window at a time. */
  let lastInput: Uint8Array | null = null;
  /** Inflates entry `i`'s data into `out` at `outAt`; returns where its zlib stream ends in the pack. */
  const inflateEntry = (i: number, out: Uint8Array, outAt: number, sequential: boolean): number => {
    const at = offsets[i] + headerBytes[i];
    const size = sizes[i];
    let length = size + (size >> 10) + 64;
    if (length > WINDOW_BYTES) {
      // A large object (a large delta base) is read through the window a piece at a time: its
      // compressed bytes are never held whole beside it.
      const piece = sequential ? WINDOW_BYTES : RANDOM_WINDOW_BYTES;
      lastInput = null;
      return at + inflating(() =>
        inflateIntoStreaming(
          (offset) => reader.bytes(at + offset, Math.max(0, Math.min(piece, dataEnd - at - offset)), sequential),
          out,
          outAt,
          size,
        )
      );
    }
    for (;;) {
      // An object larger than the window is read on its own (the window keeps its size).
      const input = reader.bytes(at, Math.min(length, dataEnd - at), sequential && length <= WINDOW_BYTES);
      try {
        const end = at + inflateInto(input, 0, out, outAt, size);
        lastInput = input;
        return end;
      } catch (error) {
        const early = (error as Error).message === INPUT_ENDED_EARLY;
        if (!early || at + input.length >= dataEnd) throw corruptPack("an object cannot be inflated");
      }
      length *= 2;
    }
  };
  /** Room for an object of `size` bytes: in the ring when it fits there, else its own buffer. */
  const place = (size: number): { out: Uint8Array; at: number; ringAt: number } => {
    if (size > ring.largest) return { out: new Uint8Array(size), at: 0, ringAt: -1 };
    const ringAt = ring.reserve(size);
    return { out: ring.view(ringAt, size), at: 0, ringAt };
  };
  /** The output buffer of streamed objects (see streamBlob). */
  let streamBuffer: Uint8Array | null = null;
  /**
   * Entry `i`, a whole blob too large for the ring, inflated and hashed piece by piece (never whole
   * in memory, as git's index-pack does for blobs past core.bigFileThreshold); returns where its
   * zlib stream ends. Nothing is cached: a delta on it decodes it again, whole (pass two).
   */
  const streamBlob = (i: number): number => {
    const at = offsets[i] + headerBytes[i];
    const size = sizes[i];
    const buffer = streamBuffer ??= new Uint8Array(STREAM_BUFFER_BYTES);
    sha1.reset().update(headerOf(BLOB, size));
    const end = at + inflating(() =>
      inflateStreaming(
        (offset) => reader.bytes(at + offset, Math.max(0, Math.min(WINDOW_BYTES, dataEnd - at - offset))),
        size,
        (chunk) => {
          sha1.update(chunk);
          options.signal?.throwIfAborted();
        },
        buffer,
      )
    );
    sha1.digestInto(oids, i * 20);
    types[i] = BLOB;
    decodedSizes[i] = size;
    cached[i] = -1;
    resolved++;
    return end;
  };
  /** The CRC-32 of the pack's bytes `[from, to)`, continuing from `crc`, read through the window. */
  const crcOfRange = (from: number, to: number, crc: number): number => {
    for (let at = from; at < to;) {
      const piece = reader.bytes(at, Math.min(WINDOW_BYTES, to - at));
      crc = crc32(piece, crc);
      at += piece.length;
    }
    return crc;
  };
  /**
   * Entry `i`, a delta whose result is a blob too large for the ring, applied to `base` piece by
   * piece into the hash (never whole in memory, as streamBlob); nothing is cached.
   */
  const streamDelta = (i: number, base: Uint8Array | SpilledBase, delta: Uint8Array): void => {
    streamBuffer ??= new Uint8Array(STREAM_BUFFER_BYTES);
    const size = deltaResultSize(delta);
    sha1.reset().update(headerOf(BLOB, size));
    applyDeltaStreaming(base, delta, (chunk) => {
      sha1.update(chunk);
      options.signal?.throwIfAborted();
    }, streamBuffer);
    sha1.digestInto(oids, i * 20);
    types[i] = BLOB;
    decodedSizes[i] = size;
    cached[i] = -1;
    resolved++;
  };
  /** Whether entry `i`'s delta (in `delta`), on a base of type `baseType`, makes a blob streamDelta takes. */
  const streamsDelta = (baseType: number, delta: Uint8Array): boolean =>
    baseType === BLOB && deltaResultSize(delta) > ring.largest;
  /** Entry `i`'s delta data, in the scratch buffer. */
  const inflateDelta = (i: number, sequential: boolean): { delta: Uint8Array; end: number } => {
    const size = sizes[i];
    if (size > deltaScratch.length) deltaScratch = new Uint8Array(Math.max(size, deltaScratch.length * 2));
    const end = inflateEntry(i, deltaScratch, 0, sequential);
    return { delta: deltaScratch.subarray(0, size), end };
  };

  // Sized once for as many names as the pack has objects (what its trees and commits name, as a
  // rule): growing by doubling left each smaller table to the collector. Past a million names it grows.
  const named = new OidSet(2 ** Math.min(20, Math.max(12, Math.ceil(Math.log2(2 * count + 2)))));
  const parents = new Map<string, readonly string[]>();
  let resolved = 0;
  /** Entry `i`'s object is known: its name, its checks, and where it is cached. */
  const settle = (i: number, typeCode: number, content: Uint8Array, ringAt: number) => {
    types[i] = typeCode;
    const type = TYPES[typeCode];
    sha1.reset().update(headerOf(typeCode, content.length)).update(content).digestInto(oids, i * 20);
    if (type === "tree") scanTree(content, i, oids, named);
    else if (type === "commit") {
      const commit = parseCommit(content);
      named.addHex(commit.tree);
      parents.set(toHex(oids, i * 20, i * 20 + 20), commit.parents);
    } else if (type === "tag") named.addHex(parseTag(content).object);
    cached[i] = ringAt;
    if (++resolved % 256 === 0) options.signal?.throwIfAborted();
  };
  /** The decoded object of entry `i`, if the ring still holds it. */
  const recall = (i: number): Uint8Array | null =>
    cached[i] >= 0 && ring.holds(cached[i]) ? ring.view(cached[i], decodedSizes[i]) : null;
  /**
   * Applies entry `i`'s delta (in `delta`) to `base` (decoded, possibly a view of the ring): the
   * result goes to the ring, and a base the reservation would overwrite is copied out first.
   */
  const applyTo = (i: number, base: Uint8Array, baseRingAt: number, delta: Uint8Array) => {
    const size = deltaResultSize(delta);
    const room = place(size);
    const safeBase = baseRingAt >= 0 && !ring.holds(baseRingAt) ? base.slice() : base;
    applyDeltaInto(safeBase, delta, room.out, room.at);
    decodedSizes[i] = size;
    return { content: room.out.subarray(room.at, room.at + size), ringAt: room.ringAt };
  };

  let at = 12;
  for (let i = 0; i < count; i++) {
    if (i % 256 === 0) {
      options.signal?.throwIfAborted();
      options.onProgress?.("indexing", i, count);
    }
    if (at >= dataEnd) throw corruptPack("it holds fewer objects than its header says");
    const raw = reader.bytes(at, 32);
    let p = 0;
    let byte = raw[p++];
    const code = (byte >> 4) & 7;
    let size = byte & 15;
    let shift = 4;
    while (byte & 0x80) {
      if (p >= raw.length) throw corruptPack("an object header runs past the pack");
      byte = raw[p++];
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    offsets[i] = at;
    codes[i] = code;
    sizes[i] = size;
    if (code === OFS_DELTA) {
      byte = raw[p++];
      let back = byte & 0x7f;
      while (byte & 0x80) {
        byte = raw[p++];
        back = (back + 1) * 128 + (byte & 0x7f);
      }
      const base = back > 0 && back <= at ? entryAt(offsets, i, at - back) : -1;
      if (base < 0) throw corruptPack("a delta's base is not an object of the pack");
      bases[i] = base;
    } else if (code === REF_DELTA) {
      refBases.set(i, toHex(raw, p, p + 20));
      p += 20;
    } else if (!TYPES[code]) {
      throw corruptPack(`an object has the unknown type ${code}`);
    }
    headerBytes[i] = p;
    // Now, before inflating reads on: `raw` is a view of the window, which a read may refill.
    const headerCrc = crc32(raw.subarray(0, p));
    let end: number;
    if (code === BLOB && size > ring.largest) {
      end = streamBlob(i);
      crcs[i] = crcOfRange(at + p, end, headerCrc);
      at = end;
      continue;
    } else if (code !== OFS_DELTA && code !== REF_DELTA) {
      const room = place(size);
      end = inflateEntry(i, room.out, room.at, true);
      decodedSizes[i] = size;
      settle(i, code, room.out.subarray(room.at, room.at + size), room.ringAt);
    } else {
      const inflated = inflateDelta(i, true);
      end = inflated.end;
      const base = bases[i];
      const decoded = base >= 0 && types[base] !== 0 ? recall(base) : null;
      if (decoded && streamsDelta(types[base], inflated.delta)) streamDelta(i, decoded, inflated.delta);
      else if (decoded) {
        const result = applyTo(i, decoded, cached[base], inflated.delta);
        settle(i, types[base], result.content, result.ringAt);
      }
    }
    // The entry's bytes: its header (in `raw`), then its zlib data (what the inflater read).
    crcs[i] = lastInput ? crc32(lastInput.subarray(0, end - at - p), headerCrc) : crcOfRange(at + p, end, headerCrc);
    at = end;
  }
  if (at !== dataEnd) throw corruptPack("it has bytes after its last object");

  // Pass two. REF_DELTA bases are found by name among the objects resolved so far.
  let byName: Map<string, number> | null = null;
  const baseOf = (i: number): number => {
    if (codes[i] === OFS_DELTA) return bases[i];
    if (!byName) {
      byName = new Map();
      for (let k = 0; k < count; k++) if (types[k] !== 0) byName.set(toHex(oids, k * 20, k * 20 + 20), k);
    }
    return byName.get(refBases.get(i)!) ?? -1;
  };
  /** The large base last spilled (kept for the next delta on it), closed when pass two ends. */
  let spill: { entry: number; base: SpilledBase } | null = null;
  /**
   * Entry `target`, a delta directly on `baseEntry` — a whole blob larger than SPILL_BASE_BYTES,
   * not in the ring — streamed from the base spilled to a file, neither held whole; false (nothing
   * done) when its result is not a large blob or no file can be made: it is resolved in memory then.
   */
  const streamFromSpilled = (target: number, baseEntry: number): boolean => {
    const { delta } = inflateDelta(target, false);
    if (!streamsDelta(BLOB, delta)) return false;
    if (spill?.entry !== baseEntry) {
      spill?.base.close();
      spill = null;
      const at = offsets[baseEntry] + headerBytes[baseEntry];
      const size = sizes[baseEntry];
      const buffer = streamBuffer ??= new Uint8Array(STREAM_BUFFER_BYTES);
      const base = SpilledBase.create(spillDir, size, (write) => {
        inflating(() =>
          inflateStreaming(
            (offset) =>
              reader.bytes(at + offset, Math.max(0, Math.min(RANDOM_WINDOW_BYTES, dataEnd - at - offset)), false),
            size,
            write,
            buffer,
          )
        );
      });
      if (!base) return false;
      spill = { entry: baseEntry, base };
    }
    streamDelta(target, spill.base, delta);
    byName?.set(toHex(oids, target * 20, target * 20 + 20), target);
    return true;
  };
  const resolve = (target: number): boolean => {
    const chain: number[] = [];
    let current = target;
    let base: Uint8Array | null = null;
    let baseRingAt = -1;
    for (;;) {
      if (types[current] !== 0) {
        base = recall(current);
        if (base) {
          baseRingAt = cached[current];
          break;
        }
        if (codes[current] !== OFS_DELTA && codes[current] !== REF_DELTA) {
          const large = codes[current] === BLOB && sizes[current] > SPILL_BASE_BYTES;
          if (large && chain.length === 1 && streamFromSpilled(chain[0], current)) return true;
          // Too large for the ring, it is decoded for this chain only (nothing keeps it): into
          // the buffer the pack reader shares for such bases.
          const room = sizes[current] > ring.largest
            ? { out: largeBaseBuffer(sizes[current]), at: 0, ringAt: -1 }
            : place(sizes[current]);
          inflateEntry(current, room.out, room.at, false);
          base = room.out.subarray(room.at, room.at + sizes[current]);
          baseRingAt = room.ringAt;
          cached[current] = room.ringAt;
          decodedSizes[current] = sizes[current];
          break;
        }
      }
      chain.push(current);
      if (chain.length > MAX_DELTA_CHAIN) throw corruptPack(`a delta chain is longer than git's ${MAX_DELTA_CHAIN}`);
      const next = baseOf(current);
      if (next < 0) return false; // a REF_DELTA base not known (yet)
      current = next;
    }
    let type = types[current];
    for (let k = chain.length - 1; k >= 0; k--) {
      const link = chain[k];
      const { delta } = inflateDelta(link, false);
      if (k === 0 && types[link] === 0 && streamsDelta(type, delta)) {
        // The chain's last result is needed by nothing after it: hashed as it is made.
        streamDelta(link, base, delta);
        byName?.set(toHex(oids, link * 20, link * 20 + 20), link);
        return true;
      }
      const result = applyTo(link, base, baseRingAt, delta);
      if (types[link] === 0) {
        settle(link, type, result.content, result.ringAt);
        byName?.set(toHex(oids, link * 20, link * 20 + 20), link);
      } else cached[link] = result.ringAt;
      type = types[link];
      base = result.content;
      baseRingAt = result.ringAt;
    }
    return true;
  };
  let pending: number[] = [];
  for (let i = 0; i < count; i++) if (types[i] === 0) pending.push(i);
  try {
    while (pending.length > 0) {
      const before = pending.length;
      pending = pending.filter((i) => types[i] === 0 && !resolve(i));
      if (pending.length === before) break;
    }
  } finally {
    (spill as { base: SpilledBase } | null)?.base.close();
  }
  if (pending.length > 0) {
    const unresolved = pending[0];
    throw corruptPack(
      codes[unresolved] === REF_DELTA
        ? `a delta's base ${refBases.get(unresolved)} is not in the pack (a thin pack, which pterm does not ask for)`
        : "a delta's base could not be resolved",
    );
  }
  options.onProgress?.("indexing", count, count);
  // The working buffers are done with (see releaseBytes); the entries go on to the .idx.
  ring.release();
  releaseBytes(decodedSizes, deltaScratch, streamBuffer);
  return { entries, named, parents };
}

/**
 * A tree's entries, checked as parseTree checks them (every name through verify_path) but without
 * decoding the plainly safe names — ASCII, not starting with `.`, without `/`, `\\` or `~` —
 * which cannot be unsafe; the others are decoded and checked by verifyTreeEntryName. Adds every
 * entry's object except submodule commits to `named`.
 */
function scanTree(content: Uint8Array, entry: number, oids: Uint8Array, named: OidSet): void {
  const label = () => `tree ${toHex(oids, entry * 20, entry * 20 + 20)}`;
  let i = 0;
  while (i < content.length) {
    const space = content.indexOf(0x20, i);
    const nul = space < 0 ? -1 : content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw corruptPack(`${label()} is truncated`);
    let plain = nul > space + 1 && content[space + 1] !== 0x2e;
    for (let k = space + 1; plain && k < nul; k++) {
      const b = content[k];
      if (b >= 0x80 || b === 0x2f || b === 0x5c || b === 0x7e) plain = false;
    }
    if (!plain) verifyTreeEntryName(decodeName(content.subarray(space + 1, nul)), label());
    // Mode 160000 (a gitlink): six bytes "160000".
    const gitlink = space - i === 6 && content[i] === 0x31 && content[i + 1] === 0x36;
    if (!gitlink) named.add(content, nul + 1);
    i = nul + 21;
  }
}

/** gitformat-pack: `.idx` version 2; also returns the names sorted (20 bytes each). */
function serializeIndex(entries: Entries, packChecksum: Uint8Array): { idx: Uint8Array; sorted: Uint8Array } {
  const { oids, count: n } = entries;
  // Sorted by each name's first four bytes, then by the whole name where those are equal.
  const keys = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = ((oids[i * 20] << 24) | (oids[i * 20 + 1] << 16) | (oids[i * 20 + 2] << 8) | oids[i * 20 + 3]) >>> 0;
  }
  const compareNames = (a: number, b: number): number => {
    for (let k = 0; k < 20; k++) {
      const d = oids[a * 20 + k] - oids[b * 20 + k];
      if (d !== 0) return d;
    }
    return 0;
  };
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => (keys[a] !== keys[b] ? (keys[a] < keys[b] ? -1 : 1) : compareNames(a, b)));
  for (let i = 1; i < n; i++) {
    if (compareNames(order[i], order[i - 1]) === 0) {
      throw corruptPack(`it holds ${toHex(oids, order[i] * 20, order[i] * 20 + 20)} twice`);
    }
  }
  let large = 0;
  for (let i = 0; i < n; i++) if (entries.offsets[i] >= 0x80000000) large++;
  const out = new Uint8Array(8 + 1024 + n * 20 + n * 4 + n * 4 + large * 8 + 40);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xff744f63);
  view.setUint32(4, 2);
  const fanout = new Uint32Array(256);
  for (let i = 0; i < n; i++) fanout[oids[i * 20]]++;
  let running = 0;
  for (let b = 0; b < 256; b++) {
    running += fanout[b];
    view.setUint32(8 + b * 4, running);
  }
  let p = 8 + 1024;
  const namesAt = p;
  for (const i of order) {
    out.set(oids.subarray(i * 20, i * 20 + 20), p);
    p += 20;
  }
  for (const i of order) {
    view.setUint32(p, entries.crcs[i]);
    p += 4;
  }
  let largeAt = p + n * 4;
  let largeIndex = 0;
  for (const i of order) {
    const offset = entries.offsets[i];
    if (offset < 0x80000000) view.setUint32(p, offset);
    else {
      view.setUint32(p, (0x80000000 | largeIndex++) >>> 0);
      view.setUint32(largeAt, Math.floor(offset / 2 ** 32));
      view.setUint32(largeAt + 4, offset >>> 0);
      largeAt += 8;
    }
    p += 4;
  }
  p = largeAt;
  out.set(packChecksum, p);
  p += 20;
  new Sha1().update(out, 0, p).digestInto(out, p);
  return { idx: out, sorted: out.subarray(namesAt, namesAt + n * 20) };
}
