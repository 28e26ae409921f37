/**
 * Line diffs with git's cost: a minimal edit script (Myers, jsdiff's `diffArrays`), run only on
 * the lines that can match at all. As xdiff's `xdl_cleanup_records` does, a line that occurs in
 * one file only is an addition or a deletion whatever else happens, so it is set aside before
 * the search; that keeps the script minimal and turns "30% of a 60,000-line file rewritten" from
 * quadratic into near-linear. Hunks come out as git builds them: `context` lines around each
 * change, changes closer than twice that joined, removals before additions within a change, and
 * git's `\ No newline at end of file` after a last line without one.
 */

import { diffArrays } from "diff";

export interface LineHunk {
  /** 1-based first old line of the hunk (for an empty old side: the line after which it applies, plus one). */
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  /** ` text`, `-text`, `+text`, or `\ No newline at end of file`. */
  readonly lines: string[];
}

/** A file's lines without their `\n`, and whether the last one lacks it. */
interface Side {
  readonly lines: string[];
  readonly noEol: boolean;
}

function sideOf(text: string): Side {
  if (text === "") return { lines: [], noEol: false };
  const lines = text.split("\n");
  const last = lines.pop()!;
  if (last === "") return { lines, noEol: false };
  lines.push(last);
  return { lines, noEol: true };
}

/**
 * Numbers for distinct lines: an open-addressing table keyed by an FNV-1a hash of the line's
 * characters. About twice as fast as a Map<string, number> here, which matters: numbering the
 * lines is the largest cost of a big diff.
 */
class LineIds {
  readonly #keys: (string | undefined)[];
  readonly #values: Int32Array;
  readonly #mask: number;
  size = 0;

  constructor(lines: number) {
    let capacity = 16;
    while (capacity < lines * 2) capacity *= 2;
    this.#keys = new Array(capacity);
    this.#values = new Int32Array(capacity);
    this.#mask = capacity - 1;
  }

  idOf(line: string): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < line.length; i++) hash = Math.imul(hash ^ line.charCodeAt(i), 16777619);
    let slot = (hash >>> 0) & this.#mask;
    for (;;) {
      const key = this.#keys[slot];
      if (key === undefined) {
        this.#keys[slot] = line;
        return this.#values[slot] = this.size++;
      }
      if (key === line) return this.#values[slot];
      slot = (slot + 1) & this.#mask;
    }
  }
}

const SAME = 0;
const REMOVED = 1;
const ADDED = 2;

/**
 * A minimal edit script from `a` to `b`: `ops[k]` is SAME, REMOVED or ADDED, `at[k]` the line
 * (of `a` for SAME and REMOVED, of `b` for ADDED). Typed arrays, and lines compared by number:
 * a 60,000-line file makes no object per line.
 */
function editScript(a: Side, b: Side): { ops: Uint8Array; at: Int32Array; length: number } {
  const ids = new LineIds(a.lines.length + b.lines.length);
  const idsOf = (side: Side) => {
    const out = new Int32Array(side.lines.length);
    for (let i = 0; i < side.lines.length; i++) {
      // A last line without its newline differs from the same text with one ("\n" is in no line).
      out[i] = ids.idOf(side.noEol && i === side.lines.length - 1 ? side.lines[i] + "\n" : side.lines[i]);
    }
    return out;
  };
  const aIds = idsOf(a);
  const bIds = idsOf(b);
  const inA = new Uint8Array(ids.size);
  const inB = new Uint8Array(ids.size);
  for (const id of aIds) inA[id] = 1;
  for (const id of bIds) inB[id] = 1;
  // Only lines present on both sides take part in the search; the rest are fixed edits.
  const aKept: number[] = [];
  const bKept: number[] = [];
  for (let i = 0; i < aIds.length; i++) if (inB[aIds[i]]) aKept.push(i);
  for (let i = 0; i < bIds.length; i++) if (inA[bIds[i]]) bKept.push(i);
  const ops = new Uint8Array(aIds.length + bIds.length);
  const at = new Int32Array(aIds.length + bIds.length);
  let length = 0;
  let ia = 0; // next line of a not yet in the script
  let ib = 0;
  const deleteUpTo = (end: number) => {
    for (; ia < end; ia++, length++) {
      ops[length] = REMOVED;
      at[length] = ia;
    }
  };
  const insertUpTo = (end: number) => {
    for (; ib < end; ib++, length++) {
      ops[length] = ADDED;
      at[length] = ib;
    }
  };
  let ka = 0; // position in aKept
  let kb = 0;
  // The kept lines' common start and end are matched directly; the search runs on what is between.
  let head = 0;
  while (head < aKept.length && head < bKept.length && aIds[aKept[head]] === bIds[bKept[head]]) head++;
  let tail = 0;
  while (
    tail < aKept.length - head && tail < bKept.length - head &&
    aIds[aKept[aKept.length - 1 - tail]] === bIds[bKept[bKept.length - 1 - tail]]
  ) tail++;
  const middleA: number[] = [];
  const middleB: number[] = [];
  for (let k = head; k < aKept.length - tail; k++) middleA.push(aIds[aKept[k]]);
  for (let k = head; k < bKept.length - tail; k++) middleB.push(bIds[bKept[k]]);
  const changes = [
    { count: head, value: [], added: false, removed: false },
    ...(middleA.length || middleB.length ? diffArrays(middleA, middleB) : []),
    { count: tail, value: [], added: false, removed: false },
  ];
  for (const change of changes) {
    const count = change.count ?? change.value.length;
    for (let n = 0; n < count; n++) {
      if (change.removed) {
        deleteUpTo(aKept[ka++] + 1);
      } else if (change.added) {
        insertUpTo(bKept[kb++] + 1);
      } else {
        deleteUpTo(aKept[ka]);
        insertUpTo(bKept[kb]);
        ops[length] = SAME;
        at[length++] = aKept[ka];
        ia = aKept[ka++] + 1;
        ib = bKept[kb++] + 1;
      }
    }
  }
  deleteUpTo(a.lines.length);
  insertUpTo(b.lines.length);
  return { ops, at, length };
}

