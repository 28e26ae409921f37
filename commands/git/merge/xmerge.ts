/**
 * git's three-way text merge, xdiff's xdl_merge (xmerge.c), on bytes: each side is diffed
 * against the base (histogram diff by default, as merge-ort hard-codes it; Myers as `git
 * merge-file` uses it), the change groups slid as xdl_change_compact slides them (no indent
 * heuristic: merges do not set it), and the two scripts walked together — a change only one side
 * made is taken, changes that overlap or touch are a conflict unless identical; at the zealous
 * level a conflict is diffed again between its two sides and cut where they agree, and conflicts
 * at most three lines apart are joined (xdl_simplify_non_conflicts). Conflict styles `merge`,
 * `diff3` and `zdiff3`, favouring one side (`ours`, `theirs`, `union`), marker size and the
 * conflict markers' line ends (is_cr_needed) are git's.
 *
 * Texts are byte strings (one character per byte), so every encoding and line end goes through
 * unchanged; a line is its bytes up to and including `\n` (a last line without one is a line too).
 */

import { histogramChanged } from "../diff/histogram.ts";
import { ChangeGroup, myersChanged } from "../diff/line_diff.ts";

export type DiffAlgorithm = "histogram" | "myers";

/** git's XDL_MERGE_* levels. */
export const MERGE_MINIMAL = 0;
export const MERGE_EAGER = 1;
export const MERGE_ZEALOUS = 2;
export const MERGE_ZEALOUS_ALNUM = 3;

export type ConflictStyle = "merge" | "diff3" | "zdiff3";
export type Favor = "ours" | "theirs" | "union";

export interface XmergeOptions {
  readonly algorithm?: DiffAlgorithm;
  /** XDL_MERGE_ZEALOUS (git's merges) unless given. */
  readonly level?: number;
  readonly style?: ConflictStyle;
  readonly favor?: Favor;
  /** Length of the conflict markers (7 unless given). */
  readonly markerSize?: number;
  /** Labels after the markers: `<<<<<<< ours`, `||||||| base`, `>>>>>>> theirs`; none when absent. */
  readonly ours?: string;
  readonly base?: string;
  readonly theirs?: string;
}

export interface XmergeResult {
  readonly text: string;
  readonly conflicts: number;
}

/** A text's lines, each with its line end. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const end = text.indexOf("\n", start);
    if (end < 0) break;
    lines.push(text.slice(start, end + 1));
    start = end + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** One change of a diff script: lines [i1, i1 + chg1) of the first file became [i2, i2 + chg2) of the second. */
export interface Change {
  readonly i1: number;
  readonly i2: number;
  readonly chg1: number;
  readonly chg2: number;
}

/** Numbers both files' lines (equal numbers = equal bytes), the first file's first, as xdiff's classifier does. */
function numberLines(a: readonly string[], b: readonly string[]): { a: Int32Array; b: Int32Array; classes: number } {
  const numbers = new Map<string, number>();
  const number = (lines: readonly string[]) => {
    const ids = new Int32Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      let id = numbers.get(lines[i]);
      if (id === undefined) numbers.set(lines[i], id = numbers.size);
      ids[i] = id;
    }
    return ids;
  };
  const ids = number(a);
  return { a: ids, b: number(b), classes: numbers.size };
}

function outOfStep(): never {
  throw new Error("xmerge: change groups out of step");
}

/** xdl_change_compact without the indent heuristic: each group slid down as far as it goes, then up to meet the other file's change. */
function compact(ids: Int32Array, changed: Uint8Array, otherIds: Int32Array, otherChanged: Uint8Array): void {
  const g = new ChangeGroup(ids, changed);
  const go = new ChangeGroup(otherIds, otherChanged);
  for (;;) {
    if (g.end !== g.start) {
      let groupSize: number;
      let earliestEnd: number;
      let endMatchingOther: number;
      do {
        groupSize = g.end - g.start;
        endMatchingOther = -1;
        while (g.slideUp()) if (!go.previous()) outOfStep();
        earliestEnd = g.end;
        if (go.end > go.start) endMatchingOther = g.end;
        while (g.slideDown()) {
          if (!go.next()) outOfStep();
          if (go.end > go.start) endMatchingOther = g.end;
        }
      } while (groupSize !== g.end - g.start);
      if (g.end !== earliestEnd && endMatchingOther !== -1) {
        while (go.end === go.start) {
          if (!g.slideUp()) outOfStep();
          if (!go.previous()) outOfStep();
        }
      }
    }
    if (!g.next()) break;
    if (!go.next()) outOfStep();
  }
}

