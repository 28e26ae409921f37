/**
 * git's `index-pack` for a pack arriving from a remote: the pack is streamed to a temporary file
 * under objects/pack (never held in memory), its trailing checksum verified, every object
 * inflated and hashed (a delta after applying it to its base), every tree checked as git's fsck
 * and verify_path do, and an `.idx` version 2 written beside it. Only then are both renamed to
 * `pack-<checksum>.{pack,idx}` — the `.idx` last, since readers find packs by their index — so an
 * interrupted transfer leaves at most a `tmp_pack_*` file that git itself ignores.
 */

import { PtermError } from "../../../core/errors.ts";
import { applyDelta } from "../lib/pack.ts";
import { fromHex, toHex } from "../lib/bytes.ts";
import { inflateZlibStream } from "../lib/inflate.ts";
import { objectHeader, type ObjectType, parseCommit, parseTag } from "../lib/objects.ts";
import { decodeName } from "../lib/bytes.ts";
import { verifyTreeEntryName } from "../lib/verify_path.ts";
import { nodeCrypto, nodeZlib } from "./node.ts";

const TYPES: Record<number, ObjectType> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** git's own limit on delta chains (pack.depth is capped at 4095). */
const MAX_DELTA_CHAIN = 4095;
/** Decoded objects kept for delta bases while indexing; bounds the memory a pack's indexing takes. */
const DECODED_CACHE_BYTES = 32 * 1024 * 1024;
/** Objects up to this size inflate in JavaScript (inflate.ts), larger ones with Node's zlib. */
const SMALL_INFLATE = 64 * 1024;

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
  readonly present: ReadonlySet<string>;
  /** Trees, blobs and tag targets named by the pack's objects. */
  readonly named: ReadonlySet<string>;
  /** Each commit's parents (kept apart: a shallow boundary commit's parents are legitimately absent). */
  readonly parents: ReadonlyMap<string, readonly string[]>;
}

export interface ReceiveOptions {
  /** The pack is refused (InputTooLarge) once it grows past this many bytes. */
  readonly maxBytes: number;
  readonly signal?: AbortSignal;
  /** Called as bytes arrive (`received`) and as objects are indexed (`indexed` of `total`). */
  readonly onProgress?: (stage: "receiving" | "indexing", done: number, total?: number) => void;
}

function corruptPack(message: string): PtermError {
  return new PtermError(
    "CorruptInput",
    `the remote sent a damaged pack (${message}); nothing was stored and no ref was changed. Retry; if it ` +
      "persists the remote repository itself may be damaged.",
  );
}

/** Writes the stream to `path`, returning its size and the SHA-1 of all but its last 20 bytes (the pack trailer). */
async function spool(
  chunks: AsyncIterable<Uint8Array>,
  path: string,
  options: ReceiveOptions,
): Promise<{ size: number; computed: string; trailer: string }> {
  const { createHash } = await nodeCrypto();
  const hash = createHash("sha1");
  const file = await Deno.open(path, { write: true, createNew: true, mode: 0o644 });
  let size = 0;
  /** The last up to 20 bytes seen, not yet hashed: they may be the trailer. */
  let tail = new Uint8Array(0);
  try {
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
      const joined = new Uint8Array(tail.length + chunk.length);
      joined.set(tail);
      joined.set(chunk, tail.length);
      const keep = Math.min(20, joined.length);
      hash.update(joined.subarray(0, joined.length - keep));
      tail = joined.slice(joined.length - keep);
      let written = 0;
      while (written < chunk.length) written += await file.write(chunk.subarray(written));
      options.onProgress?.("receiving", size);
    }
  } finally {
    file.close();
  }
  if (tail.length < 20) throw corruptPack("it ended before its checksum");
  return { size, computed: hash.digest("hex"), trailer: toHex(tail) };
}

/** Positioned reads through one moving window, so a sequential walk costs one read per few MiB. */
class PackReader {
  readonly size: number;
  readonly #file: Deno.FsFile;
  #window = new Uint8Array(0);
  #start = 0;

  constructor(file: Deno.FsFile, size: number) {
    this.#file = file;
    this.size = size;
  }

  /**
   * Up to `length` bytes from `offset` (fewer at the end of the file). A sequential walk moves the
   * window forward; a random read (`sequential` false: a delta base far back) reads just its bytes
   * and keeps the window where it is.
   */
  bytes(offset: number, length: number, sequential = true): Uint8Array {
    const end = Math.min(this.size, offset + length);
    if (offset >= this.#start && end <= this.#start + this.#window.length) {
      return this.#window.subarray(offset - this.#start, end - this.#start);
    }
    if (!sequential) return this.#readAt(offset, end - offset);
    const want = Math.min(this.size - offset, Math.max(length, 4 * 1024 * 1024));
    const buffer = new Uint8Array(want);
    this.#file.seekSync(offset, Deno.SeekMode.Start);
    let got = 0;
    while (got < want) {
      const n = this.#file.readSync(buffer.subarray(got));
      if (n === null || n === 0) break;
      got += n;
    }
    this.#window = buffer.subarray(0, got);
    this.#start = offset;
    return this.#window.subarray(0, Math.min(got, end - offset));
  }

