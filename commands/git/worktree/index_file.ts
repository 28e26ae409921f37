/**
 * git's index (`.git/index`, Documentation/gitformat-index.txt): versions 2, 3 and 4 are read,
 * 2 or 3 written (3 only when an entry needs extended flags). Stat data is kept so that
 * `status` can skip hashing unchanged files, as git does. The cache-tree extension (`TREE`) is
 * read and written, so a clean index can be compared with HEAD without reading any tree.
 */

import { verifyIndexPath } from "./verify_path.ts";
import { PtermError } from "../../../core/errors.ts";
import { concatBytes } from "../../../core/bytes.ts";
import { comparePaths, decodeName, encodeName, encoder, fromHex, lenientDecoder, toHex } from "../odb/bytes.ts";
import { sha1 } from "../odb/codec.ts";
import { parseConfig } from "../repo/config.ts";
import { resolve } from "../../../core/fs/path.ts";

export const S_IFREG_644 = 0o100644;
export const S_IFREG_755 = 0o100755;
export const S_IFLNK = 0o120000;
export const S_IFGITLINK = 0o160000;

export interface IndexEntry {
  path: string;
  oid: string;
  /** 0o100644, 0o100755, 0o120000 or 0o160000. */
  mode: number;
  /** 0 normally; 1 base, 2 ours, 3 theirs for a conflicted path. */
  stage: number;
  ctimeS: number;
  ctimeNs: number;
  mtimeS: number;
  mtimeNs: number;
  dev: number;
  ino: number;
  uid: number;
  gid: number;
  size: number;
  assumeValid: boolean;
  skipWorktree: boolean;
  intentToAdd: boolean;
}

export interface CacheTreeNode {
  name: string;
  /** Entries covered, or -1 when invalid. */
  entryCount: number;
  oid: string | null;
  children: CacheTreeNode[];
}

export function modeToTreeMode(mode: number): string {
  switch (mode) {
    case S_IFREG_755:
      return "100755";
    case S_IFLNK:
      return "120000";
    case S_IFGITLINK:
      return "160000";
    default:
      return "100644";
  }
}

export function treeModeToMode(mode: string): number {
  switch (mode) {
    case "100755":
      return S_IFREG_755;
    case "120000":
      return S_IFLNK;
    case "160000":
      return S_IFGITLINK;
    default:
      return S_IFREG_644;
  }
}

type StatFields = Pick<
  IndexEntry,
  "ctimeS" | "ctimeNs" | "mtimeS" | "mtimeNs" | "dev" | "ino" | "uid" | "gid" | "size"
>;

/** Stat fields of an index entry from an lstat, truncated to 32 bits as git stores them. */
export function statFields(info: Deno.FileInfo): StatFields {
  return setStatFields({} as StatFields, info);
}

/** Sets the stat fields of `target` from `info` (see statFields) and returns it. */
function setStatFields<T extends StatFields>(target: T, info: Deno.FileInfo): T {
  const mtime = info.mtime?.getTime() ?? 0;
  const ctime = info.ctime?.getTime() ?? mtime;
  target.mtimeS = Math.floor(mtime / 1000) >>> 0;
  target.mtimeNs = (mtime % 1000) * 1_000_000;
  target.ctimeS = Math.floor(ctime / 1000) >>> 0;
  target.ctimeNs = (ctime % 1000) * 1_000_000;
  target.dev = (info.dev ?? 0) >>> 0;
  target.ino = (info.ino ?? 0) >>> 0;
  target.uid = (info.uid ?? 0) >>> 0;
  target.gid = (info.gid ?? 0) >>> 0;
  target.size = info.size >>> 0;
  return target;
}

/** Entry mtime in milliseconds (Deno reports no finer), for racy-git checks. */
export function entryMtimeMs(entry: IndexEntry): number {
  return entry.mtimeS * 1000 + Math.floor(entry.mtimeNs / 1_000_000);
}

/**
 * Whether an lstat still describes the entry. Deno gives mtime in milliseconds and ctime in
 * seconds, so those are compared at that precision (git compares seconds only unless built
 * with USE_NSEC).
 */
export function statMatches(entry: IndexEntry, info: Deno.FileInfo): boolean {
  const mtime = info.mtime?.getTime() ?? 0;
  if (entry.mtimeS !== (Math.floor(mtime / 1000) >>> 0)) return false;
  if (Math.floor(entry.mtimeNs / 1_000_000) !== mtime % 1000) return false;
  const ctime = info.ctime?.getTime();
  if (ctime !== undefined && entry.ctimeS !== (Math.floor(ctime / 1000) >>> 0)) return false;
  if (entry.size !== (info.size >>> 0)) return false;
  if (info.ino !== null && entry.ino !== (info.ino >>> 0)) return false;
  if (info.uid !== null && entry.uid !== (info.uid >>> 0)) return false;
  if (info.gid !== null && entry.gid !== (info.gid >>> 0)) return false;
  return true;
}