/** The hunks of a unified diff from `oldText` to `newText`, with `context` lines of context. */
/**
 * For each line of `b`, the line of `a` it is kept from in a minimal edit script, or -1 for an
 * added line (for blame, which hands kept lines on to the parent).
 */
export function keptLines(a: readonly string[], b: readonly string[]): Int32Array {
  const script = editScript({ lines: [...a], noEol: false }, { lines: [...b], noEol: false });
  const out = new Int32Array(b.length).fill(-1);
  let ib = 0;
  for (let k = 0; k < script.length; k++) {
    const op = script.ops[k];
    if (op === SAME) out[ib++] = script.at[k];
    else if (op === ADDED) ib++;
  }
  return out;
}

export function lineHunks(oldText: string, newText: string, context: number): LineHunk[] {
  return hunksOf(sideOf(oldText), sideOf(newText), context);
}

function range(start: number, count: number): string {
  const s = count === 0 ? start - 1 : start;
  return count === 1 ? `${s}` : `${s},${count}`;
}

/** git's default function line: starts with a letter, `_` or `$`. */
function isFunctionLine(line: string): boolean {
  const c = line.charCodeAt(0);
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24;
}

/**
 * The body of a unified diff (`@@` headers with git's default function context, then the lines)
 * from `oldText` to `newText`, with the counts of added and removed lines.
 */
export function unifiedDiff(
  oldText: string,
  newText: string,
  context: number,
): { text: string; add: number; del: number } {
  const a = sideOf(oldText);
  const b = sideOf(newText);
  let text = "";
  let add = 0;
  let del = 0;
  // The nearest function line before each hunk: hunks come in order, so one pass over the file.
  let scanned = 0;
  let found = -1;
  for (const hunk of hunksOf(a, b, context)) {
    for (; scanned < hunk.oldStart - 1; scanned++) if (isFunctionLine(a.lines[scanned])) found = scanned;
    const functionLine = found < 0 ? "" : " " + a.lines[found].replace(/\s+$/, "").slice(0, 80);
    text += `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@${functionLine}\n`;
    for (const line of hunk.lines) {
      const c = line.charCodeAt(0);
      if (c === 0x2b) add++;
      else if (c === 0x2d) del++;
      text += line + "\n";
    }
  }
  return { text, add, del };
}

function hunksOf(a: Side, b: Side, context: number): LineHunk[] {
  const raw = editScript(a, b);
  // Within each run of changes, removals first, then additions (as git prints them).
  const ops = new Uint8Array(raw.length);
  const at = new Int32Array(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length;) {
    if (raw.ops[i] === SAME) {
      ops[n] = SAME;
      at[n++] = raw.at[i++];
      continue;
    }
    let end = i;
    while (end < raw.length && raw.ops[end] !== SAME) end++;
    for (const kind of [REMOVED, ADDED]) {
      for (let k = i; k < end; k++) {
        if (raw.ops[k] !== kind) continue;
        ops[n] = kind;
        at[n++] = raw.at[k];
      }
    }
    i = end;
  }
  const length = n;
  // Old and new line numbers (0-based) before each step.
  const oldAt = new Int32Array(length);
  const newAt = new Int32Array(length);
  for (let k = 0, o = 0, m = 0; k < length; k++) {
    oldAt[k] = o;
    newAt[k] = m;
    if (ops[k] !== ADDED) o++;
    if (ops[k] !== REMOVED) m++;
  }
  const hunks: LineHunk[] = [];
  let i = 0;
  while (i < length) {
    if (ops[i] === SAME) {
      i++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` after the last change that is
    // at most 2*context unchanged lines from the previous one.
    const start = Math.max(0, i - context);
    let end = i;
    let lastChange = i;
    while (end < length) {
      if (ops[end] !== SAME) lastChange = end;
      else if (end - lastChange > 2 * context) break;
      end++;
    }
    const stop = Math.min(length, lastChange + context + 1);
    const lines: string[] = [];
    let oldLines = 0;
    let newLines = 0;
    for (let k = start; k < stop; k++) {
      const op = ops[k];
      const side = op === ADDED ? b : a;
      lines.push((op === SAME ? " " : op === REMOVED ? "-" : "+") + side.lines[at[k]]);
      if (side.noEol && at[k] === side.lines.length - 1) lines.push("\\ No newline at end of file");
      if (op !== ADDED) oldLines++;
      if (op !== REMOVED) newLines++;
    }
    hunks.push({ oldStart: oldAt[start] + 1, oldLines, newStart: newAt[start] + 1, newLines, lines });
    i = stop;
  }
  return hunks;
}
