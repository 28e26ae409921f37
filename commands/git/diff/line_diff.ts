/**
 * Line diffs as git's xdiff computes them (xprepare.c, xdiffi.c, xemit.c), on the bytes:
 *
 * - lines are numbered on the file's bytes (each line with its `\n`, so a last line without one
 *   is a line of its own), hashed and compared as bytes, never decoded one by one;
 * - as `xdl_trim_ends` and `xdl_cleanup_records`, the common start and end are set aside, and so
 *   are lines the other file does not have (and lines that occur very often there and stand among
 *   such lines): they are changes whatever else happens, and leaving them out of the search turns
 *   "30% of a 60,000-line file rewritten" from quadratic into near-linear;
 * - the rest goes to Myers' divide-and-conquer search with xdiff's cost bounds (`xdl_split`: a
 *   good enough "snake" past `XDL_HEUR_MIN_COST`, the furthest-reaching split past `mxcost`), so
 *   the cost stays bounded where a minimal diff would be quadratic;
 * - change groups are slid as `xdl_change_compact` slides them, with git's default indent
 *   heuristic, and hunks are cut as `xdl_emit_diff` cuts them: `context` lines around each
 *   change, changes at most twice that apart joined, git's default function line after `@@`.
 *
 * Everything works on typed arrays: a 60,000-line file makes no object per line. All of it runs
 * in WebAssembly (line_scan.ts, its program in line_scan.wat following the functions here
 * step by step); the JavaScript below is the same algorithm for files too large for its memory
 * (`linesOf`, `numberLines`, `diffSides`, `writeHunks`), for a pair of files shown differently
 * (one UTF-8, one not: `writeHunks` switches decoding between runs), and for `LineNumbering` (blame).
 * The tests hold every path to the same output, and to git's.
 */

import { bytesToByteString } from "../odb/bytes.ts";
import { bogoSqrt, INDENT, KPDIS_RUN, LineScan, NO_NEWLINE_MARKER, SEARCH, SIMSCAN_WINDOW } from "./line_scan.ts";

/**
 * A file's lines: `starts[i]` is where line i begins in `bytes` (`starts[count]` is the end),
 * `hashes[i]` a hash of its bytes, and whether every byte is ASCII. One pass over the bytes.
 */
interface Lines {
  readonly bytes: Uint8Array;
  readonly starts: Int32Array;
  readonly hashes: Int32Array;
  readonly count: number;
  readonly ascii: boolean;
}

const HASH_SEED = 0x811c9dc5 | 0;

function linesOf(bytes: Uint8Array): Lines {
  const length = bytes.length;
  // Lines are counted as they come; the arrays grow by doubling (a guess of 32 bytes a line).
  let starts = new Int32Array(Math.max(16, (length >> 5) + 2));
  let hashes = new Int32Array(starts.length);
  let count = 0;
  let h = HASH_SEED;
  let high = 0;
  let start = 0;
  for (let p = 0; p < length; p++) {
    const c = bytes[p];
    high |= c;
    h = Math.imul(h ^ c, 0x01000193);
    if (c === 10) {
      if (count + 2 > starts.length) {
        const grownStarts = new Int32Array(starts.length * 2);
        grownStarts.set(starts);
        starts = grownStarts;
        const grownHashes = new Int32Array(starts.length);
        grownHashes.set(hashes);
        hashes = grownHashes;
      }
      hashes[count] = h ^ (h >>> 15);
      starts[count++] = start;
      start = p + 1;
      h = HASH_SEED;
    }
  }
  if (start < length) { // a last line without its newline
    if (count + 2 > starts.length) {
      const grownStarts = new Int32Array(count + 2);
      grownStarts.set(starts.subarray(0, count));
      starts = grownStarts;
      const grownHashes = new Int32Array(count + 2);
      grownHashes.set(hashes.subarray(0, count));
      hashes = grownHashes;
    }
    hashes[count] = h ^ (h >>> 15);
    starts[count++] = start;
  }
  starts[count] = length;
  return { bytes, starts, hashes, count, ascii: high < 0x80 };
}

/** Per-line numbers that are equal exactly when the lines' bytes are: both files' lines share one numbering. */
interface Numbered {
  readonly a: Int32Array;
  readonly b: Int32Array;
  readonly classes: number;
  /** For each number, how many lines of a (of b) have it: xdiff's len1/len2, counted while numbering. */
  readonly countA: Int32Array;
  readonly countB: Int32Array;
}

function sameBytes(x: Uint8Array, xs: number, y: Uint8Array, ys: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (x[xs + k] !== y[ys + k]) return false;
  return true;
}

/**
 * How many bytes `x` and `y` share at their start, at most `limit`: four at a time (whole words
 * of the memory when both start on a word, which a fresh array does: a typed array's elements
 * are read faster than a DataView's, compiled or not), then one by one.
 */
function commonStart(x: Uint8Array, y: Uint8Array, limit: number): number {
  let p = 0;
  if ((x.byteOffset & 3) === 0 && (y.byteOffset & 3) === 0) {
    const words = limit >> 2;
    const wx = new Int32Array(x.buffer, x.byteOffset, words);
    const wy = new Int32Array(y.buffer, y.byteOffset, words);
    let w = 0;
    while (w < words && wx[w] === wy[w]) w++;
    p = w << 2;
  } else {
    const dx = new DataView(x.buffer, x.byteOffset, x.byteLength);
    const dy = new DataView(y.buffer, y.byteOffset, y.byteLength);
    while (p + 4 <= limit && dx.getInt32(p) === dy.getInt32(p)) p += 4;
  }
  while (p < limit && x[p] === y[p]) p++;
  return p;
}

/**
 * How many bytes `x` and `y` share at their end, at most `limit`: four at a time (whole words
 * of the memory when both ends fall alike on words, after the bytes up to a word's end), then
 * one by one.
 */
function commonEnd(x: Uint8Array, y: Uint8Array, limit: number): number {
  const xe = x.length;
  const ye = y.length;
  let s = 0;
  const xEnd = x.byteOffset + xe;
  const yEnd = y.byteOffset + ye;
  if (((xEnd - yEnd) & 3) === 0) {
    // Bytes until both ends are on a word, then words.
    while (s < limit && ((xEnd - s) & 3) !== 0 && x[xe - 1 - s] === y[ye - 1 - s]) s++;
    if (((xEnd - s) & 3) === 0) {
      const words = (limit - s) >> 2;
      const wx = new Int32Array(x.buffer, xEnd - s - 4 * words, words);
      const wy = new Int32Array(y.buffer, yEnd - s - 4 * words, words);
      let w = words - 1;
      while (w >= 0 && wx[w] === wy[w]) w--;
      s += 4 * (words - 1 - w);
    }
  } else {
    const dx = new DataView(x.buffer, x.byteOffset, x.byteLength);
    const dy = new DataView(y.buffer, y.byteOffset, y.byteLength);
    while (s + 4 <= limit && dx.getInt32(xe - s - 4) === dy.getInt32(ye - s - 4)) s += 4;
  }
  while (s < limit && x[xe - 1 - s] === y[ye - 1 - s]) s++;
  return s;
}

