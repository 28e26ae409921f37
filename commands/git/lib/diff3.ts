/**
 * Three-way merge of text (what git's xdl_merge does for `merge`, `revert` and `stash apply`):
 * each side's changes against the base are found with a line diff; changes that overlap or
 * touch conflict unless both sides made the same change; conflict hunks are trimmed of lines
 * both sides share at their start and end (git's "zealous" level).
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

function withNewline(lines: string[]): string[] {
  if (lines.length === 0) return lines;
  const last = lines[lines.length - 1];
  return last.endsWith("\n") ? lines : [...lines.slice(0, -1), last + "\n"];
}

export function mergeText(base: string, ours: string, theirs: string, labels: MergeLabels): TextMergeResult {
  if (ours === theirs) return { text: ours, conflicts: 0 };
  if (base === ours) return { text: theirs, conflicts: 0 };
  if (base === theirs) return { text: ours, conflicts: 0 };
  const baseLines = splitLines(base);
  const oursLines = splitLines(ours);
  const theirsLines = splitLines(theirs);
  const a = changesAgainst(baseLines, oursLines);
  const b = changesAgainst(baseLines, theirsLines);
  const out: string[] = [];
  let conflicts = 0;
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
    out.push(...baseLines.slice(pos, start));
    pos = end;
    const oursRegion = applyChanges(baseLines, start, end, inA);
    const theirsRegion = applyChanges(baseLines, start, end, inB);
    if (inB.length === 0) {
      out.push(...oursRegion);
      continue;
    }
    if (inA.length === 0) {
      out.push(...theirsRegion);
      continue;
    }
    if (equalLines(oursRegion, theirsRegion)) {
      out.push(...oursRegion);
      continue;
    }
    // Zealous: lines both sides agree on at the edges of the conflict are not part of it.
    let head = 0;
    while (head < oursRegion.length && head < theirsRegion.length && oursRegion[head] === theirsRegion[head]) head++;
    let tail = 0;
    while (
      tail < oursRegion.length - head && tail < theirsRegion.length - head &&
      oursRegion[oursRegion.length - 1 - tail] === theirsRegion[theirsRegion.length - 1 - tail]
    ) tail++;
    out.push(...oursRegion.slice(0, head));
    conflicts++;
    out.push(`<<<<<<< ${labels.ours}\n`);
    out.push(...withNewline(oursRegion.slice(head, oursRegion.length - tail)));
    out.push("=======\n");
    out.push(...withNewline(theirsRegion.slice(head, theirsRegion.length - tail)));
    out.push(`>>>>>>> ${labels.theirs}\n`);
    out.push(...oursRegion.slice(oursRegion.length - tail));
  }
  out.push(...baseLines.slice(pos));
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