/** xdl_do_diff, both xdl_change_compact passes and xdl_build_script: the changes from `a` to `b`. */
export function diffScript(a: readonly string[], b: readonly string[], algorithm: DiffAlgorithm): Change[] {
  const numbered = numberLines(a, b);
  const [changedA, changedB] = algorithm === "histogram"
    ? histogramChanged(numbered.a, numbered.b, numbered.classes)
    : myersChanged(numbered.a, numbered.b, numbered.classes);
  compact(numbered.a, changedA, numbered.b, changedB);
  compact(numbered.b, changedB, numbered.a, changedA);
  const script: Change[] = [];
  let i1 = 0;
  let i2 = 0;
  while (i1 < a.length || i2 < b.length) {
    if (changedA[i1 + 1] || changedB[i2 + 1]) {
      const s1 = i1;
      const s2 = i2;
      while (changedA[i1 + 1]) i1++;
      while (changedB[i2 + 1]) i2++;
      script.push({ i1: s1, i2: s2, chg1: i1 - s1, chg2: i2 - s2 });
    } else {
      i1++;
      i2++;
    }
  }
  return script;
}

/**
 * One region of the merge (xmerge.c's xdmerge_t): base lines [i0, i0 + chg0) against ours
 * [i1, i1 + chg1) and theirs [i2, i2 + chg2). Mode 0: conflict; 1: take ours; 2: take theirs;
 * 3: both (union); 4: both sides made the same change (found while refining).
 */
interface Hunk {
  mode: number;
  i0: number;
  chg0: number;
  i1: number;
  chg1: number;
  i2: number;
  chg2: number;
}

/** xdl_append_merge: a region that overlaps or touches the last one extends it (a conflict if their modes differ). */
function appendHunk(hunks: Hunk[], next: Hunk): void {
  const m = hunks[hunks.length - 1];
  if (m && (next.i1 <= m.i1 + m.chg1 || next.i2 <= m.i2 + m.chg2)) {
    if (next.mode !== m.mode) m.mode = 0;
    m.chg0 = next.i0 + next.chg0 - m.i0;
    m.chg1 = next.i1 + next.chg1 - m.i1;
    m.chg2 = next.i2 + next.chg2 - m.i2;
  } else hunks.push(next);
}

function sameLines(a: readonly string[], i: number, b: readonly string[], j: number, count: number): boolean {
  for (let k = 0; k < count; k++) if (a[i + k] !== b[j + k]) return false;
  return true;
}

/** xdl_refine_zdiff3_conflicts: lines both sides share at a conflict's start and end leave it. */
function trimConflicts(hunks: Hunk[], ours: readonly string[], theirs: readonly string[]): void {
  for (const m of hunks) {
    if (m.mode) continue;
    while (m.chg1 && m.chg2 && ours[m.i1] === theirs[m.i2]) {
      m.chg1--;
      m.chg2--;
      m.i1++;
      m.i2++;
    }
    while (m.chg1 && m.chg2 && ours[m.i1 + m.chg1 - 1] === theirs[m.i2 + m.chg2 - 1]) {
      m.chg1--;
      m.chg2--;
    }
  }
}

/** xdl_refine_conflicts: each conflict's two sides diffed against each other; only what differs stays a conflict. */
function refineConflicts(
  hunks: Hunk[],
  ours: readonly string[],
  theirs: readonly string[],
  algorithm: DiffAlgorithm,
): Hunk[] {
  const out: Hunk[] = [];
  for (const m of hunks) {
    if (m.mode || m.chg1 === 0 || m.chg2 === 0) {
      out.push(m);
      continue;
    }
    const script = diffScript(ours.slice(m.i1, m.i1 + m.chg1), theirs.slice(m.i2, m.i2 + m.chg2), algorithm);
    if (script.length === 0) {
      m.mode = 4;
      out.push(m);
      continue;
    }
    // Offsets are relative to the conflict's start on each side. As in git, every piece keeps the
    // whole conflict's base range (read only by the diff3 styles, which never refine).
    const { i1, i2 } = m;
    for (const [k, change] of script.entries()) {
      const piece = k === 0 ? m : { ...m, mode: 0 };
      piece.i1 = change.i1 + i1;
      piece.chg1 = change.chg1;
      piece.i2 = change.i2 + i2;
      piece.chg2 = change.chg2;
      out.push(piece);
    }
  }
  return out;
}