export function emptyEntry(path: string, oid: string, mode: number, stage = 0): IndexEntry {
  return {
    path,
    oid,
    mode,
    stage,
    ctimeS: 0,
    ctimeNs: 0,
    mtimeS: 0,
    mtimeNs: 0,
    dev: 0,
    ino: 0,
    uid: 0,
    gid: 0,
    size: 0,
    assumeValid: false,
    skipWorktree: false,
    intentToAdd: false,
  };
}

function unsupported(message: string): PtermError {
  return new PtermError("UnsupportedFormat", message);
}

function corrupt(message: string): PtermError {
  return new PtermError(
    "CorruptRepository",
    `the index (.git/index) is damaged: ${message}. Rebuild it with the real git (\`git reset\`) or restore it.`,
  );
}

function decodePath(bytes: Uint8Array, start: number, end: number): string {
  for (let i = start; i < end; i++) {
    if (bytes[i] >= 0x80) return decodeName(bytes.subarray(start, end));
  }
  // Paths are short (<= 4 KiB), well under the argument limit of fromCharCode.
  return String.fromCharCode.apply(null, bytes.subarray(start, end) as unknown as number[]);
}

/** The in-memory index: stage-0 entries by path, conflict stages by path, and the cache tree. */
export class Index {
  readonly entries = new Map<string, IndexEntry>();
  readonly conflicts = new Map<string, IndexEntry[]>();
  cacheTree: CacheTreeNode | null = null;
  /** mtime of the index file when it was read (ms), for racy-git checks; 0 when there was none. */
  fileMtimeMs = 0;
  /** Whether anything changed since it was read. */
  dirty = false;
  /** Paths whose stat data was taken by this process (not subject to racy smudging on write). */
  readonly fresh = new Set<string>();

  /** Every entry in index order (path bytes, then stage). */
  sorted(): IndexEntry[] {
    const all: IndexEntry[] = [...this.entries.values()];
    for (const list of this.conflicts.values()) all.push(...list);
    return all.sort((a, b) => comparePaths(a.path, b.path) || a.stage - b.stage);
  }

  /** Stage-0 paths in index order. */
  sortedPaths(): string[] {
    return [...this.entries.keys()].sort(comparePaths);
  }

  get(path: string): IndexEntry | undefined {
    return this.entries.get(path);
  }

  /** Sets a stage-0 entry (resolving any conflict on that path). */
  set(entry: IndexEntry, fresh = false): void {
    this.conflicts.delete(entry.path);
    const old = this.entries.get(entry.path);
    this.entries.set(entry.path, entry);
    if (fresh) this.fresh.add(entry.path);
    else this.fresh.delete(entry.path);
    // Only a change of content or mode makes the cached trees stale; new stat data does not.
    if (!old || old.oid !== entry.oid || old.mode !== entry.mode) this.invalidate(entry.path);
    else this.dirty = true;
  }

  remove(path: string): boolean {
    const had = this.entries.delete(path) || this.conflicts.delete(path);
    if (had) this.invalidate(path);
    return had;
  }

  setConflict(path: string, stages: IndexEntry[]): void {
    this.entries.delete(path);
    this.conflicts.set(path, stages);
    this.invalidate(path);
  }

  /** Replaces every entry (e.g. a tree read into the index). */
  replaceAll(entries: Iterable<IndexEntry>): void {
    this.entries.clear();
    this.conflicts.clear();
    for (const e of entries) this.entries.set(e.path, e);
    this.cacheTree = null;
    this.dirty = true;
  }

  /** Marks the cache tree of every folder above `path` as out of date. */
  invalidate(path: string): void {
    this.dirty = true;
    let node = this.cacheTree;
    if (!node) return;
    node.entryCount = -1;
    node.oid = null;
    // Each folder on the path, found without splitting it (called once per staged file).
    for (
      let start = 0, slash = path.indexOf("/");
      slash >= 0 && node;
      start = slash + 1, slash = path.indexOf("/", start)
    ) {
      const name = path.slice(start, slash);
      node = node.children.find((c) => c.name === name) ?? null;
      if (node) {
        node.entryCount = -1;
        node.oid = null;
      }
    }
  }

