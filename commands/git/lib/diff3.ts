/**
 * Three-way merge of text (what git's xdl_merge does for `merge`, `revert` and `stash apply`):
 * each side's changes against the base are found with a line diff; changes that overlap or
 * touch conflict unless both sides made the same change; at git's "zealous" level, a conflict is
 * then split where its sides agree, and conflicts close to each other are joined again.
 */

import { diffArrays } from "diff";

export interface MergeLabels {
  readonly ours: string;
  readonly theirs: string;
}

export interface TextMergeResult {
  readonly text: string;
  readonly conflicts: number;
}

/** Splits keeping each line's terminator, so joining gives the text back exactly. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      lines.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

interface Change {
  /** Base range [start, end) replaced by `lines`. */
  readonly start: number;
  readonly end: number;
  readonly lines: string[];
}

function changesAgainst(base: string[], side: string[]): Change[] {
  const out: Change[] = [];
  let b = 0;
  let pending: { start: number; end: number; lines: string[] } | null = null;
  const flush = () => {
    if (pending) out.push(pending);
    pending = null;
  };
  for (const part of diffArrays(base, side)) {
    const count = part.value.length;
    if (part.removed) {
      pending ??= { start: b, end: b, lines: [] };
      pending.end += count;
      b += count;
    } else if (part.added) {
      pending ??= { start: b, end: b, lines: [] };
      pending.lines.push(...part.value);
    } else {
      flush();
      b += count;
    }
  }
  flush();
  return out;
}

function equalLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

function withNewline(lines: string[], eol: string): string[] {
  if (lines.length === 0) return lines;
  const last = lines[lines.length - 1];
  return last.endsWith("\n") ? lines : [...lines.slice(0, -1), last + eol];
}

/** Line `i` ends with CRLF: 1, LF: 0, undecided (no lines, or an unterminated last line): -1 (xmerge.c is_eol_crlf). */
function eolIsCrlf(lines: readonly string[], i: number): number {
  if (lines.length === 0) return -1;
  const line = lines[i];
  if (i >= lines.length - 1 && !line.endsWith("\n")) return -1;
  return line.endsWith("\r\n") ? 1 : 0;
}

/**
 * The conflict markers' line end, as git's is_cr_needed picks it: CRLF when the line before the
 * conflict (or the first line) ends with CRLF on both sides and the base's first line does too.
 */
function markerEol(base: string[], ours: string[], theirs: string[], oursPos: number, theirsPos: number): string {
  let needsCr = eolIsCrlf(ours, oursPos ? oursPos - 1 : 0);
  if (needsCr) needsCr = eolIsCrlf(theirs, theirsPos ? theirsPos - 1 : 0);
  if (needsCr) needsCr = eolIsCrlf(base, 0);
  return needsCr > 0 ? "\r\n" : "\n";
}

/**
 * What the merge produces, before it is written out: lines no side changed, a change taken from
 * one side (or made identically by both), and conflicts.
 */
type Segment =
  | { readonly kind: "same"; readonly lines: string[] }
  | {
    readonly kind: "resolved";
    readonly lines: string[];
    /** How many lines of each side this segment stands for (to know where a later conflict is). */
    readonly oursCount: number;
    readonly theirsCount: number;
  }
  | {
    kind: "conflict";
    ours: string[];
    theirs: string[];
    /** Where the conflict starts in each side's lines (set once all segments are known). */
    oursStart?: number;
    theirsStart?: number;
  };

/** At most this many unchanged lines between two conflicts make them one (git's xdl_simplify_non_conflicts). */
const CONFLICT_JOIN_GAP = 3;

/**
 * Splits a conflict where its two sides agree (git's xdl_refine_conflicts): the lines both
 * sides share become unchanged lines between smaller conflicts.
 */
function refineConflict(ours: string[], theirs: string[]): Segment[] {
  const out: Segment[] = [];
  let pending: { kind: "conflict"; ours: string[]; theirs: string[] } | null = null;
  for (const part of diffArrays(ours, theirs)) {
    if (part.removed || part.added) {
      pending ??= { kind: "conflict", ours: [], theirs: [] };
      (part.removed ? pending.ours : pending.theirs).push(...part.value);
    } else {
      if (pending) out.push(pending);
      pending = null;
      out.push({ kind: "same", lines: [...part.value] });
    }
  }
  if (pending) out.push(pending);
  return out;
}

/**
 * Joins two conflicts that follow each other with at most CONFLICT_JOIN_GAP unchanged lines
 * between them, those lines going to both sides (git's XDL_MERGE_ZEALOUS, the level of `git merge`).
 * A change taken from one side between them keeps them apart, as in git.
 */