/** Whether any of the lines holds a letter or digit (C's isalnum in the C locale). */
function anyAlnum(lines: readonly string[], from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (/[0-9A-Za-z]/.test(lines[i])) return true;
  return false;
}

/**
 * xdl_simplify_non_conflicts: two conflicts at most three lines apart (at the ALNUM level, any
 * distance of lines without a letter or digit) become one, the lines between them in both sides.
 */
function joinConflicts(hunks: Hunk[], ours: readonly string[], ifNoAlnum: boolean): Hunk[] {
  const out: Hunk[] = [];
  for (const next of hunks) {
    const m = out[out.length - 1];
    if (m && m.mode === 0 && next.mode === 0) {
      const begin = m.i1 + m.chg1;
      const end = next.i1;
      if (end - begin <= 3 || (ifNoAlnum && !anyAlnum(ours, begin, end))) {
        m.chg1 = next.i1 + next.chg1 - m.i1;
        m.chg2 = next.i2 + next.chg2 - m.i2;
        continue;
      }
    }
    out.push(next);
  }
  return out;
}

/**
 * is_eol_crlf: 1 when line i ends with CRLF (a last line without a line end: the line before
 * it), 0 when with LF, -1 when nothing tells (no lines, or a single line without a line end).
 */
function eolIsCrlf(lines: readonly string[], i: number): number {
  const n = lines.length;
  const crlf = (line: string) => line.length > 1 && line.charCodeAt(line.length - 2) === 13 ? 1 : 0;
  if (i < n - 1) return crlf(lines[i]);
  if (n === 0) return -1;
  const line = lines[i];
  if (line.length && line.charCodeAt(line.length - 1) === 10) return crlf(line);
  if (i === 0) return -1;
  return crlf(lines[i - 1]);
}

/** Merges `base → ours` and `base → theirs` as git's xdl_merge does. */
export function xmerge(base: string, ours: string, theirs: string, options: XmergeOptions = {}): XmergeResult {
  const algorithm = options.algorithm ?? "histogram";
  const style = options.style ?? "merge";
  let level = options.level ?? MERGE_ZEALOUS;
  const baseLines = splitLines(base);
  const oursLines = splitLines(ours);
  const theirsLines = splitLines(theirs);
  const script1 = diffScript(baseLines, oursLines, algorithm);
  const script2 = diffScript(baseLines, theirsLines, algorithm);
  if (script1.length === 0) return { text: theirs, conflicts: 0 };
  if (script2.length === 0) return { text: ours, conflicts: 0 };

  // "diff3 -m" output makes no sense past the eager level (xdl_do_merge).
  if (style !== "merge" && level > MERGE_EAGER) level = MERGE_EAGER;
  let hunks: Hunk[] = [];
  let x = 0;
  let y = 0;
  while (x < script1.length && y < script2.length) {
    const c1 = script1[x];
    const c2 = script2[y];
    if (c1.i1 + c1.chg1 < c2.i1) {
      appendHunk(hunks, {
        mode: 1,
        i0: c1.i1,
        chg0: c1.chg1,
        i1: c1.i2,
        chg1: c1.chg2,
        i2: c2.i2 - c2.i1 + c1.i1,
        chg2: c1.chg1,
      });
      x++;
      continue;
    }
    if (c2.i1 + c2.chg1 < c1.i1) {
      appendHunk(hunks, {
        mode: 2,
        i0: c2.i1,
        chg0: c2.chg1,
        i1: c1.i2 - c1.i1 + c2.i1,
        chg1: c2.chg1,
        i2: c2.i2,
        chg2: c2.chg2,
      });
      y++;
      continue;
    }
    if (
      level === MERGE_MINIMAL || c1.i1 !== c2.i1 || c1.chg1 !== c2.chg1 || c1.chg2 !== c2.chg2 ||
      !sameLines(oursLines, c1.i2, theirsLines, c2.i2, c1.chg2)
    ) {
      const off = c1.i1 - c2.i1;
      const ffo = off + c1.chg1 - c2.chg1;
      let i0 = c1.i1;
      let i1 = c1.i2;
      let i2 = c2.i2;
      if (off > 0) {
        i0 -= off;
        i1 -= off;
      } else i2 += off;
      let chg0 = c1.i1 + c1.chg1 - i0;
      let chg1 = c1.i2 + c1.chg2 - i1;
      let chg2 = c2.i2 + c2.chg2 - i2;
      if (ffo < 0) {
        chg0 -= ffo;
        chg1 -= ffo;
      } else chg2 += ffo;
      appendHunk(hunks, { mode: 0, i0, chg0, i1, chg1, i2, chg2 });
    }
    const end1 = c1.i1 + c1.chg1;
    const end2 = c2.i1 + c2.chg1;
    if (end1 >= end2) y++;
    if (end2 >= end1) x++;
  }
  for (; x < script1.length; x++) {
    const c1 = script1[x];
    appendHunk(hunks, {
      mode: 1,
      i0: c1.i1,
      chg0: c1.chg1,
      i1: c1.i2,
      chg1: c1.chg2,
      i2: c1.i1 + theirsLines.length - baseLines.length,
      chg2: c1.chg1,
    });
  }
  for (; y < script2.length; y++) {
    const c2 = script2[y];
    appendHunk(hunks, {
      mode: 2,
      i0: c2.i1,
      chg0: c2.chg1,
      i1: c2.i1 + oursLines.length - baseLines.length,
      chg1: c2.chg1,
      i2: c2.i2,
      chg2: c2.chg2,
    });
  }
  if (style === "zdiff3") trimConflicts(hunks, oursLines, theirsLines);
  else if (level >= MERGE_ZEALOUS) {
    hunks = joinConflicts(refineConflicts(hunks, oursLines, theirsLines, algorithm), oursLines, level > MERGE_ZEALOUS);
  }
  return fill(hunks, baseLines, oursLines, theirsLines, style, options);
}