  hasConflicts(): boolean {
    return this.conflicts.size > 0;
  }
}

export function parseIndex(data: Uint8Array): Index {
  const index = new Index();
  if (data.length < 32) throw corrupt("it is too short");
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data[0] !== 0x44 || data[1] !== 0x49 || data[2] !== 0x52 || data[3] !== 0x43) throw corrupt("bad signature");
  const version = view.getUint32(4);
  if (version < 2 || version > 4) throw unsupported(`index version ${version} is not supported (2, 3 and 4 are)`);
  const count = view.getUint32(8);
  const parsed: IndexEntry[] = [];
  let offset = 12;
  let previousPath = "";
  const end = data.length - 20;
  for (let i = 0; i < count; i++) {
    if (offset + 62 > end) throw corrupt("an entry is truncated");
    const flags = view.getUint16(offset + 60);
    const extended = (flags & 0x4000) !== 0 && version >= 3;
    let extFlags = 0;
    let nameStart = offset + 62;
    if (extended) {
      extFlags = view.getUint16(offset + 62);
      nameStart += 2;
    }
    let path: string;
    let next: number;
    if (version === 4) {
      // Prefix compression: a varint of bytes to drop from the previous path, then the rest.
      let p = nameStart;
      let byte = data[p++];
      let strip = byte & 0x7f;
      while (byte & 0x80) {
        byte = data[p++];
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const nul = data.indexOf(0, p);
      if (nul < 0) throw corrupt("an entry name is not terminated");
      // Prefix compression works on bytes: rebuild the name's bytes, then decode it whole.
      const prevBytes = encodeName(previousPath);
      const keep = prevBytes.length - strip;
      if (keep < 0) throw corrupt("an entry name has a bad prefix length");
      path = prevBytes.length === previousPath.length && data.subarray(p, nul).every((b) => b < 0x80)
        ? previousPath.slice(0, keep) + decodePath(data, p, nul)
        : decodeName(concatBytes([prevBytes.subarray(0, keep), data.subarray(p, nul)]));
      next = nul + 1;
    } else {
      const nameLength = flags & 0xfff;
      let nul = nameStart + nameLength;
      if (nameLength === 0xfff || data[nul] !== 0) nul = data.indexOf(0, nameStart);
      if (nul < 0) throw corrupt("an entry name is not terminated");
      path = decodePath(data, nameStart, nul);
      const entryLength = nul - offset;
      next = offset + ((entryLength + 8) & ~7);
    }
    const entry: IndexEntry = {
      path,
      oid: toHex(data, offset + 40, offset + 60),
      mode: view.getUint32(offset + 24),
      stage: (flags >> 12) & 3,
      ctimeS: view.getUint32(offset),
      ctimeNs: view.getUint32(offset + 4),
      mtimeS: view.getUint32(offset + 8),
      mtimeNs: view.getUint32(offset + 12),
      dev: view.getUint32(offset + 16),
      ino: view.getUint32(offset + 20),
      uid: view.getUint32(offset + 28),
      gid: view.getUint32(offset + 32),
      size: view.getUint32(offset + 36),
      assumeValid: (flags & 0x8000) !== 0,
      skipWorktree: (extFlags & 0x4000) !== 0,
      intentToAdd: (extFlags & 0x2000) !== 0,
    };
    parsed.push(entry);
    if (entry.stage === 0) index.entries.set(path, entry);
    else {
      const list = index.conflicts.get(path);
      if (list) list.push(entry);
      else index.conflicts.set(path, [entry]);
    }
    previousPath = path;
    offset = next;
  }
  while (offset + 8 <= end) {
    const signature = String.fromCharCode(data[offset], data[offset + 1], data[offset + 2], data[offset + 3]);
    const size = view.getUint32(offset + 4);
    const body = data.subarray(offset + 8, offset + 8 + size);
    if (signature === "TREE") index.cacheTree = parseCacheTree(body);
    else if (signature === "link") {
      throw unsupported(
        "this repository uses a split index (git setting core.splitIndex), which pterm cannot read; run `git config core.splitIndex false && git update-index --no-split-index` with the real git first",
      );
    } else if (signature === "sdir") {
      throw unsupported(
        "this repository uses a sparse index (git settings index.sparse and core.sparseCheckout), which pterm cannot read; run `git sparse-checkout disable` with the real git first",
      );
    } else if (!(data[offset] >= 0x41 && data[offset] <= 0x5a)) {
      throw unsupported(`the index has the required extension ${signature}, which pterm does not know`);
    }
    offset += 8 + size;
  }
  // After the extensions: a split index (refused above) legitimately has entries with empty names.
  for (const entry of parsed) verifyIndexPath(entry.path, entry.mode === S_IFLNK);
  return index;
}