  #readAt(offset: number, length: number): Uint8Array {
    const buffer = new Uint8Array(length);
    this.#file.seekSync(offset, Deno.SeekMode.Start);
    let got = 0;
    while (got < length) {
      const n = this.#file.readSync(buffer.subarray(got));
      if (n === null || n === 0) break;
      got += n;
    }
    return buffer.subarray(0, got);
  }
}

interface Entry {
  readonly offset: number;
  /** 1-4 for a whole object, OFS_DELTA or REF_DELTA. */
  readonly code: number;
  readonly size: number;
  /** Where the zlib data starts. */
  readonly dataAt: number;
  /** Where the next object starts (known after inflating). */
  end: number;
  readonly baseOffset: number;
  readonly baseOid: string;
  oid: string;
  type: ObjectType | null;
  crc: number;
}

export async function receivePack(
  chunks: AsyncIterable<Uint8Array>,
  objectsDir: string,
  options: ReceiveOptions,
): Promise<IndexedPack | null> {
  const packDir = `${objectsDir}/pack`;
  await Deno.mkdir(packDir, { recursive: true });
  const tmpPack = `${packDir}/tmp_pack_${crypto.randomUUID().slice(0, 8)}`;
  const tmpIdx = `${packDir}/tmp_idx_${crypto.randomUUID().slice(0, 8)}`;
  try {
    const { size, computed, trailer } = await spool(chunks, tmpPack, options);
    if (computed !== trailer) throw corruptPack("its checksum does not match its content");
    const file = await Deno.open(tmpPack, { read: true });
    let entries: Entry[];
    let links: Omit<PackLinks, "present">;
    try {
      ({ entries, links } = await indexEntries(new PackReader(file, size), options));
    } finally {
      file.close();
    }
    if (entries.length === 0) {
      await Deno.remove(tmpPack);
      return null;
    }
    await Deno.writeFile(tmpIdx, await serializeIndex(entries, fromHex(trailer)), { mode: 0o644 });
    const name = `pack-${trailer}`;
    await Deno.chmod(tmpPack, 0o444);
    await Deno.chmod(tmpIdx, 0o444);
    await Deno.rename(tmpPack, `${packDir}/${name}.pack`);
    await Deno.rename(tmpIdx, `${packDir}/${name}.idx`);
    return {
      name,
      objects: entries.length,
      bytes: size,
      links: { present: new Set(entries.map((e) => e.oid)), ...links },
    };
  } catch (error) {
    await Deno.remove(tmpPack).catch(() => {});
    await Deno.remove(tmpIdx).catch(() => {});
    throw error;
  }
}

