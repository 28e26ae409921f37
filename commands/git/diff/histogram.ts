/**
 * xdiff's histogram diff (git's xhistogram.c), the line diff git's merge-ort uses for every
 * three-way text merge. Works on numbered lines (equal numbers = equal bytes) and marks changed
 * lines as line_diff.ts does (`changed[i + 1]` for line i).
 *
 * The search: in a range of both files, index the first file's lines (how often each occurs, and
 * where); for each line of the second file that occurs in the first at most as often as the best
 * region found so far, grow a common region around each occurrence, and keep the longest region
 * among those whose rarest line is rarest (a region is taken when it is longer, or when its
 * rarest line occurs less often). The region splits the range in two, and each side is searched
 * the same way. Lines occurring more than 64 times are never anchors: when every common line
 * is that frequent, the range goes to xdiff's Myers diff instead (as git's
 * `fall_back_to_classic_diff`), and when no line is common, all of it is changed. Unlike git's
 * default Myers, histogram sets no common start or end aside first and never drops lines the
 * other file lacks: the search sees the whole files.
 */

import { myersChanged } from "./line_diff.ts";

/** Lines occurring more often than this in a range are never anchors (xhistogram.c's max_chain_length). */
const MAX_CHAIN_LENGTH = 64;

/** git's xdl_hashbits: the bits of the smallest power of two at least `size` (at least 1). */
function hashBits(size: number): number {
  let bits = 0;
  for (let value = 1; value < size && bits < 32; value *= 2) bits++;
  return bits || 1;
}

/**
 * Thrown where git's histogram diff gives up (more than 64 different lines of one range fall in
 * one bucket of its hash table): git's merge then fails as a whole, and so must pterm's.
 */
export class HistogramLimit extends Error {}

interface Region {
  begin1: number;
  end1: number;
  begin2: number;
  end2: number;
  /** Occurrences of the region's rarest line (git's index->cnt), MAX_CHAIN_LENGTH + 1 before any. */
  count: number;
  found: boolean;
  /** Some line of the second range occurs in the first (git's has_common). */
  common: boolean;
}

/**
 * State shared by every range of one diff: per line number, how often it occurs in the current
 * range of the first file and where first; per line of the first file, its next occurrence.
 */
class HistogramIndex {
  readonly counts: Int32Array;
  readonly firsts: Int32Array;
  readonly nexts: Int32Array;
  /** Distinct line numbers per hash bucket, to give up where git gives up. */
  readonly bucketFill: Int32Array;

  constructor(readonly a: Int32Array, readonly b: Int32Array, classes: number) {
    this.counts = new Int32Array(classes);
    this.firsts = new Int32Array(classes).fill(-1);
    this.nexts = new Int32Array(a.length).fill(-1);
    this.bucketFill = new Int32Array(1 << hashBits(Math.max(1, a.length)));
  }

  /** git's scanA: indexes lines [s1, s1 + n1) of the first file, scanning from the end. */
  scan(s1: number, n1: number): void {
    const { a, counts, firsts, nexts, bucketFill } = this;
    const bits = hashBits(n1);
    const mask = (1 << bits) - 1;
    bucketFill.fill(0, 0, 1 << bits);
    for (let ptr = s1 + n1 - 1; ptr >= s1; ptr--) {
      const id = a[ptr];
      if (counts[id] > 0) {
        nexts[ptr] = firsts[id];
        counts[id]++;
      } else {
        // git's table is keyed by XDL_HASHLONG of the line's number; a chain of 64 others stops it.
        const bucket = (id + Math.floor(id / 2 ** bits)) & mask;
        if (bucketFill[bucket] === MAX_CHAIN_LENGTH) throw new HistogramLimit("histogram: hash chain too long");
        bucketFill[bucket]++;
        nexts[ptr] = -1;
        counts[id] = 1;
      }
      firsts[id] = ptr;
    }
  }

  /** Forgets the range indexed by `scan`. */
  clear(s1: number, n1: number): void {
    for (let ptr = s1; ptr < s1 + n1; ptr++) {
      const id = this.a[ptr];
      this.counts[id] = 0;
      this.firsts[id] = -1;
    }
  }