/** xdl_fill_merge_buffer and fill_conflict_hunk: the merged text and how many conflicts it has. */
function fill(
  hunks: readonly Hunk[],
  base: readonly string[],
  ours: readonly string[],
  theirs: readonly string[],
  style: ConflictStyle,
  options: XmergeOptions,
): XmergeResult {
  const size = options.markerSize && options.markerSize > 0 ? options.markerSize : 7;
  const favor = options.favor === "ours" ? 1 : options.favor === "theirs" ? 2 : options.favor === "union" ? 3 : 0;
  const out: string[] = [];
  /** Lines [from, from + count), a line end (CRLF when `crlf`) added after the last if it has none and `addEol`. */
  const copy = (lines: readonly string[], from: number, count: number, crlf: boolean, addEol: boolean) => {
    if (count < 1) return;
    for (let k = from; k < from + count; k++) out.push(lines[k]);
    const last = lines[from + count - 1];
    if (addEol && (last.length === 0 || last.charCodeAt(last.length - 1) !== 10)) out.push(crlf ? "\r\n" : "\n");
  };
  const marker = (char: string, label: string | undefined, crlf: boolean) =>
    out.push(char.repeat(size) + (label !== undefined ? ` ${label}` : "") + (crlf ? "\r\n" : "\n"));
  /** is_cr_needed: the markers end with CRLF when the lines before the conflict on both sides, and the base's first, do. */
  const crNeeded = (m: Hunk) => {
    let needs = eolIsCrlf(ours, m.i1 ? m.i1 - 1 : 0);
    if (needs) needs = eolIsCrlf(theirs, m.i2 ? m.i2 - 1 : 0);
    if (needs) needs = eolIsCrlf(base, 0);
    return needs > 0;
  };
  let conflicts = 0;
  let i = 0;
  for (const m of hunks) {
    const mode = favor && !m.mode ? favor : m.mode;
    if (mode === 0) {
      conflicts++;
      const crlf = crNeeded(m);
      copy(ours, i, m.i1 - i, false, false);
      marker("<", options.ours, crlf);
      copy(ours, m.i1, m.chg1, crlf, true);
      if (style !== "merge") {
        marker("|", options.base, crlf);
        copy(base, m.i0, m.chg0, crlf, true);
      }
      out.push("=".repeat(size) + (crlf ? "\r\n" : "\n"));
      copy(theirs, m.i2, m.chg2, crlf, true);
      marker(">", options.theirs, crlf);
    } else if (mode & 3) {
      copy(ours, i, m.i1 - i, false, false);
      if (mode & 1) copy(ours, m.i1, m.chg1, crNeeded(m), (mode & 2) !== 0);
      if (mode & 2) copy(theirs, m.i2, m.chg2, false, false);
    } else continue;
    i = m.i1 + m.chg1;
  }
  copy(ours, i, ours.length - i, false, false);
  return { text: out.join(""), conflicts };
}