function parseCacheTree(body: Uint8Array): CacheTreeNode | null {
  let offset = 0;
  const readNode = (): CacheTreeNode => {
    const nul = body.indexOf(0, offset);
    const name = lenientDecoder.decode(body.subarray(offset, nul));
    const newline = body.indexOf(0x0a, nul + 1);
    const [countText, subtreesText] = lenientDecoder.decode(body.subarray(nul + 1, newline)).split(" ");
    offset = newline + 1;
    const entryCount = Number(countText);
    let oid: string | null = null;
    if (entryCount >= 0) {
      oid = toHex(body, offset, offset + 20);
      offset += 20;
    }
    const node: CacheTreeNode = { name, entryCount, oid, children: [] };
    const subtrees = Number(subtreesText);
    for (let i = 0; i < subtrees; i++) node.children.push(readNode());
    return node;
  };
  try {
    return body.length ? readNode() : null;
  } catch {
    return null;
  }
}

function serializeCacheTree(node: CacheTreeNode, parts: Uint8Array[]): void {
  parts.push(encoder.encode(`${node.name}\0${node.oid ? node.entryCount : -1} ${node.children.length}\n`));
  if (node.oid) parts.push(fromHex(node.oid));
  for (const child of node.children) serializeCacheTree(child, parts);
}

/**
 * What the work tree holds at a path now, for the racy-git check before a write: null when nothing is
 * there, "unknown" when it cannot be looked at.
 */
export type CurrentStat = (path: string) => Deno.FileInfo | null | "unknown";

/**
 * Racy-git protection before a write (git's ce_smudge_racily_clean_entry, without hashing):
 * an entry whose mtime is not older than the index it was read from could have changed within
 * the same timestamp; zeroing its recorded size makes every reader (git too) check its content.
 * Only an entry whose stat data still matches its file is smudged, as git does: one whose file
 * already differs (a new size, say) is seen as changed by every reader anyway, and a size of 0
 * would turn that into a content check that a line-ending conversion can call clean.
 */
function smudgeRacyEntries(index: Index, currentStat: CurrentStat): void {
  if (index.fileMtimeMs === 0) return;
  for (const entry of index.entries.values()) {
    if (index.fresh.has(entry.path) || entry.size === 0) continue;
    if (entryMtimeMs(entry) < index.fileMtimeMs) continue;
    const info = currentStat(entry.path);
    if (info === null) continue;
    if (info === "unknown" || statMatches(entry, info)) entry.size = 0;
  }
}

/**
 * An entry for a file pterm has just written itself and stat'ed through the handle it wrote with: its content is
 * the blob's (work-tree form), so its stat data is recorded whole, as git's checkout records it — a person's
 * first `git status` then trusts it instead of hashing every file again. Racy-git protection stays with the
 * index write (smudgeRacyEntries) and with git's own check of entries not older than the index file.
 */
export function entryFromWrite(path: string, oid: string, mode: number, info: Deno.FileInfo): IndexEntry {
  return entryWithStat(path, oid, mode, info);
}

/** A stage-0 entry with the stat fields of `info`, built in place: one per staged file. */
function entryWithStat(path: string, oid: string, mode: number, info: Deno.FileInfo): IndexEntry {
  return setStatFields(emptyEntry(path, oid, mode), info);
}

/** An entry for a file just hashed; a file modified in the last moments is recorded "smudged" (size 0). */
export function entryFromStat(
  path: string,
  oid: string,
  mode: number,
  info: Deno.FileInfo,
  statTime: number,
): IndexEntry {
  const entry = entryWithStat(path, oid, mode, info);
  if ((info.mtime?.getTime() ?? 0) >= statTime - 50) entry.size = 0;
  return entry;
}

const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE["0123456789abcdef".charCodeAt(i)] = i;

