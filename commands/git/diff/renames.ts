/**
 * Rename detection as git's diffcore-rename does it: exact renames first (same blob; a source
 * with the same base name preferred), then, among regular files, pairs scored by how much of the
 * larger file is copied material (git's diffcore-delta: the content cut into lines of at most 64
 * bytes, each hashed, CR of CRLF ignored in text, counts compared) — a pair counts from git's
 * default similarity of 50%; the best pairs are taken first, each file in one pair at most.
 */

import { looksBinary } from "../odb/bytes.ts";

/** git's MAX_SCORE: a score is a fraction of it. */
export const MAX_SCORE = 60000;
/** `-M` without a number: 50%. */
export const DEFAULT_RENAME_SCORE = 30000;
/**
 * Beyond sources × destinations of this size only exact renames are looked for. git goes to
 * 1000² in diffs and 7000² in merges; scoring 250,000 pairs already takes about a second here, so
 * a bigger mass rename with edits shows as deletions and additions (in a merge: a conflict, never
 * a silently different result).
 */
const PAIR_LIMIT = 500 * 500;
const HASHBASE = 107927;

export interface RenameSide {
  readonly oid: string;
  readonly mode: string;
}

export interface Rename {
  readonly from: string;
  readonly to: string;
  /** 0..MAX_SCORE; MAX_SCORE for an exact rename. */
  readonly score: number;
}

/** Per-chunk byte counts by hash (sorted by hash), as diffcore-delta's hash_chars makes them. */
function spanHashes(buf: Uint8Array): { hashes: Uint32Array; counts: Uint32Array } {
  const isText = !looksBinary(buf);
  const counts = new Map<number, number>();
  let n = 0;
  let accum1 = 0;
  let accum2 = 0;
  const add = () => {
    const hash = ((accum1 >>> 0) + Math.imul(accum2 >>> 0, 0x61) >>> 0) % HASHBASE;
    counts.set(hash, (counts.get(hash) ?? 0) + n);
    n = 0;
    accum1 = accum2 = 0;
  };
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (isText && c === 13 && i + 1 < buf.length && buf[i + 1] === 10) continue;
    const old1 = accum1;
    accum1 = ((accum1 << 7) ^ (accum2 >>> 25)) >>> 0;
    accum2 = ((accum2 << 7) ^ (old1 >>> 25)) >>> 0;
    accum1 = (accum1 + c) >>> 0;
    if (++n < 64 && c !== 10) continue;
    add();
  }
  if (n > 0) add();
  const keys = [...counts.keys()].sort((a, b) => a - b);
  return { hashes: Uint32Array.from(keys), counts: Uint32Array.from(keys.map((k) => counts.get(k)!)) };
}

/** Bytes of `dst` that come from `src` (diffcore_count_changes' src_copied). */
function copiedBytes(src: ReturnType<typeof spanHashes>, dst: ReturnType<typeof spanHashes>): number {
  let i = 0;
  let j = 0;
  let copied = 0;
  while (i < src.hashes.length && j < dst.hashes.length) {
    const s = src.hashes[i];
    const d = dst.hashes[j];
    if (s < d) i++;
    else if (d < s) j++;
    else {
      copied += Math.min(src.counts[i], dst.counts[j]);
      i++;
      j++;
    }
  }
  return copied;
}

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);
const isRegular = (mode: string) => mode === "100644" || mode === "100755";
const kindOf = (mode: string) => mode === "120000" ? "link" : mode.startsWith("160") ? "gitlink" : "file";

/**
 * Renames from `deleted` paths to `added` paths. `read` gives a side's content (a blob, or a
 * work-tree file in git's form). `minScore` is the similarity a pair needs (MAX_SCORE = 100%).
 */