/**
 * Numbers the lines of both files (xdiff's classifier): an open-addressing table keyed by each
 * line's hash, a hit confirmed by comparing the bytes.
 */
function numberLines(a: Lines, b: Lines): Numbered {
  let bits = 4;
  while (1 << bits < (a.count + b.count) * 2) bits++;
  const capacity = 1 << bits;
  const mask = capacity - 1;
  const shift = 32 - bits;
  const slotHash = new Int32Array(capacity);
  const slotClass = new Int32Array(capacity); // class + 1; 0 = empty
  const classes = a.count + b.count;
  const classSide = new Uint8Array(classes);
  const classStart = new Int32Array(classes);
  const classLength = new Int32Array(classes);
  let next = 0;
  const number = (lines: Lines, side: number): Int32Array => {
    const { bytes, starts, hashes, count } = lines;
    const out = new Int32Array(count);
    const other = side === 0 ? b.bytes : a.bytes;
    for (let i = 0; i < count; i++) {
      const start = starts[i];
      const length = starts[i + 1] - start;
      const h = hashes[i];
      let slot = Math.imul(h, 0x9e3779b1) >>> shift; // the product's top bits
      for (;;) {
        const found = slotClass[slot];
        if (found === 0) {
          slotHash[slot] = h;
          slotClass[slot] = next + 1;
          classSide[next] = side;
          classStart[next] = start;
          classLength[next] = length;
          out[i] = next++;
          break;
        }
        const c = found - 1;
        if (
          slotHash[slot] === h && classLength[c] === length &&
          sameBytes(classSide[c] === side ? bytes : other, classStart[c], bytes, start, length)
        ) {
          out[i] = c;
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    return out;
  };
  const ids = { a: number(a, 0), b: number(b, 1) };
  const countA = new Int32Array(next);
  const countB = new Int32Array(next);
  for (let i = 0; i < ids.a.length; i++) countA[ids.a[i]]++;
  for (let i = 0; i < ids.b.length; i++) countB[ids.b[i]]++;
  return { ...ids, classes: next, countA, countB };
}

// ---- the search (xprepare.c, xdiffi.c) -------------------------------------------------------

// xdiff's constants, shared with the WebAssembly version (line_scan.ts).
const { XDL_MAX_EQLIMIT, XDL_MAX_COST_MIN, XDL_HEUR_MIN_COST, XDL_SNAKE_CNT, XDL_K_HEUR, XDL_LINE_MAX } = SEARCH;
const XDL_SIMSCAN_WINDOW = SIMSCAN_WINDOW;
const XDL_KPDIS_RUN = KPDIS_RUN;

/** One file in the search: its line numbers, and which lines are changed (`changed[i + 1]`, 0 at both ends). */
interface Side {
  readonly ids: Int32Array;
  readonly count: number;
  readonly changed: Uint8Array;
  /** The lines the search runs on (`kept[k]` is a line index) and their numbers. */
  kept: Int32Array;
  keptIds: Int32Array;
  /** Indentation as git's get_indent measures it (-1: blank), for the indent heuristic. */
  readonly indent: (line: number) => number;
}

function sideOf(ids: Int32Array, indent: (line: number) => number): Side {
  return {
    ids,
    count: ids.length,
    changed: new Uint8Array(ids.length + 2),
    kept: new Int32Array(0),
    keptIds: new Int32Array(0),
    indent,
  };
}

/** xdl_clean_mmatch: whether a line with many matches stands among lines without one (then it is left out). */
function cleanMultiMatch(dis: Uint8Array, i: number, s: number, e: number): boolean {
  if (i - s > XDL_SIMSCAN_WINDOW) s = i - XDL_SIMSCAN_WINDOW;
  if (e - i > XDL_SIMSCAN_WINDOW) e = i + XDL_SIMSCAN_WINDOW;
  let r: number;
  let rdis0 = 0;
  let rpdis0 = 1;
  for (r = 1; i - r >= s; r++) {
    const d = dis[i - r];
    if (d === 0) rdis0++;
    else if (d === 2) rpdis0++;
    else break;
  }
  if (rdis0 === 0) return false;
  let rdis1 = 0;
  let rpdis1 = 1;
  for (r = 1; i + r <= e; r++) {
    const d = dis[i + r];
    if (d === 0) rdis1++;
    else if (d === 2) rpdis1++;
    else break;
  }
  if (rdis1 === 0) return false;
  rdis1 += rdis0;
  rpdis1 += rpdis0;
  return rpdis1 * XDL_KPDIS_RUN < rpdis1 + rdis1;
}

/** xdl_trim_ends + xdl_cleanup_records: what the search runs on, the rest marked changed or left alone. */
function prepare(x: Side, y: Side, countX: Int32Array, countY: Int32Array): void {
  let start = 0;
  const limit = Math.min(x.count, y.count);
  while (start < limit && x.ids[start] === y.ids[start]) start++;
  let tail = 0;
  while (tail < limit - start && x.ids[x.count - 1 - tail] === y.ids[y.count - 1 - tail]) tail++;
  const keep = (side: Side, otherCount: Int32Array) => {
    const end = side.count - tail - 1; // last line in play (dend)
    const limitMatches = Math.min(bogoSqrt(side.count), XDL_MAX_EQLIMIT);
    const dis = new Uint8Array(side.count + 1);
    for (let i = start; i <= end; i++) {
      const matches = otherCount[side.ids[i]];
      dis[i] = matches === 0 ? 0 : matches >= limitMatches ? 2 : 1;
    }
    const kept = new Int32Array(Math.max(0, end - start + 1));
    const keptIds = new Int32Array(kept.length);
    let n = 0;
    for (let i = start; i <= end; i++) {
      if (dis[i] === 1 || (dis[i] === 2 && !cleanMultiMatch(dis, i, start, end))) {
        kept[n] = i;
        keptIds[n++] = side.ids[i];
      } else side.changed[i + 1] = 1;
    }
    side.kept = kept.subarray(0, n);
    side.keptIds = keptIds.subarray(0, n);
  };
  keep(x, countY);
  keep(y, countX);
}

/**
 * xdl_split: the middle of the box (off1, lim1) × (off2, lim2), searched from both corners; past
 * xdiff's cost bounds a good snake or the furthest-reaching point stands in for the middle.
 * Writes [i1, i2, minLow, minHigh] to `split`.
 */
function splitBox(
  h1: Int32Array,
  off1: number,
  lim1: number,
  h2: Int32Array,
  off2: number,
  lim2: number,
  kv: Int32Array,
  fbase: number,
  bbase: number,
  needMin: boolean,
  mxcost: number,
  split: Int32Array,
): void {
  const dmin = off1 - lim2;
  const dmax = lim1 - off2;
  const fmid = off1 - off2;
  const bmid = lim1 - lim2;
  const odd = ((fmid - bmid) & 1) !== 0;
  let fmin = fmid;
  let fmax = fmid;
  let bmin = bmid;
  let bmax = bmid;
  let i1: number;
  let i2: number;
  let d: number;
  kv[fbase + fmid] = off1;
  kv[bbase + bmid] = lim1;
  for (let ec = 1;; ec++) {
    let gotSnake = false;
    if (fmin > dmin) kv[fbase + --fmin - 1] = -1;
    else ++fmin;
    if (fmax < dmax) kv[fbase + ++fmax + 1] = -1;
    else --fmax;
    for (d = fmax; d >= fmin; d -= 2) {
      if (kv[fbase + d - 1] >= kv[fbase + d + 1]) i1 = kv[fbase + d - 1] + 1;
      else i1 = kv[fbase + d + 1];
      const prev1 = i1;
      i2 = i1 - d;
      while (i1 < lim1 && i2 < lim2 && h1[i1] === h2[i2]) {
        i1++;
        i2++;
      }
      if (i1 - prev1 > XDL_SNAKE_CNT) gotSnake = true;
      kv[fbase + d] = i1;
      if (odd && bmin <= d && d <= bmax && kv[bbase + d] <= i1) {
        split[0] = i1;
        split[1] = i2;
        split[2] = 1;
        split[3] = 1;
        return;
      }
    }
    if (bmin > dmin) kv[bbase + --bmin - 1] = XDL_LINE_MAX;
    else ++bmin;
    if (bmax < dmax) kv[bbase + ++bmax + 1] = XDL_LINE_MAX;
    else --bmax;
    for (d = bmax; d >= bmin; d -= 2) {
      if (kv[bbase + d - 1] < kv[bbase + d + 1]) i1 = kv[bbase + d - 1];
      else i1 = kv[bbase + d + 1] - 1;
      const prev1 = i1;
      i2 = i1 - d;
      while (i1 > off1 && i2 > off2 && h1[i1 - 1] === h2[i2 - 1]) {
        i1--;
        i2--;
      }
      if (prev1 - i1 > XDL_SNAKE_CNT) gotSnake = true;
      kv[bbase + d] = i1;
      if (!odd && fmin <= d && d <= fmax && i1 <= kv[fbase + d]) {
        split[0] = i1;
        split[1] = i2;
        split[2] = 1;
        split[3] = 1;
        return;
      }
    }
    if (needMin) continue;
    if (gotSnake && ec > XDL_HEUR_MIN_COST) {
      let best = 0;
      for (d = fmax; d >= fmin; d -= 2) {
        const dd = d > fmid ? d - fmid : fmid - d;
        i1 = kv[fbase + d];
        i2 = i1 - d;
        const v = i1 - off1 + (i2 - off2) - dd;
        if (
          v > XDL_K_HEUR * ec && v > best && off1 + XDL_SNAKE_CNT <= i1 && i1 < lim1 &&
          off2 + XDL_SNAKE_CNT <= i2 && i2 < lim2
        ) {
          for (let k = 1; h1[i1 - k] === h2[i2 - k]; k++) {
            if (k === XDL_SNAKE_CNT) {
              best = v;
              split[0] = i1;
              split[1] = i2;
              break;
            }
          }
        }
      }
      if (best > 0) {
        split[2] = 1;
        split[3] = 0;
        return;
      }
      for (d = bmax; d >= bmin; d -= 2) {
        const dd = d > bmid ? d - bmid : bmid - d;
        i1 = kv[bbase + d];
        i2 = i1 - d;
        const v = lim1 - i1 + (lim2 - i2) - dd;
        if (
          v > XDL_K_HEUR * ec && v > best && off1 < i1 && i1 <= lim1 - XDL_SNAKE_CNT &&
          off2 < i2 && i2 <= lim2 - XDL_SNAKE_CNT
        ) {
          for (let k = 0; h1[i1 + k] === h2[i2 + k]; k++) {
            if (k === XDL_SNAKE_CNT - 1) {
              best = v;
              split[0] = i1;
              split[1] = i2;
              break;
            }
          }
        }
      }
      if (best > 0) {
        split[2] = 0;
        split[3] = 1;
        return;
      }
    }
    if (ec >= mxcost) {
      let fbest = -1;
      let fbest1 = -1;
      for (d = fmax; d >= fmin; d -= 2) {
        i1 = Math.min(kv[fbase + d], lim1);
        i2 = i1 - d;
        if (lim2 < i2) {
          i1 = lim2 + d;
          i2 = lim2;
        }
        if (fbest < i1 + i2) {
          fbest = i1 + i2;
          fbest1 = i1;
        }
      }
      let bbest: number = XDL_LINE_MAX;
      let bbest1: number = XDL_LINE_MAX;
      for (d = bmax; d >= bmin; d -= 2) {
        i1 = Math.max(off1, kv[bbase + d]);
        i2 = i1 - d;
        if (i2 < off2) {
          i1 = off2 + d;
          i2 = off2;
        }
        if (i1 + i2 < bbest) {
          bbest = i1 + i2;
          bbest1 = i1;
        }
      }
      if (lim1 + lim2 - bbest < fbest - (off1 + off2)) {
        split[0] = fbest1;
        split[1] = fbest - fbest1;
        split[2] = 1;
        split[3] = 0;
      } else {
        split[0] = bbest1;
        split[1] = bbest - bbest1;
        split[2] = 0;
        split[3] = 1;
      }
      return;
    }
  }
}

/** xdl_recs_cmp, with an explicit stack (boxes taken in the recursion's order): marks changed lines. */
function compareRecords(x: Side, y: Side, needMin: boolean): void {
  const h1 = x.keptIds;
  const h2 = y.keptIds;
  const ndiags = h1.length + h2.length + 3;
  const kv = new Int32Array(2 * ndiags + 2);
  const fbase = h2.length + 1;
  const bbase = ndiags + h2.length + 1;
  const mxcost = Math.max(bogoSqrt(ndiags), XDL_MAX_COST_MIN);
  const split = new Int32Array(4);
  const stack: number[] = [0, h1.length, 0, h2.length, needMin ? 1 : 0];
  while (stack.length > 0) {
    const min = stack.pop()!;
    let lim2 = stack.pop()!;
    let off2 = stack.pop()!;
    let lim1 = stack.pop()!;
    let off1 = stack.pop()!;
    while (off1 < lim1 && off2 < lim2 && h1[off1] === h2[off2]) {
      off1++;
      off2++;
    }
    while (off1 < lim1 && off2 < lim2 && h1[lim1 - 1] === h2[lim2 - 1]) {
      lim1--;
      lim2--;
    }
    if (off1 === lim1) {
      for (; off2 < lim2; off2++) y.changed[y.kept[off2] + 1] = 1;
    } else if (off2 === lim2) {
      for (; off1 < lim1; off1++) x.changed[x.kept[off1] + 1] = 1;
    } else {
      splitBox(h1, off1, lim1, h2, off2, lim2, kv, fbase, bbase, min === 1, mxcost, split);
      const [s1, s2, minLow, minHigh] = split;
      // The high box is pushed first so the low one is taken first, as the recursion does.
      stack.push(s1, lim1, s2, lim2, minHigh, off1, s1, off2, s2, minLow);
    }
  }
}

// ---- sliding change groups (xdl_change_compact) ----------------------------------------------

// git's indent heuristic's constants, shared with the WebAssembly version (line_scan.ts).
const {
  MAX_INDENT,
  MAX_BLANKS,
  START_OF_FILE_PENALTY,
  END_OF_FILE_PENALTY,
  TOTAL_BLANK_WEIGHT,
  POST_BLANK_WEIGHT,
  RELATIVE_INDENT_PENALTY,
  RELATIVE_INDENT_WITH_BLANK_PENALTY,
  RELATIVE_OUTDENT_PENALTY,
  RELATIVE_OUTDENT_WITH_BLANK_PENALTY,
  RELATIVE_DEDENT_PENALTY,
  RELATIVE_DEDENT_WITH_BLANK_PENALTY,
  INDENT_WEIGHT,
  INDENT_HEURISTIC_MAX_SLIDING,
} = INDENT;

/** git's get_indent over one character code at a time: -1 for a blank line, TAB to the next multiple of 8. */
function indentOfCodes(at: (k: number) => number, length: number): number {
  let indent = 0;
  for (let k = 0; k < length; k++) {
    const c = at(k);
    if (c === 0x20) indent += 1;
    else if (c === 0x09) indent += 8 - (indent % 8);
    else if (!(c === 0x0a || c === 0x0b || c === 0x0c || c === 0x0d)) return indent;
    if (indent >= MAX_INDENT) return MAX_INDENT;
  }
  return -1;
}

/** score_add_split for a split above line `split`; adds to score [effectiveIndent, penalty]. */
function scoreSplit(side: Side, split: number, score: Int32Array): void {
  const endOfFile = split >= side.count;
  const indent = endOfFile ? -1 : side.indent(split);
  let preBlank = 0;
  let preIndent = -1;
  for (let i = split - 1; i >= 0; i--) {
    preIndent = side.indent(i);
    if (preIndent !== -1) break;
    preBlank += 1;
    if (preBlank === MAX_BLANKS) {
      preIndent = 0;
      break;
    }
  }
  let postBlank = 0;
  let postIndent = -1;
  for (let i = split + 1; i < side.count; i++) {
    postIndent = side.indent(i);
    if (postIndent !== -1) break;
    postBlank += 1;
    if (postBlank === MAX_BLANKS) {
      postIndent = 0;
      break;
    }
  }
  let penalty = 0;
  if (preIndent === -1 && preBlank === 0) penalty += START_OF_FILE_PENALTY;
  if (endOfFile) penalty += END_OF_FILE_PENALTY;
  const blankAfter = indent === -1 ? 1 + postBlank : 0;
  const totalBlank = preBlank + blankAfter;
  penalty += TOTAL_BLANK_WEIGHT * totalBlank + POST_BLANK_WEIGHT * blankAfter;
  const effective = indent !== -1 ? indent : postIndent;
  const anyBlanks = totalBlank !== 0;
  score[0] += effective;
  if (effective === -1 || preIndent === -1) {
    // nothing more
  } else if (effective > preIndent) {
    penalty += anyBlanks ? RELATIVE_INDENT_WITH_BLANK_PENALTY : RELATIVE_INDENT_PENALTY;
  } else if (effective < preIndent) {
    if (postIndent !== -1 && postIndent > effective) {
      penalty += anyBlanks ? RELATIVE_OUTDENT_WITH_BLANK_PENALTY : RELATIVE_OUTDENT_PENALTY;
    } else penalty += anyBlanks ? RELATIVE_DEDENT_WITH_BLANK_PENALTY : RELATIVE_DEDENT_PENALTY;
  }
  score[1] += penalty;
}

/** A group of changed lines [start, end) (`changed` is offset by one, with 0 at both ends). */
/**
 * One group of changed lines (xdiff's `struct xdlgroup`) in a file's change flags, slid as
 * xdl_change_compact slides it; `changed` is indexed from 1 (index 0 and count + 1 stay 0).
 * The three-way merge (xmerge.ts) slides its groups with the same steps.
 */
export class ChangeGroup {
  start = 0;
  end = 0;
  constructor(readonly ids: Int32Array, readonly changed: Uint8Array, readonly count = ids.length) {
    while (changed[this.end + 1]) this.end++;
  }
  next(): boolean {
    if (this.end === this.count) return false;
    this.start = this.end + 1;
    this.end = this.start;
    while (this.changed[this.end + 1]) this.end++;
    return true;
  }
  previous(): boolean {
    if (this.start === 0) return false;
    this.end = this.start - 1;
    this.start = this.end;
    while (this.changed[this.start]) this.start--;
    return true;
  }
  slideDown(): boolean {
    const { changed, ids, count } = this;
    if (this.end < count && ids[this.start] === ids[this.end]) {
      changed[this.start++ + 1] = 0;
      changed[this.end++ + 1] = 1;
      while (changed[this.end + 1]) this.end++;
      return true;
    }
    return false;
  }
  slideUp(): boolean {
    const { changed, ids } = this;
    if (this.start > 0 && ids[this.start - 1] === ids[this.end - 1]) {
      changed[--this.start + 1] = 1;
      changed[--this.end + 1] = 0;
      while (changed[this.start]) this.start--;
      return true;
    }
    return false;
  }
}

function broken(): never {
  throw new Error("line diff: change groups out of step");
}

/** xdl_change_compact, with XDF_INDENT_HEURISTIC unless `indentHeuristic` is false (a group then stays slid down). */
function compact(side: Side, other: Side, indentHeuristic = true): void {
  const g = new ChangeGroup(side.ids, side.changed, side.count);
  const go = new ChangeGroup(other.ids, other.changed, other.count);
  const score = new Int32Array(2);
  for (;;) {
    if (g.end !== g.start) {
      let groupSize: number;
      let earliestEnd: number;
      let endMatchingOther: number;
      do {
        groupSize = g.end - g.start;
        endMatchingOther = -1;
        while (g.slideUp()) if (!go.previous()) broken();
        earliestEnd = g.end;
        if (go.end > go.start) endMatchingOther = g.end;
        for (;;) {
          if (!g.slideDown()) break;
          if (!go.next()) broken();
          if (go.end > go.start) endMatchingOther = g.end;
        }
      } while (groupSize !== g.end - g.start);
      if (g.end === earliestEnd) {
        // it cannot move
      } else if (endMatchingOther !== -1) {
        while (go.end === go.start) {
          if (!g.slideUp()) broken();
          if (!go.previous()) broken();
        }
      } else if (indentHeuristic) {
        let shift = earliestEnd;
        if (g.end - groupSize - 1 > shift) shift = g.end - groupSize - 1;
        if (g.end - INDENT_HEURISTIC_MAX_SLIDING > shift) shift = g.end - INDENT_HEURISTIC_MAX_SLIDING;
        let bestShift = -1;
        let bestIndent = 0;
        let bestPenalty = 0;
        for (; shift <= g.end; shift++) {
          score[0] = 0;
          score[1] = 0;
          scoreSplit(side, shift, score);
          scoreSplit(side, shift - groupSize, score);
          const cmp = INDENT_WEIGHT * Math.sign(score[0] - bestIndent) + (score[1] - bestPenalty);
          if (bestShift === -1 || cmp <= 0) {
            bestIndent = score[0];
            bestPenalty = score[1];
            bestShift = shift;
          }
        }
        while (g.end > bestShift) {
          if (!g.slideUp()) broken();
          if (!go.previous()) broken();
        }
      }
    }
    if (!g.next()) break;
    if (!go.next()) broken();
  }
}

/**
 * The changed lines of both files (`changed[i + 1]` for line i), as git's default diff marks
 * them: classify, search, slide.
 */
function diffSides(x: Side, y: Side, countX: Int32Array, countY: Int32Array): void {
  prepare(x, y, countX, countY);
  compareRecords(x, y, false);
  compact(x, y);
  compact(y, x);
}

/** Changes as xdl_build_script lists them: [i1, i2, chg1, chg2] per change, in order. */
function changesOf(x: Side, y: Side): Int32Array {
  // Each change holds at least one changed line: room for as many changes as lines (untouched memory costs nothing).
  const out = new Int32Array(4 * (x.count + y.count));
  let n = 0;
  let i1 = 0;
  let i2 = 0;
  const c1 = x.changed;
  const c2 = y.changed;
  while (i1 < x.count || i2 < y.count) {
    if (c1[i1 + 1] || c2[i2 + 1]) {
      const s1 = i1;
      const s2 = i2;
      while (c1[i1 + 1]) i1++;
      while (c2[i2 + 1]) i2++;
      out[n++] = s1;
      out[n++] = s2;
      out[n++] = i1 - s1;
      out[n++] = i2 - s2;
    } else {
      i1++;
      i2++;
    }
  }
  return out.subarray(0, n);
}

// ---- entry points --------------------------------------------------------------------------

function byteIndent(lines: Lines): (line: number) => number {
  const { bytes, starts } = lines;
  return (line) => {
    const start = starts[line];
    return indentOfCodes((k) => bytes[start + k], starts[line + 1] - start);
  };
}

/** One version of a file numbered by a LineNumbering: its lines, and each line's number. */
export interface NumberedVersion {
  readonly lines: Lines;
  readonly ids: Int32Array;
}

/**
 * Lines numbered by their bytes (newline included, as xdiff compares records) across many diffs of
 * versions of one file — blame compares each version with its parent's, and most versions twice:
 * each version is split and numbered once, and lines with the same bytes in any two versions have
 * the same number. An open-addressing table keyed by each line's hash, a hit confirmed by
 * comparing the bytes (the classifier of numberLines, kept across versions).
 */
export class LineNumbering {
  #slotHash = new Int32Array(1 << 12);
  /** class + 1; 0 = empty. */
  #slotClass = new Int32Array(1 << 12);
  #classBytes: Uint8Array[] = [];
  #classStart = new Int32Array(1 << 11);
  #classLength = new Int32Array(1 << 11);
  #classes = 0;
  /** Per-number counts of the two sides of one diff, cleared after it (sized to every number given). */
  #countA = new Int32Array(0);
  #countB = new Int32Array(0);

  /**
   * `bytes` split into lines and numbered. With `like`, a version numbered before that `bytes`
   * mostly shares (blame's child of a parent version), the lines wholly inside the bytes both have
   * in common at the start and at the end are that version's lines, moved: their bytes are
   * compared once, never hashed nor looked up; only the lines between are split and numbered.
   */
  version(bytes: Uint8Array, like?: NumberedVersion): NumberedVersion {
    if (!like) {
      const lines = linesOf(bytes);
      return {
        lines,
        ids: this.#number(bytes, lines.starts, lines.hashes, 0, lines.count, new Int32Array(lines.count)),
      };
    }
    const near = like.lines;
    const old = near.bytes;
    const most = Math.min(old.length, bytes.length);
    const prefix = commonStart(old, bytes, most);
    const suffix = commonEnd(old, bytes, most - prefix);
    // Lines of `like` that end with their newline inside the common start are lines of `bytes` too.
    let head = 0;
    while (head < near.count && near.starts[head + 1] <= prefix && old[near.starts[head + 1] - 1] === 0x0a) head++;
    // Lines whose newline before them is inside the common end are lines of `bytes` too, moved by `shift`.
    const shift = bytes.length - old.length;
    let tail = near.count;
    while (tail > head && near.starts[tail - 1] > old.length - suffix) tail--;
    const middleFrom = near.starts[head];
    const middleTo = tail < near.count ? near.starts[tail] + shift : bytes.length;
    const middle = linesOf(bytes.subarray(middleFrom, middleTo));
    const count = head + middle.count + (near.count - tail);
    const starts = new Int32Array(count + 1);
    const hashes = new Int32Array(count);
    const ids = new Int32Array(count);
    starts.set(near.starts.subarray(0, head));
    hashes.set(near.hashes.subarray(0, head));
    ids.set(like.ids.subarray(0, head));
    for (let i = 0; i < middle.count; i++) starts[head + i] = middle.starts[i] + middleFrom;
    hashes.set(middle.hashes.subarray(0, middle.count), head);
    const after = head + middle.count;
    for (let i = tail; i < near.count; i++) starts[after + i - tail] = near.starts[i] + shift;
    hashes.set(near.hashes.subarray(tail, near.count), after);
    ids.set(like.ids.subarray(tail, near.count), after);
    starts[count] = bytes.length;
    this.#number(bytes, starts, hashes, head, after, ids);
    const ascii = near.ascii && middle.ascii ? true : bytes.every((c) => c < 0x80);
    return { lines: { bytes, starts, hashes, count, ascii }, ids };
  }

  /** Numbers lines [from, to) of `bytes` (their starts and hashes given) into `ids`; returns `ids`. */
  #number(
    bytes: Uint8Array,
    starts: Int32Array,
    hashes: Int32Array,
    from: number,
    to: number,
    ids: Int32Array,
  ): Int32Array {
    for (let i = from; i < to; i++) {
      if (2 * (this.#classes + 1) > this.#slotClass.length) this.#grow();
      const start = starts[i];
      const length = starts[i + 1] - start;
      const h = hashes[i];
      const mask = this.#slotClass.length - 1;
      const slotHash = this.#slotHash;
      const slotClass = this.#slotClass;
      let slot = (Math.imul(h, 0x9e3779b1) >>> 0) & mask;
      for (;;) {
        const found = slotClass[slot];
        if (found === 0) {
          const c = this.#classes++;
          if (c >= this.#classStart.length) {
            const start2 = new Int32Array(2 * c);
            start2.set(this.#classStart);
            this.#classStart = start2;
            const length2 = new Int32Array(2 * c);
            length2.set(this.#classLength);
            this.#classLength = length2;
          }
          slotHash[slot] = h;
          slotClass[slot] = c + 1;
          this.#classBytes.push(bytes);
          this.#classStart[c] = start;
          this.#classLength[c] = length;
          ids[i] = c;
          break;
        }
        const c = found - 1;
        if (
          slotHash[slot] === h && this.#classLength[c] === length &&
          sameBytes(this.#classBytes[c], this.#classStart[c], bytes, start, length)
        ) {
          ids[i] = c;
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    return ids;
  }

  #grow(): void {
    const capacity = 2 * this.#slotClass.length;
    const mask = capacity - 1;
    const slotHash = new Int32Array(capacity);
    const slotClass = new Int32Array(capacity);
    for (let k = 0; k < this.#slotClass.length; k++) {
      const found = this.#slotClass[k];
      if (found === 0) continue;
      const h = this.#slotHash[k];
      let slot = (Math.imul(h, 0x9e3779b1) >>> 0) & mask;
      while (slotClass[slot] !== 0) slot = (slot + 1) & mask;
      slotHash[slot] = h;
      slotClass[slot] = found;
    }
    this.#slotHash = slotHash;
    this.#slotClass = slotClass;
  }

  /**
   * For each of the first `bCount` lines of `b`, the line among the first `aCount` of `a` it is
   * kept from, or -1 for an added line, as git's default diff of those lines aligns them (for
   * blame, which hands kept lines on to the parent).
   */
  kept(a: NumberedVersion, aCount: number, b: NumberedVersion, bCount: number): Int32Array {
    const x = sideOf(a.ids.subarray(0, aCount), byteIndent(a.lines));
    const y = sideOf(b.ids.subarray(0, bCount), byteIndent(b.lines));
    if (this.#countA.length < this.#classes) {
      const size = Math.max(this.#classes, 2 * this.#countA.length);
      this.#countA = new Int32Array(size);
      this.#countB = new Int32Array(size);
    }
    const countA = this.#countA;
    const countB = this.#countB;
    for (let i = 0; i < x.count; i++) countA[x.ids[i]]++;
    for (let i = 0; i < y.count; i++) countB[y.ids[i]]++;
    try {
      diffSides(x, y, countA, countB);
    } finally {
      for (let i = 0; i < x.count; i++) countA[x.ids[i]] = 0;
      for (let i = 0; i < y.count; i++) countB[y.ids[i]] = 0;
    }
    const out = new Int32Array(bCount).fill(-1);
    let i1 = 0;
    for (let i2 = 0; i2 < bCount; i2++) {
      if (y.changed[i2 + 1]) continue;
      while (x.changed[i1 + 1]) i1++;
      out[i2] = i1++;
    }
    return out;
  }
}

/**
 * How a file's lines are shown: UTF-8 when the whole file is valid UTF-8 (a BOM kept), else one
 * character per byte (Latin-1 `é` reads as é), so every byte stays distinct.
 */
function isUtf8(bytes: Uint8Array, ascii: boolean): boolean {
  if (ascii) return true;
  try {
    fatalUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Where the patch's bytes go. They become a string in runs: a run of bytes from a UTF-8 file
 * (or pterm's own ASCII) is decoded as UTF-8, one from any other file one character per byte.
 */
interface PatchSink {
  /** Lines [from, to) of file a (or b), each after `prefix`. */
  lines(b: boolean, prefix: number, from: number, to: number): void;
  /** Bytes [start, end) of file a after `prefix` (the function line after `@@`). */
  bytesOfA(prefix: number, start: number, end: number): void;
  /** ASCII text of pterm's own (headers, markers). */
  ascii(text: string): void;
  /** Bytes that follow are shown as UTF-8 (or, with false, one character per byte). */
  mode(utf8: boolean): void;
  text(): string;
  bytes(): Uint8Array;
}

/** Decoding of runs, shared by both sinks. */
abstract class Runs {
  #utf8 = true;
  /** The runs' bytes as they were (copies: a run may be a view of memory written again later), each with how it reads. */
  readonly #runs: { bytes: Uint8Array; utf8: boolean }[] = [];
  protected abstract take(): Uint8Array;

  mode(utf8: boolean): void {
    if (utf8 === this.#utf8) return;
    this.#flush();
    this.#utf8 = utf8;
  }

  #flush(): void {
    const run = this.take();
    if (run.length) this.#runs.push({ bytes: run.slice(), utf8: this.#utf8 });
  }

  text(): string {
    this.#flush();
    return this.#runs.map((run) => run.utf8 ? utf8.decode(run.bytes) : bytesToByteString(run.bytes)).join("");
  }

  /** The bytes of every run, in order. */
  bytes(): Uint8Array {
    this.#flush();
    return concatBytes(this.#runs.map((run) => run.bytes));
  }
}

/** The parts one after the other, in one array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The patch built in WebAssembly memory, next to the files (line_scan.ts). */
class ScanSink extends Runs implements PatchSink {
  #from: number;
  constructor(readonly scan: LineScan) {
    super();
    this.#from = scan.outEnd;
  }
  protected take(): Uint8Array {
    const run = this.scan.out(this.#from, this.scan.outEnd);
    this.#from = this.scan.outEnd;
    return run;
  }
  lines(b: boolean, prefix: number, from: number, to: number): void {
    this.scan.lines(b, prefix, from, to);
  }
  bytesOfA(prefix: number, start: number, end: number): void {
    this.scan.bytesOfA(prefix, start, end);
  }
  ascii(text: string): void {
    this.scan.ascii(text);
  }
}

/** The patch built in JavaScript (files too large for 32-bit WebAssembly memory). */
class ArraySink extends Runs implements PatchSink {
  #out: Uint8Array;
  #at = 0;

  constructor(readonly a: Lines, readonly b: Lines) {
    super();
    this.#out = new Uint8Array(Math.max(1 << 16, (a.bytes.length + b.bytes.length) >> 2));
  }

  protected take(): Uint8Array {
    // A view: Runs copies it before the buffer is written again.
    const run = this.#out.subarray(0, this.#at);
    this.#at = 0;
    return run;
  }

  #room(n: number): void {
    if (this.#at + n <= this.#out.length) return;
    let size = this.#out.length * 2;
    while (size < this.#at + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.#out.subarray(0, this.#at));
    this.#out = grown;
  }

  ascii(text: string): void {
    this.#room(text.length);
    const out = this.#out;
    let at = this.#at;
    for (let k = 0; k < text.length; k++) out[at++] = text.charCodeAt(k);
    this.#at = at;
  }

  bytesOfA(prefix: number, start: number, end: number): void {
    this.#room(end - start + 1);
    const out = this.#out;
    const bytes = this.a.bytes;
    let at = this.#at;
    out[at++] = prefix;
    for (let p = start; p < end; p++) out[at++] = bytes[p];
    this.#at = at;
  }

  /** One pass over the lines' bytes (they lie next to each other), the prefix put after each newline but the last. */
  lines(b: boolean, prefix: number, from: number, to: number): void {
    const { bytes, starts } = b ? this.b : this.a;
    const start = starts[from];
    const end = starts[to];
    this.#room(end - start + (to - from));
    const out = this.#out;
    let at = this.#at;
    out[at++] = prefix;
    for (let p = start; p < end - 1; p++) {
      const c = bytes[p];
      out[at++] = c;
      if (c === 10) out[at++] = prefix;
    }
    out[at++] = bytes[end - 1];
    this.#at = at;
  }
}

/**
 * The end of the longest valid UTF-8 prefix of bytes [start, end): git cuts a hunk header there
 * (diff.c's sane_truncate_line, with utf8.c's rules: no overlong forms, surrogates, U+FFFE/U+FFFF
 * or code points past U+10FFFF).
 */
function utf8Prefix(bytes: Uint8Array, start: number, end: number): number {
  let p = start;
  while (p < end) {
    const c = bytes[p];
    const next = (k: number) => p + k < end && (bytes[p + k] & 0xc0) === 0x80;
    let length: number;
    if (c < 0x80) length = 1;
    else if ((c & 0xe0) === 0xc0) length = next(1) && (c & 0xfe) !== 0xc0 ? 2 : 0;
    else if ((c & 0xf0) === 0xe0) {
      const c1 = bytes[p + 1];
      length = next(1) && next(2) && !(c === 0xe0 && (c1 & 0xe0) === 0x80) &&
          !(c === 0xed && (c1 & 0xe0) === 0xa0) && !(c === 0xef && c1 === 0xbf && (bytes[p + 2] & 0xfe) === 0xbe)
        ? 3
        : 0;
    } else if ((c & 0xf8) === 0xf0) {
      const c1 = bytes[p + 1];
      length = next(1) && next(2) && next(3) && !(c === 0xf0 && (c1 & 0xf0) === 0x80) &&
          !(c === 0xf4 && c1 > 0x8f) && c <= 0xf4
        ? 4
        : 0;
    } else length = 0;
    if (length === 0) return p;
    p += length;
  }
  return p;
}

/**
 * The last of lines [from, to) that git's default function-line rule takes (it starts with a
 * letter, `_` or `$`), or `found` if none does. A function of its own: this loop visits every
 * line of the file, and a small function is cheap for the JIT to optimize.
 */
function lastFunctionLine(bytes: Uint8Array, starts: Int32Array, from: number, to: number, found: number): number {
  for (let i = from; i < to; i++) {
    const c = bytes[starts[i]];
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24) found = i;
  }
  return found;
}

function range(start: number, count: number): string {
  // git's xdl_emit_hunk_hdr: an empty side names the line before it.
  const s = count === 0 ? start - 1 : start;
  return count === 1 ? `${s}` : `${s},${count}`;
}

const SPACE = 0x20;
const MINUS = 0x2d;
const PLUS = 0x2b;

/**
 * Where the work runs: WebAssembly (line_scan.ts) unless the files do not fit its memory; "js"
 * all in JavaScript; "wasm-lines" lines found and numbered in WebAssembly, the diff in JavaScript
 * (what happens when the memory for the search cannot be had; the tests run it directly).
 */
export type Engine = "wasm" | "js" | "wasm-lines";

/**
 * Which of git's line diffs (diff.c's `--diff-algorithm`, `diff.algorithm`): xdiff's Myers (git's
 * default; `minimal` is its XDF_NEED_MINIMAL, the search without its cost bounds) or another
 * search that marks the changed lines before they are slid — histogram.ts's `histogramChanged`
 * for git's histogram diff (given here rather than imported: histogram.ts falls back to this
 * file's Myers). With `minimal`, that fall-back is minimal too, as in git.
 */
export interface LineAlgorithm {
  readonly search:
    | ((a: Int32Array, b: Int32Array, classes: number, minimal: boolean) => [Uint8Array, Uint8Array])
    | null;
  readonly minimal: boolean;
}

export const DEFAULT_ALGORITHM: LineAlgorithm = { search: null, minimal: false };

/**
 * A patch body: `bytes` exactly as git writes it (each file's own bytes), and `text` the same
 * shown as a string (a UTF-8 file's lines decoded, any other file's one character per byte),
 * decoded only when asked for.
 */
export class UnifiedDiff {
  #text: string | undefined;
  constructor(
    readonly bytes: Uint8Array,
    /** Both files are UTF-8 (or ASCII): `text` is `bytes` decoded as UTF-8. */
    readonly utf8: boolean,
    readonly add: number,
    readonly del: number,
    text?: string,
  ) {
    this.#text = text;
  }

  get text(): string {
    return this.#text ??= this.utf8 ? utf8.decode(this.bytes) : bytesToByteString(this.bytes);
  }
}

const NO_CHANGES = new UnifiedDiff(new Uint8Array(0), true, 0, 0);

/**
 * The body of a unified diff (`@@` headers with git's default function line, then the lines)
 * from `before` to `after`, with the counts of added and removed lines. Lines are compared as
 * bytes; the bytes are git's, and the text shows each file's lines as UTF-8 if it is UTF-8, else
 * one character per byte.
 */
export function unifiedDiff(
  before: Uint8Array,
  after: Uint8Array,
  context: number,
  engine: Engine = "wasm",
  algorithm: LineAlgorithm = DEFAULT_ALGORITHM,
): UnifiedDiff {
  const scan = engine !== "js" ? LineScan.of(before, after) : null;
  let la: Lines;
  let lb: Lines;
  let changes: Int32Array | null = null;
  if (scan) {
    // Line starts are copied out of WebAssembly memory only if JavaScript reads them.
    la = {
      bytes: before,
      get starts() {
        return scan.aStarts;
      },
      hashes: new Int32Array(0),
      count: scan.aCount,
      ascii: scan.aAscii,
    };
    lb = {
      bytes: after,
      get starts() {
        return scan.bStarts;
      },
      hashes: new Int32Array(0),
      count: scan.bCount,
      ascii: scan.bAscii,
    };
    // The whole diff in WebAssembly (the same steps as diffSides and changesOf): git's default only.
    if (engine === "wasm" && !algorithm.search && !algorithm.minimal) changes = scan.diff();
  } else {
    la = linesOf(before);
    lb = linesOf(after);
  }
  if (!changes) {
    const numbered: Numbered = scan
      ? { a: scan.aIds, b: scan.bIds, classes: scan.classes, countA: scan.aCounts, countB: scan.bCounts }
      : numberLines(la, lb);
    const x = sideOf(numbered.a, byteIndent(la));
    const y = sideOf(numbered.b, byteIndent(lb));
    if (algorithm.search) {
      // xdiff runs the histogram diff on the whole files (no xdl_trim_ends, no xdl_cleanup_records).
      const [changedA, changedB] = algorithm.search(numbered.a, numbered.b, numbered.classes, algorithm.minimal);
      x.changed.set(changedA);
      y.changed.set(changedB);
    } else {
      prepare(x, y, numbered.countA, numbered.countB);
      compareRecords(x, y, algorithm.minimal);
    }
    compact(x, y);
    compact(y, x);
    changes = changesOf(x, y);
  }
  if (changes.length === 0) return NO_CHANGES;
  const utf8A = isUtf8(before, la.ascii);
  const utf8B = isUtf8(after, lb.ascii);
  const noEolA = la.count > 0 && before[before.length - 1] !== 10 ? la.count - 1 : -1;
  const noEolB = lb.count > 0 && after[after.length - 1] !== 10 ? lb.count - 1 : -1;
  const { add, del } = changedLines(changes);
  if (scan) {
    try {
      if (utf8A === utf8B) {
        // Both files shown alike: the whole patch written in WebAssembly, copied out once (the
        // memory goes with the scan), decoded only if the text is asked for.
        return new UnifiedDiff(scan.patch(changes, context, noEolA, noEolB).slice(), utf8A, add, del);
      }
      const out = new ScanSink(scan);
      writeHunks(out, changes, context, { before, la, lb, utf8A, utf8B, noEolA, noEolB });
      const text = out.text();
      return new UnifiedDiff(out.bytes(), false, add, del, text);
    } catch (error) {
      // Memory for the patch could not be had (files near 32-bit WebAssembly's limit): JavaScript writes it.
      if (!(error instanceof RangeError)) throw error;
    }
  }
  const out = new ArraySink(la, lb);
  writeHunks(out, changes, context, { before, la, lb, utf8A, utf8B, noEolA, noEolB });
  const text = utf8A === utf8B ? undefined : out.text();
  return new UnifiedDiff(out.bytes(), utf8A && utf8B, add, del, text);
}

/** Lines removed (chg1) and added (chg2) over all changes. */
function changedLines(changes: Int32Array): { add: number; del: number } {
  let add = 0;
  let del = 0;
  for (let k = 0; k < changes.length; k += 4) {
    del += changes[k + 2];
    add += changes[k + 3];
  }
  return { add, del };
}

interface HunkFiles {
  readonly before: Uint8Array;
  readonly la: Lines;
  readonly lb: Lines;
  readonly utf8A: boolean;
  readonly utf8B: boolean;
  /** The index of a last line without its newline, or -1. */
  readonly noEolA: number;
  readonly noEolB: number;
}

/**
 * The patch body in JavaScript, as xdl_emit_diff writes it (the same steps as line_scan.ts's
 * `patch`): changes at most 2 × context lines apart joined into one hunk, git's default function
 * line after each `@@`, the lines with their prefixes. Used where the two files are shown
 * differently (one UTF-8, one not) or WebAssembly memory cannot be had.
 */
function writeHunks(out: PatchSink, changes: Int32Array, context: number, files: HunkFiles): void {
  const { before, la, lb, utf8A, utf8B, noEolA, noEolB } = files;
  /** Lines [from, to) of one side, then git's marker if the last of them lacks its newline. */
  const run = (prefix: number, b: boolean, from: number, to: number) => {
    if (from >= to) return;
    out.mode(b ? utf8B : utf8A);
    out.lines(b, prefix, from, to);
    if (to - 1 === (b ? noEolB : noEolA)) out.ascii(NO_NEWLINE_MARKER);
  };
  // The nearest function line before each hunk: hunks come in order, so one pass over the file.
  let scanned = 0;
  let found = -1;
  const maxCommon = 2 * context;
  const n = changes.length / 4;
  for (let first = 0; first < n;) {
    let last = first;
    while (last + 1 < n) {
      const distance = changes[(last + 1) * 4] - (changes[last * 4] + changes[last * 4 + 2]);
      if (distance > maxCommon) break;
      last++;
    }
    const s1 = Math.max(changes[first * 4] - context, 0);
    const s2 = Math.max(changes[first * 4 + 1] - context, 0);
    const e1 = Math.min(changes[last * 4] + changes[last * 4 + 2] + context, la.count);
    const e2 = Math.min(changes[last * 4 + 1] + changes[last * 4 + 3] + context, lb.count);
    found = lastFunctionLine(before, la.starts, scanned, s1, found);
    scanned = s1;
    out.ascii(`@@ -${range(s1 + 1, e1 - s1)} +${range(s2 + 1, e2 - s2)} @@`);
    if (found >= 0) {
      // git's def_ff: the line's first 80 bytes, trailing white space dropped.
      const start = la.starts[found];
      let end = Math.min(la.starts[found + 1], start + 80);
      while (end > start && (before[end - 1] === 0x20 || (before[end - 1] >= 0x09 && before[end - 1] <= 0x0d))) end--;
      end = utf8Prefix(before, start, end);
      out.mode(utf8A);
      out.bytesOfA(SPACE, start, end);
    }
    out.ascii("\n");
    let i1 = s1;
    for (let k = first; k <= last; k++) {
      const c1 = changes[k * 4];
      const c2 = changes[k * 4 + 1];
      const chg1 = changes[k * 4 + 2];
      const chg2 = changes[k * 4 + 3];
      run(SPACE, false, i1, c1);
      run(MINUS, false, c1, c1 + chg1);
      run(PLUS, true, c2, c2 + chg2);
      i1 = c1 + chg1;
    }
    run(SPACE, false, i1, e1);
    first = last + 1;
  }
}

/**
 * xdl_do_diff with git's default algorithm (xdl_trim_ends and xdl_cleanup_records, then
 * xdl_recs_cmp), before any sliding: each side's changed flags (`changed[i + 1]` for line i), on
 * lines numbered so that equal numbers are equal lines (`classes` numbers in all). The histogram
 * diff falls back to it, and the three-way merge runs it under merge-file's default algorithm.
 */
export function myersChanged(
  a: Int32Array,
  b: Int32Array,
  classes: number,
  minimal = false,
): [Uint8Array, Uint8Array] {
  const x = sideOf(a, () => 0);
  const y = sideOf(b, () => 0);
  const countX = new Int32Array(classes);
  const countY = new Int32Array(classes);
  for (const id of a) countX[id]++;
  for (const id of b) countY[id]++;
  prepare(x, y, countX, countY);
  compareRecords(x, y, minimal);
  return [x.changed, y.changed];
}

/**
 * The changes from `before` to `after` as git's line diff finds them (the same search and
 * sliding as `unifiedDiff`), without writing a patch: [i1, i2, chg1, chg2] per change, lines
 * counted from 0. For callers that lay out the lines themselves (the combined diff); without
 * `indentHeuristic`, groups are slid as xdiff slides them with no flags (line-log's diff).
 */
export function lineChanges(
  before: Uint8Array,
  after: Uint8Array,
  algorithm: LineAlgorithm = DEFAULT_ALGORITHM,
  indentHeuristic = true,
): Int32Array {
  const la = linesOf(before);
  const lb = linesOf(after);
  const numbered = numberLines(la, lb);
  const x = sideOf(numbered.a, byteIndent(la));
  const y = sideOf(numbered.b, byteIndent(lb));
  if (algorithm.search) {
    const [changedA, changedB] = algorithm.search(numbered.a, numbered.b, numbered.classes, algorithm.minimal);
    x.changed.set(changedA);
    y.changed.set(changedB);
  } else {
    prepare(x, y, numbered.countA, numbered.countB);
    compareRecords(x, y, algorithm.minimal);
  }
  compact(x, y, indentHeuristic);
  compact(y, x, indentHeuristic);
  return changesOf(x, y).slice();
}