/** Pass one reads every entry's header and inflates it (to find its end); pass two resolves deltas. */
async function indexEntries(
  reader: PackReader,
  options: ReceiveOptions,
): Promise<{ entries: Entry[]; links: Omit<PackLinks, "present"> }> {
  const zlib = await nodeZlib();
  const { createHash } = await nodeCrypto();
  const head = reader.bytes(0, 12);
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (head.length < 12 || view.getUint32(0) !== 0x5041434b) throw corruptPack("it does not start with PACK");
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) throw corruptPack(`version ${version}`);
  const count = view.getUint32(8);
  const dataEnd = reader.size - 20;
  const entries: Entry[] = [];

  /** Inflates the zlib stream at `at` whose output must be `size` bytes; returns the output and where the stream ends. */
  const inflateAt = (at: number, size: number, sequential = true): { content: Uint8Array; end: number } => {
    let length = size + (size >> 10) + 64;
    for (;;) {
      const input = reader.bytes(at, Math.min(length, dataEnd - at), sequential);
      // Small objects (most commits, trees and deltas) inflate in JavaScript: a Node zlib call makes a
      // native stream each time, slower for them and freed only when the garbage collector runs.
      if (size <= SMALL_INFLATE) {
        let inflated: { data: Uint8Array; end: number } | null = null;
        try {
          inflated = inflateZlibStream(input, size);
        } catch (error) {
          const early = (error as Error).message === "inflate: input ended early";
          if (!early || at + input.length >= dataEnd) throw corruptPack("an object cannot be inflated");
        }
        if (inflated) {
          if (inflated.data.length !== size) throw corruptPack("an object's size differs from its header");
          return { content: inflated.data, end: at + inflated.end };
        }
        length *= 2;
        continue;
      }
      try {
        const { buffer, engine } = zlib.inflateSync(input, { info: true }) as unknown as {
          buffer: Uint8Array;
          engine: { bytesWritten: number };
        };
        if (buffer.length !== size) throw corruptPack("an object's size differs from its header");
        return {
          content: new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length),
          end: at + engine.bytesWritten,
        };
      } catch (error) {
        if (error instanceof PtermError) throw error;
        const truncated = (error as { code?: string }).code === "Z_BUF_ERROR";
        if (!truncated || at + input.length >= dataEnd) throw corruptPack("an object cannot be inflated");
        length *= 2;
      }
    }
  };
  const hashObject = (type: ObjectType, content: Uint8Array): string =>
    createHash("sha1").update(objectHeader(type, content.length)).update(content).digest("hex");
  const named = new Set<string>();
  const parents = new Map<string, readonly string[]>();
  /** fsck-level checks (a tree's names, as verify_path) and the links the connectivity check needs. */
  const checkObject = (type: ObjectType, content: Uint8Array, oid: string) => {
    if (type === "tree") scanTree(content, oid, named);
    else if (type === "commit") {
      const commit = parseCommit(content);
      named.add(commit.tree);
      parents.set(oid, commit.parents);
    } else if (type === "tag") named.add(parseTag(content).object);
  };

  const byOffset = new Map<number, Entry>();
  const byOid = new Map<string, Entry>();
  /** Recently decoded objects by offset, within a byte budget: delta chains share their bases. */
  const cache = new Map<number, { type: ObjectType; content: Uint8Array }>();
  let cached = 0;
  const remember = (offset: number, object: { type: ObjectType; content: Uint8Array }) => {
    if (object.content.length > DECODED_CACHE_BYTES / 4) return;
    cache.set(offset, object);
    cached += object.content.length;
    for (const [key, old] of cache) {
      if (cached <= DECODED_CACHE_BYTES) break;
      cache.delete(key);
      cached -= old.content.length;
    }
  };
  const recall = (offset: number) => {
    const object = cache.get(offset);
    if (object) { // most recently used last
      cache.delete(offset);
      cache.set(offset, object);
    }
    return object;
  };
  let resolved = 0;
  /** An entry's object is known: its name, its checks, and its place in the cache. */
  const settle = (entry: Entry, type: ObjectType, content: Uint8Array) => {
    entry.type = type;
    entry.oid = hashObject(type, content);
    checkObject(type, content, entry.oid);
    byOid.set(entry.oid, entry);
    remember(entry.offset, { type, content });
    if (++resolved % 256 === 0) options.signal?.throwIfAborted();
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
    let baseOffset = -1;
    let baseOid = "";
    if (code === OFS_DELTA) {
      byte = raw[p++];
      let back = byte & 0x7f;
      while (byte & 0x80) {
        byte = raw[p++];
        back = (back + 1) * 128 + (byte & 0x7f);
      }
      if (back <= 0 || back > at) throw corruptPack("a delta points outside the pack");
      baseOffset = at - back;
    } else if (code === REF_DELTA) {
      baseOid = toHex(raw, p, p + 20);
      p += 20;
    } else if (!TYPES[code]) {
      throw corruptPack(`an object has the unknown type ${code}`);
    }
    const entry: Entry = {
      offset: at,
      code,
      size,
      dataAt: at + p,
      end: 0,
      baseOffset,
      baseOid,
      oid: "",
      type: TYPES[code] ?? null,
      crc: 0,
    };
    const { content, end } = inflateAt(entry.dataAt, size);
    entry.end = end;
    byOffset.set(entry.offset, entry);
    if (entry.type) {
      settle(entry, entry.type, content);
    } else {
      // Bases come before their deltas in the packs git writes: most deltas resolve here, from the cache.
      const base = code === OFS_DELTA ? byOffset.get(baseOffset) : byOid.get(baseOid);
      if (code === OFS_DELTA && !base) throw corruptPack("a delta's base is not an object of the pack");
      const cached = base ? recall(base.offset) : undefined;
      if (cached) settle(entry, cached.type, applyDelta(cached.content, content));
    }
    entries.push(entry);
    at = end;
  }
  if (at !== dataEnd) throw corruptPack("it has bytes after its last object");
  for (const entry of entries) entry.crc = zlib.crc32(reader.bytes(entry.offset, entry.end - entry.offset)) >>> 0;

  // Pass two: the deltas whose base had left the cache (or, for REF_DELTA, came later) are resolved
  // by walking down their chain to something decoded, then applying the deltas back up.
  const contentOf = (entry: Entry): { type: ObjectType; content: Uint8Array } | null => {
    const chain: Entry[] = [];
    let current = entry;
    let base: { type: ObjectType; content: Uint8Array } | undefined;
    for (;;) {
      base = recall(current.offset);
      if (base) break;
      if (current.code !== OFS_DELTA && current.code !== REF_DELTA) {
        base = { type: current.type!, content: inflateAt(current.dataAt, current.size, false).content };
        break;
      }
      chain.push(current);
      if (chain.length > MAX_DELTA_CHAIN) throw corruptPack(`a delta chain is longer than git's ${MAX_DELTA_CHAIN}`);
      const next = current.code === OFS_DELTA ? byOffset.get(current.baseOffset) : byOid.get(current.baseOid);
      if (!next) return null; // a REF_DELTA base not known (yet)
      current = next;
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const link = chain[k];
      const content = applyDelta(base.content, inflateAt(link.dataAt, link.size, false).content);
      if (link.oid) remember(link.offset, { type: base.type, content });
      else settle(link, base.type, content);
      base = { type: base.type, content };
    }
    return base;
  };
  for (let pending = entries.filter((e) => !e.oid); pending.length > 0;) {
    const before = pending.length;
    for (const entry of pending) if (!entry.oid) contentOf(entry);
    pending = pending.filter((e) => !e.oid);
    if (pending.length === before) break;
  }
  const unresolved = entries.find((e) => !e.oid);
  if (unresolved) {
    throw corruptPack(
      unresolved.code === REF_DELTA
        ? `a delta's base ${unresolved.baseOid} is not in the pack (a thin pack, which pterm does not ask for)`
        : "a delta's base could not be resolved",
    );
  }
  options.onProgress?.("indexing", count, count);
  return { entries, links: { named, parents } };
}