function joinCloseConflicts(segments: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const segment of segments) {
    const last = out[out.length - 1];
    const beforeLast = out[out.length - 2];
    if (segment.kind === "conflict" && last?.kind === "conflict") {
      last.ours.push(...segment.ours);
      last.theirs.push(...segment.theirs);
      continue;
    }
    if (
      segment.kind === "conflict" && last?.kind === "same" && beforeLast?.kind === "conflict" &&
      last.lines.length <= CONFLICT_JOIN_GAP
    ) {
      beforeLast.ours.push(...last.lines, ...segment.ours);
      beforeLast.theirs.push(...last.lines, ...segment.theirs);
      out.pop();
      continue;
    }
    if (segment.kind === "same" && last?.kind === "same") {
      out[out.length - 1] = { kind: "same", lines: [...last.lines, ...segment.lines] };
      continue;
    }
    out.push(segment);
  }
  return out;
}

/**
 * A three-way merge of lines. With `union` (the `merge=union` attribute) a conflicting region
 * takes our lines and then theirs, without markers, and counts as resolved.
 */
export function mergeText(
  base: string,
  ours: string,
  theirs: string,
  labels: MergeLabels,
  options: { union?: boolean; markerSize?: number } = {},
): TextMergeResult {
  const size = options.markerSize ?? 7;
  if (ours === theirs) return { text: ours, conflicts: 0 };
  if (base === ours) return { text: theirs, conflicts: 0 };
  if (base === theirs) return { text: ours, conflicts: 0 };
  const baseLines = splitLines(base);
  const oursLines = splitLines(ours);
  const theirsLines = splitLines(theirs);
  const a = changesAgainst(baseLines, oursLines);
  const b = changesAgainst(baseLines, theirsLines);
  const segments: Segment[] = [];
  let pos = 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    // Start a region with the earliest change, then absorb every change that overlaps or touches it.
    const takeA = j >= b.length || (i < a.length && a[i].start <= b[j].start);
    let start = takeA ? a[i].start : b[j].start;
    let end = takeA ? a[i].end : b[j].end;
    const inA: Change[] = [];
    const inB: Change[] = [];
    if (takeA) inA.push(a[i++]);
    else inB.push(b[j++]);
    for (;;) {
      if (i < a.length && touches(a[i], start, end)) {
        end = Math.max(end, a[i].end);
        start = Math.min(start, a[i].start);
        inA.push(a[i++]);
      } else if (j < b.length && touches(b[j], start, end)) {
        end = Math.max(end, b[j].end);
        start = Math.min(start, b[j].start);
        inB.push(b[j++]);
      } else break;
    }
    segments.push({ kind: "same", lines: baseLines.slice(pos, start) });
    pos = end;
    const oursRegion = applyChanges(baseLines, start, end, inA);
    const theirsRegion = applyChanges(baseLines, start, end, inB);
    const counts = { oursCount: oursRegion.length, theirsCount: theirsRegion.length };
    if (inB.length === 0) segments.push({ kind: "resolved", lines: oursRegion, ...counts });
    else if (inA.length === 0) segments.push({ kind: "resolved", lines: theirsRegion, ...counts });
    else if (equalLines(oursRegion, theirsRegion)) segments.push({ kind: "resolved", lines: oursRegion, ...counts });
    else segments.push(...refineConflict(oursRegion, theirsRegion));
  }
  segments.push({ kind: "same", lines: baseLines.slice(pos) });

  let oursPos = 0;
  let theirsPos = 0;
  for (const segment of segments) {
    if (segment.kind === "conflict") {
      segment.oursStart = oursPos;
      segment.theirsStart = theirsPos;
    }
    oursPos += segment.kind === "resolved"
      ? segment.oursCount
      : segment.kind === "conflict"
      ? segment.ours.length
      : segment.lines.length;
    theirsPos += segment.kind === "resolved"
      ? segment.theirsCount
      : segment.kind === "conflict"
      ? segment.theirs.length
      : segment.lines.length;
  }

  const out: string[] = [];
  let conflicts = 0;
  for (const segment of joinCloseConflicts(segments.filter((s) => s.kind === "conflict" || s.lines.length > 0))) {
    if (segment.kind !== "conflict") {
      out.push(...segment.lines);
      continue;
    }
    if (options.union) {
      out.push(...withNewline(segment.ours, "\n"), ...withNewline(segment.theirs, "\n"));
      continue;
    }
    conflicts++;
    const eol = markerEol(baseLines, oursLines, theirsLines, segment.oursStart!, segment.theirsStart!);
    out.push(`${"<".repeat(size)} ${labels.ours}${eol}`);
    out.push(...withNewline(segment.ours, eol));
    out.push(`${"=".repeat(size)}${eol}`);
    out.push(...withNewline(segment.theirs, eol));
    out.push(`${">".repeat(size)} ${labels.theirs}${eol}`);
  }
  return { text: out.join(""), conflicts };
}

/** Changes overlap or are adjacent to the region [start, end) (git treats touching changes as one). */
function touches(change: Change, start: number, end: number): boolean {
  return change.start <= end && change.end >= start;
}

function applyChanges(base: string[], start: number, end: number, changes: Change[]): string[] {
  const out: string[] = [];
  let pos = start;
  for (const c of changes) {
    out.push(...base.slice(pos, c.start));
    out.push(...c.lines);
    pos = c.end;
  }
  out.push(...base.slice(pos, end));
  return out;
}