  /**
   * git's try_lcs for line `bPtr` of the second file: grows a region around each occurrence of
   * its line in the first range. Returns the next line of the second file worth trying.
   */
  tryRegion(region: Region, bPtr: number, s1: number, e1: number, s2: number, e2: number): number {
    const { a, b, counts, nexts } = this;
    let bNext = bPtr + 1;
    const id = b[bPtr];
    const occurrences = counts[id];
    if (occurrences === 0) return bNext;
    if (occurrences > region.count) {
      region.common = true;
      return bNext;
    }
    region.common = true;
    let as = this.firsts[id];
    for (;;) {
      let bs = bPtr;
      let ae = as;
      let be = bs;
      let rarest = occurrences;
      const next = nexts[as];
      while (s1 < as && s2 < bs && a[as - 1] === b[bs - 1]) {
        as--;
        bs--;
        if (rarest > 1) rarest = Math.min(rarest, counts[a[as]]);
      }
      while (ae < e1 && be < e2 && a[ae + 1] === b[be + 1]) {
        ae++;
        be++;
        if (rarest > 1) rarest = Math.min(rarest, counts[a[ae]]);
      }
      if (bNext <= be) bNext = be + 1;
      if (region.end1 - region.begin1 < ae - as || rarest < region.count) {
        region.begin1 = as;
        region.begin2 = bs;
        region.end1 = ae;
        region.end2 = be;
        region.count = rarest;
        region.found = true;
      }
      let np = next;
      while (np !== -1 && np <= ae) np = nexts[np];
      if (np === -1) break;
      as = np;
    }
    return bNext;
  }
}

/**
 * The changed lines of `a` and `b` (`changed[i + 1]` for line i) as git's histogram diff marks
 * them, before sliding. `classes` bounds the line numbers; `minimal` (git's XDF_NEED_MINIMAL)
 * makes the fall-back to Myers minimal, as xdl_fall_back_diff passes the flag on.
 */
export function histogramChanged(
  a: Int32Array,
  b: Int32Array,
  classes: number,
  minimal = false,
): [Uint8Array, Uint8Array] {
  const changedA = new Uint8Array(a.length + 2);
  const changedB = new Uint8Array(b.length + 2);
  const index = new HistogramIndex(a, b, classes);
  // Ranges still to diff (s1, n1, s2, n2); each is independent of the others.
  const work: number[] = [0, a.length, 0, b.length];
  const region: Region = { begin1: 0, end1: 0, begin2: 0, end2: 0, count: 0, found: false, common: false };
  while (work.length > 0) {
    let n2 = work.pop()!;
    let s2 = work.pop()!;
    let n1 = work.pop()!;
    let s1 = work.pop()!;
    for (;;) {
      if (n1 <= 0 && n2 <= 0) break;
      if (n1 === 0) {
        changedB.fill(1, s2 + 1, s2 + 1 + n2);
        break;
      }
      if (n2 === 0) {
        changedA.fill(1, s1 + 1, s1 + 1 + n1);
        break;
      }
      region.begin1 =
        region.end1 =
        region.begin2 =
        region.end2 =
          0;
      region.count = MAX_CHAIN_LENGTH + 1;
      region.found = false;
      region.common = false;
      index.scan(s1, n1);
      const e1 = s1 + n1 - 1;
      const e2 = s2 + n2 - 1;
      for (let bPtr = s2; bPtr <= e2;) bPtr = index.tryRegion(region, bPtr, s1, e1, s2, e2);
      index.clear(s1, n1);
      if (region.common && region.count > MAX_CHAIN_LENGTH) {
        // Every common line is too frequent to anchor on: xdiff's Myers diff of the range.
        const [x, y] = myersChanged(a.subarray(s1, s1 + n1), b.subarray(s2, s2 + n2), classes, minimal);
        changedA.set(x.subarray(1, n1 + 1), s1 + 1);
        changedB.set(y.subarray(1, n2 + 1), s2 + 1);
        break;
      }
      if (!region.found) {
        changedA.fill(1, s1 + 1, s1 + 1 + n1);
        changedB.fill(1, s2 + 1, s2 + 1 + n2);
        break;
      }
      work.push(s1, region.begin1 - s1, s2, region.begin2 - s2);
      const { end1, end2 } = region;
      n1 = e1 - end1;
      s1 = end1 + 1;
      n2 = e2 - end2;
      s2 = end2 + 1;
    }
  }
  return [changedA, changedB];
}