/**
 * A tree's entries, checked as parseTree checks them (every name through verify_path) but without
 * decoding the plainly safe names — ASCII, not starting with `.`, without `/`, `\\` or `~` —
 * which cannot be unsafe; the others are decoded and checked by verifyTreeEntryName. Adds every
 * entry's object except submodule commits to `named`.
 */
function scanTree(content: Uint8Array, oid: string, named: Set<string>): void {
  let i = 0;
  while (i < content.length) {
    const space = content.indexOf(0x20, i);
    const nul = space < 0 ? -1 : content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw corruptPack(`tree ${oid} is truncated`);
    let plain = nul > space + 1 && content[space + 1] !== 0x2e;
    for (let k = space + 1; plain && k < nul; k++) {
      const b = content[k];
      if (b >= 0x80 || b === 0x2f || b === 0x5c || b === 0x7e) plain = false;
    }
    if (!plain) verifyTreeEntryName(decodeName(content.subarray(space + 1, nul)), `tree ${oid}`);
    // Mode 160000 (a gitlink): six bytes "160000".
    const gitlink = space - i === 6 && content[i] === 0x31 && content[i + 1] === 0x36;
    if (!gitlink) named.add(toHex(content, nul + 1, nul + 21));
    i = nul + 21;
  }
}

/** gitformat-pack: `.idx` version 2. */
async function serializeIndex(entries: Entry[], packChecksum: Uint8Array): Promise<Uint8Array> {
  const { createHash } = await nodeCrypto();
  const sorted = entries.map((e) => ({ name: fromHex(e.oid), entry: e }));
  sorted.sort((a, b) => {
    for (let i = 0; i < 20; i++) if (a.name[i] !== b.name[i]) return a.name[i] - b.name[i];
    return 0;
  });
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].entry.oid === sorted[i - 1].entry.oid) throw corruptPack(`it holds ${sorted[i].entry.oid} twice`);
  }
  const n = sorted.length;
  const large = sorted.filter((s) => s.entry.offset >= 0x80000000).length;
  const out = new Uint8Array(8 + 1024 + n * 20 + n * 4 + n * 4 + large * 8 + 40);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xff744f63);
  view.setUint32(4, 2);
  const fanout = new Uint32Array(256);
  for (const s of sorted) fanout[s.name[0]]++;
  let running = 0;
  for (let b = 0; b < 256; b++) {
    running += fanout[b];
    view.setUint32(8 + b * 4, running);
  }
  let p = 8 + 1024;
  for (const s of sorted) {
    out.set(s.name, p);
    p += 20;
  }
  for (const s of sorted) {
    view.setUint32(p, s.entry.crc);
    p += 4;
  }
  let largeAt = p + n * 4;
  let largeIndex = 0;
  for (const s of sorted) {
    const offset = s.entry.offset;
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
  out.set(createHash("sha1").update(out.subarray(0, p)).digest(), p);
  return out;
}