export async function detectRenames<S extends RenameSide>(
  deleted: ReadonlyMap<string, S>,
  added: ReadonlyMap<string, S>,
  read: (path: string, side: S) => Promise<Uint8Array>,
  minScore = DEFAULT_RENAME_SCORE,
  /** Which sources may pair inexactly (git's ort only scores sources the other side changed). */
  inexactSource: (path: string) => boolean = () => true,
): Promise<Rename[]> {
  const renames: Rename[] = [];
  const sources = [...deleted.keys()];
  const targets = [...added.keys()];
  const usedSource = new Set<string>();
  const usedTarget = new Set<string>();
  // Exact renames: the same object and the same kind (file, link, or submodule: git pairs a gitlink
  // that moved with the same commit exactly, never inexactly).
  const exactKey = (side: RenameSide) => `${side.oid}:${kindOf(side.mode)}`;
  const byOid = new Map<string, string[]>();
  for (const src of sources) {
    const key = exactKey(deleted.get(src)!);
    byOid.set(key, [...(byOid.get(key) ?? []), src]);
  }
  for (const dst of targets) {
    const side = added.get(dst)!;
    const candidates = (byOid.get(exactKey(side)) ?? []).filter((s) => !usedSource.has(s));
    if (candidates.length === 0) continue;
    const src = candidates.find((s) => baseName(s) === baseName(dst)) ?? candidates[0];
    usedSource.add(src);
    usedTarget.add(dst);
    renames.push({ from: src, to: dst, score: MAX_SCORE });
  }
  let restSources = sources.filter((s) => !usedSource.has(s) && isRegular(deleted.get(s)!.mode) && inexactSource(s));
  let restTargets = targets.filter((d) => !usedTarget.has(d) && isRegular(added.get(d)!.mode));
  if (restSources.length === 0 || restTargets.length === 0) return renames;
  const content = new Map<string, Uint8Array>();
  const hashes = new Map<string, ReturnType<typeof spanHashes>>();
  const load = async (key: string, path: string, side: S) => {
    let bytes = content.get(key);
    if (!bytes) {
      bytes = await read(path, side);
      content.set(key, bytes);
    }
    return bytes;
  };
  const hashOf = (key: string, bytes: Uint8Array) => {
    let h = hashes.get(key);
    if (!h) {
      h = spanHashes(bytes);
      hashes.set(key, h);
    }
    return h;
  };
  const similarity = async (src: string, dst: string, floor: number): Promise<number | null> => {
    const srcBytes = await load(`-${src}`, src, deleted.get(src)!);
    const dstBytes = await load(`+${dst}`, dst, added.get(dst)!);
    const maxSize = Math.max(srcBytes.length, dstBytes.length);
    const baseSize = Math.min(srcBytes.length, dstBytes.length);
    // Sizes too far apart for the pair to reach the score (git's quick check).
    if (maxSize * (MAX_SCORE - floor) < (maxSize - baseSize) * MAX_SCORE) return null;
    if (dstBytes.length === 0) return null;
    const score = Math.floor(
      copiedBytes(hashOf(`-${src}`, srcBytes), hashOf(`+${dst}`, dstBytes)) * MAX_SCORE / maxSize,
    );
    return score < floor ? null : score;
  };
  // git's basename step (diffcore-rename's find_basename_matches, git 2.33+): a source and a
  // target whose file name is unique among the remaining ones on each side pair first, when they
  // are at least halfway from the threshold to identical; the full matrix sees only the rest.
  const unique = (paths: readonly string[]) => {
    const seen = new Map<string, string | null>();
    for (const p of paths) seen.set(baseName(p), seen.has(baseName(p)) ? null : p);
    return seen;
  };
  const uniqueTargets = unique(restTargets);
  const basenameFloor = minScore + Math.floor((MAX_SCORE - minScore) / 2);
  for (const [name, src] of unique(restSources)) {
    const dst = uniqueTargets.get(name);
    if (!src || !dst) continue;
    const score = await similarity(src, dst, basenameFloor);
    if (score === null) continue;
    usedSource.add(src);
    usedTarget.add(dst);
    renames.push({ from: src, to: dst, score });
  }
  restSources = restSources.filter((s) => !usedSource.has(s));
  restTargets = restTargets.filter((d) => !usedTarget.has(d));
  if (restSources.length === 0 || restTargets.length === 0) return renames;
  if (restSources.length * restTargets.length > PAIR_LIMIT) return renames;
  type Candidate = { src: string; dst: string; score: number; sameName: boolean };
  /** git's score_compare: higher score first, then a same file name; > 0 when `a` goes after `b`. */
  const after = (a: Candidate | null, b: Candidate | null) =>
    a === null ? (b === null ? 0 : 1) : b === null ? -1 : b.score - a.score || Number(b.sameName) - Number(a.sameName);
  const scored: Candidate[] = [];
  for (const dst of restTargets) {
    // As diffcore-rename's record_if_better: each target keeps its NUM_CANDIDATE_PER_DST (4) best
    // sources, a later one replacing the worst only when strictly better. A target whose 4 best
    // sources all go elsewhere stays an addition, even if a fifth source is free.
    const slots: (Candidate | null)[] = [null, null, null, null];
    for (const src of restSources) {
      const score = await similarity(src, dst, minScore);
      if (score === null) continue;
      const candidate = { src, dst, score, sameName: baseName(src) === baseName(dst) };
      let worst = 0;
      for (let i = 1; i < slots.length; i++) if (after(slots[i], slots[worst]) > 0) worst = i;
      if (after(slots[worst], candidate) > 0) slots[worst] = candidate;
    }
    for (const slot of slots) if (slot) scored.push(slot);
  }
  // Stable: among equals, targets in order, then each target's slots in order (git's STABLE_QSORT of its matrix).
  scored.sort((a, b) => after(a, b));
  for (const pair of scored) {
    if (usedSource.has(pair.src) || usedTarget.has(pair.dst)) continue;
    usedSource.add(pair.src);
    usedTarget.add(pair.dst);
    renames.push({ from: pair.src, to: pair.dst, score: pair.score });
  }
  return renames;
}

/** The similarity git prints (`similarity index 87%`). */
export function similarityPercent(score: number): number {
  return Math.floor(score * 100 / MAX_SCORE);
}