/** The on-disk bytes of `index` (version 2, or 3 when extended flags are needed), checksum included. */
export async function serializeIndex(index: Index, currentStat: CurrentStat): Promise<Uint8Array> {
  smudgeRacyEntries(index, currentStat);
  const entries = index.sorted();
  const version = entries.some((e) => e.intentToAdd || e.skipWorktree) ? 3 : 2;
  // Sizes first, so everything is written into one buffer.
  const names: (Uint8Array | null)[] = new Array(entries.length);
  let total = 12;
  for (let i = 0; i < entries.length; i++) {
    const path = entries[i].path;
    let ascii = true;
    for (let k = 0; k < path.length; k++) {
      if (path.charCodeAt(k) >= 0x80) {
        ascii = false;
        break;
      }
    }
    const name = ascii ? null : encodeName(path);
    names[i] = name;
    const nameLength = name ? name.length : path.length;
    const fixed = entries[i].intentToAdd || entries[i].skipWorktree ? 64 : 62;
    total += (fixed + nameLength + 8) & ~7;
  }
  let treeBytes: Uint8Array | null = null;
  if (index.cacheTree) {
    const body: Uint8Array[] = [];
    serializeCacheTree(index.cacheTree, body);
    treeBytes = concatBytes(body);
    total += 8 + treeBytes.length;
  }
  const out = new Uint8Array(total + 20);
  const v = new DataView(out.buffer);
  out.set([0x44, 0x49, 0x52, 0x43]);
  v.setUint32(4, version);
  v.setUint32(8, entries.length);
  let o = 12;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const extended = e.intentToAdd || e.skipWorktree;
    const fixed = extended ? 64 : 62;
    const name = names[i];
    const nameLength = name ? name.length : e.path.length;
    v.setUint32(o, e.ctimeS >>> 0);
    v.setUint32(o + 4, e.ctimeNs >>> 0);
    v.setUint32(o + 8, e.mtimeS >>> 0);
    v.setUint32(o + 12, e.mtimeNs >>> 0);
    v.setUint32(o + 16, e.dev >>> 0);
    v.setUint32(o + 20, e.ino >>> 0);
    v.setUint32(o + 24, e.mode);
    v.setUint32(o + 28, e.uid >>> 0);
    v.setUint32(o + 32, e.gid >>> 0);
    v.setUint32(o + 36, e.size >>> 0);
    const oid = e.oid;
    for (let k = 0; k < 20; k++) {
      out[o + 40 + k] = (HEX_VALUE[oid.charCodeAt(2 * k)] << 4) | HEX_VALUE[oid.charCodeAt(2 * k + 1)];
    }
    let flags = Math.min(nameLength, 0xfff) | (e.stage << 12);
    if (e.assumeValid) flags |= 0x8000;
    if (extended) flags |= 0x4000;
    v.setUint16(o + 60, flags);
    if (extended) v.setUint16(o + 62, (e.skipWorktree ? 0x4000 : 0) | (e.intentToAdd ? 0x2000 : 0));
    if (name) out.set(name, o + fixed);
    else {
      const path = e.path;
      for (let k = 0; k < path.length; k++) out[o + fixed + k] = path.charCodeAt(k);
    }
    o += (fixed + nameLength + 8) & ~7;
  }
  if (treeBytes) {
    out.set([0x54, 0x52, 0x45, 0x45], o);
    v.setUint32(o + 4, treeBytes.length);
    out.set(treeBytes, o + 8);
    o += 8 + treeBytes.length;
  }
  out.set(fromHex(await sha1(out.subarray(0, o))), o);
  return out;
}

function sparseCheckoutEnabled(gitdir: string): boolean {
  // A linked worktree's shared config is in the common folder its `commondir` names (confined when the repository was opened).
  let common = gitdir;
  try {
    common = resolve(gitdir, Deno.readTextFileSync(`${gitdir}/commondir`).trim());
  } catch { /* not a linked worktree */ }
  for (const path of [`${common}/config`, `${gitdir}/config.worktree`]) {
    let text = "";
    try {
      text = Deno.readTextFileSync(path);
    } catch {
      continue;
    }
    if (parseConfig(text).getBool("core.sparseCheckout", false)) return true;
  }
  return false;
}

/** Reads `<gitdir>/index`; an absent file is an empty index. */
export function readIndexFile(gitdir: string): Index {
  const path = `${gitdir}/index`;
  let data: Uint8Array;
  let mtime = 0;
  try {
    data = Deno.readFileSync(path);
    mtime = Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return new Index();
    throw error;
  }
  const index = parseIndex(data);
  index.fileMtimeMs = mtime;
  // Entries marked skip-worktree by hand (`git update-index --skip-worktree`) are honoured; a sparse
  // checkout would need its patterns applied on every checkout, which pterm does not do.
  if ([...index.entries.values()].some((e) => e.skipWorktree) && sparseCheckoutEnabled(gitdir)) {
    throw unsupported(
      "this repository uses a sparse checkout (git setting core.sparseCheckout), which pterm does not support; " +
        "run `git sparse-checkout disable` with the real git first",
    );
  }
  return index;
}
