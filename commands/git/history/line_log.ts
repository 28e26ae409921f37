/**
 * git's line-level log (`git log -L <start>,<end>:<file>`, line-log.c and line-range.c): the
 * ranges are read in the starting commit, then carried back through history commit by commit —
 * each commit's diff against its parent (xdiff's Myers with no flags, no context) takes the blame
 * for the hunks that touch a range, those hunks' parent sides join the ranges, the other lines
 * shift by what the diff added and removed — and the file is followed through renames. A commit
 * is listed when it took the blame for some line, with the diff of just the tracked lines.
 */

import { PtermError } from "../../../core/errors.ts";
import type { Repo } from "../repo/repo.ts";
import type { Commit } from "../odb/objects.ts";
import { flattenTree } from "../odb/tree.ts";
import { changesBetween, type FileChange, findRenames } from "../diff/diff.ts";
import { MAX_SCORE } from "../diff/renames.ts";
import { lineChanges } from "../diff/line_diff.ts";
import { readCommit } from "./log.ts";
import { lookupPath } from "./revparse.ts";
import { compilePattern } from "./pattern.ts";
import { topoOrder } from "./graph.ts";

/** Lines [start, end) counted from 0. */
export interface LineRange {
  start: number;
  end: number;
}

/** The ranges tracked in one file (line-log.c's line_log_data), as they are in one commit. */
interface TrackedFile {
  path: string;
  ranges: LineRange[];
}

/** A diff's hunks as line-log collects them: `parent[i]` became `target[i]`. */
interface DiffRanges {
  parent: LineRange[];
  target: LineRange[];
}

/** What one listed commit shows of one tracked file. */
interface ShownFile {
  /** The path in the parent (null: the file was created here, `--- /dev/null`). */
  oldPath: string;
  newPath: string;
  created: boolean;
  oldBytes: Uint8Array;
  newBytes: Uint8Array;
  /** The tracked ranges in this commit's version. */
  ranges: LineRange[];
  /** The hunks of the commit's diff that touched them. */
  touched: DiffRanges;
}

export interface LineLogEntry {
  id: string;
  commit: Commit;
  /** Empty for a merge whose parents each changed the lines (git shows its header alone). */
  files: ShownFile[];
}

/** One `-L` argument, split as git's skip_range_arg splits it: the range, then `:` and the file. */
export function splitLineRangeArg(arg: string): { range: string; path: string } {
  let at: number;
  if (arg.startsWith(":") || arg.startsWith("^:")) {
    // :<funcname>: the pattern runs to the next `:` not escaped by a backslash.
    const open = arg.indexOf(":");
    at = open + 1;
    while (at < arg.length && arg[at] !== ":") at += arg[at] === "\\" && at + 1 < arg.length ? 2 : 1;
    if (at === open + 1) at = -1;
  } else {
    at = scanLoc(arg, 0, true);
    if (arg[at] === ",") at = scanLoc(arg, at + 1, false);
  }
  if (at < 0 || arg[at] !== ":" || at + 1 >= arg.length) {
    throw new PtermError(
      "InvalidArgs",
      `-L argument not 'start,end:file' or ':funcname:file': ${arg}. Give -L <start>,<end>:<file>, e.g. -L 1,5:src/util.py.`,
    );
  }
  return { range: arg.slice(0, at), path: arg.slice(at + 1) };
}

/** Where one location of a range ends (line-range.c's parse_loc without a file): a number or a /regex/. */
function scanLoc(spec: string, at: number, first: boolean): number {
  const number = /^[ \t\n\v\f\r]*[+-]?\d+/.exec(spec.slice(at));
  if (number) return at + number[0].length;
  let p = at;
  if (first && spec[p] === "^") p++;
  if (spec[p] !== "/") return p;
  let term = p + 1;
  for (; term < spec.length && spec[term] !== "/"; term++) if (spec[term] === "\\") term++;
  return spec[term] === "/" ? term + 1 : p;
}

/** Where each line starts, and the end of the file last (git's fill_line_ends, as offsets). */
function lineStarts(bytes: Uint8Array): number[] {
  const starts = [0];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10 && i + 1 < bytes.length) starts.push(i + 1);
  if (bytes.length === 0) return [0];
  starts.push(bytes.length);
  return starts;
}

function lineCount(bytes: Uint8Array): number {
  return lineStarts(bytes).length - 1;
}

const decoder = new TextDecoder();

/**
 * One location (parse_loc): a line number, `+n`/`-n` lines from the start (end only), or /regex/
 * searched from line `begin` (`^/regex/` from the top). `begin` is negative for the start (the
 * anchor), the start's line + 1 for the end. Returns the rest of the text and the line (0: none).
 */
function parseLoc(spec: string, bytes: Uint8Array, begin: number): { rest: string; line: number } {
  const lines = lineCount(bytes);
  if (begin >= 1 && (spec[0] === "+" || spec[0] === "-")) {
    const digits = /^\d+/.exec(spec.slice(1));
    if (!digits) return { rest: spec, line: 0 };
    let num = Number(digits[0]);
    if (num === 0) throw new PtermError("InvalidArgs", "-L invalid empty range: give at least one line (`,+1`).");
    if (spec[0] === "-") num = -num;
    const line = num > 0 ? begin + num - 2 : begin + num > 0 ? begin + num : 1;
    return { rest: spec.slice(1 + digits[0].length), line };
  }
  const number = /^[ \t\n\v\f\r]*([+-]?\d+)/.exec(spec);
  if (number) {
    const num = Number(number[1]);
    if (num <= 0) {
      throw new PtermError("InvalidArgs", `-L invalid line number: ${num}. Lines are counted from 1.`);
    }
    return { rest: spec.slice(number[0].length), line: num };
  }
  let from = begin;
  let text = spec;
  if (from < 0) {
    if (text[0] !== "^") from = -from;
    else {
      from = 1;
      text = text.slice(1);
    }
  }
  if (text[0] !== "/") return { rest: text, line: 0 };
  let term = 1;
  for (; term < text.length && text[term] !== "/"; term++) if (text[term] === "\\") term++;
  if (text[term] !== "/") return { rest: text, line: 0 };
  const source = text.slice(1, term);
  // git's regcomp(REG_NEWLINE): basic syntax, `^`/`$` at each line's ends, `.` not matching a newline.
  const compiled = compilePattern(source);
  const pattern = new RegExp(compiled.source, compiled.flags + "m");
  const starts = lineStarts(bytes);
  const searchFrom = from - 1;
  const rest = decoder.decode(bytes.subarray(starts[Math.min(searchFrom, lines)]));
  const match = pattern.exec(rest);
  if (!match) {
    throw new PtermError(
      "InvalidArgs",
      `-L parameter '${source}' starting at line ${searchFrom + 1}: No match. Give line numbers ` +
        "(`git grep -n` finds the lines).",
    );
  }
  const newlinesBefore = (rest.slice(0, match.index).match(/\n/g) ?? []).length;
  return { rest: text.slice(term + 1), line: searchFrom + newlinesBefore + 1 };
}

/** git's default function line (no diff driver pattern): it starts with a letter, `_` or `$`. */
function isFunctionLine(bytes: Uint8Array, start: number, end: number): boolean {
  if (start === end) return false;
  const c = bytes[start];
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x24;
}

/**
 * `:<funcname>` (parse_range_funcname): the first function line at or after line `anchor` that the
 * pattern matches, to the line before the next function line (or the end). Returns [begin, end], 1-based.
 */
function funcnameRange(range: string, bytes: Uint8Array, anchor: number): [number, number] {
  const source = range.slice(range.indexOf(":") + 1);
  const starts = lineStarts(bytes);
  const lines = starts.length - 1;
  const compiled = compilePattern(source);
  const pattern = new RegExp(compiled.source, compiled.flags + "m");
  const from = Math.min(anchor - 1, lines);
  let found = -1;
  // Matches are searched line by line's text as bytes decode; a match on a line that is no function line goes on.
  for (let line = from; line < lines && found < 0;) {
    const text = decoder.decode(bytes.subarray(starts[line]));
    const match = pattern.exec(text);
    if (!match) break;
    const at = line + (text.slice(0, match.index).match(/\n/g) ?? []).length;
    if (isFunctionLine(bytes, starts[at], starts[at + 1])) found = at;
    else line = at + 1;
  }
  if (found < 0) {
    throw new PtermError(
      "InvalidArgs",
      `-L parameter '${source}' starting at line ${
        from + 1
      }: no match. Give line numbers (\`git grep -n\` finds them).`,
    );
  }
  let end = found + 1;
  while (end < lines && !isFunctionLine(bytes, starts[end], starts[end + 1])) end++;
  return [found + 1, end];
}

/**
 * The ranges of the `-L` arguments in the starting commit (parse_lines): per file, sorted and
 * merged, files in path order. `readFile` gives a path's bytes there, or null when it is absent.
 */
export async function parseLineRanges(
  args: readonly string[],
  readFile: (path: string) => Promise<Uint8Array | null>,
  /** Whether git would find the path's function lines with a diff driver's own pattern (not git's default rule). */
  driverFunctionLines: (path: string) => Promise<boolean>,
): Promise<TrackedFile[]> {
  const files = new Map<string, LineRange[]>();
  for (const arg of args) {
    const { range, path } = splitLineRangeArg(arg);
    const bytes = await readFile(path);
    if (!bytes) {
      throw new PtermError(
        "NotFound",
        `There is no path ${path} in the commit: -L takes a file of that commit (\`git ls-files\` lists them).`,
      );
    }
    const lines = lineCount(bytes);
    const known = files.get(path);
    let anchor = known?.length ? known[known.length - 1].end + 1 : 1;
    if (anchor < 1) anchor = 1;
    if (anchor > lines) anchor = lines + 1;
    let begin: number;
    let end = 0;
    let rest: string;
    if (range.startsWith(":") || range.startsWith("^:")) {
      if (await driverFunctionLines(path)) {
        throw new PtermError(
          "InvalidArgs",
          `-L ${arg}: ${path} has a diff driver with its own function lines (.gitattributes), which pterm does not ` +
            "apply; give the function's lines (`git grep -n <funcname> -- <file>` finds them) as -L <start>,<end>:<file>.",
        );
      }
      [begin, end] = funcnameRange(range, bytes, range.startsWith("^") ? 1 : anchor);
      rest = "";
    } else {
      const first = parseLoc(range, bytes, -anchor);
      begin = first.line;
      rest = first.rest;
    }
    if (rest[0] === ",") {
      const second = parseLoc(rest.slice(1), bytes, begin + 1);
      end = second.line;
      rest = second.rest;
    }
    if (rest !== "") {
      throw new PtermError(
        "InvalidArgs",
        `malformed -L argument '${range}': give <start>,<end>, <start>,+<count> or /<regex>/,+<count>.`,
      );
    }
    if (begin && end && end < begin) [begin, end] = [end, begin];
    // An end past the file's last line is its last line (git); a start past it is refused.
    if ((!lines && (begin || end)) || lines < begin) {
      throw new PtermError(
        "InvalidArgs",
        `file ${path} has only ${lines} line${lines === 1 ? "" : "s"}: give a range within 1,${lines}.`,
      );
    }
    if (begin < 1) begin = 1;
    if (end < 1 || lines < end) end = lines;
    const list = known ?? [];
    list.push({ start: begin - 1, end });
    files.set(path, list);
  }
  return [...files.entries()].sort(([a], [b]) => compareBytes(a, b)).map(([path, ranges]) => ({
    path,
    ranges: sortAndMerge(ranges),
  }));
}

function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** sort_and_merge_range_set: sorted by start, empty ranges dropped, overlapping ones joined. */
function sortAndMerge(ranges: LineRange[]): LineRange[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const out: LineRange[] = [];
  for (const r of sorted) {
    if (r.start === r.end) continue;
    const last = out[out.length - 1];
    if (last && r.start <= last.end) {
      if (last.end < r.end) last.end = r.end;
    } else out.push({ ...r });
  }
  return out;
}

/** range_set_union: both sets' lines; adjacent and overlapping ranges joined, empty ones dropped. */
function union(a: readonly LineRange[], b: readonly LineRange[]): LineRange[] {
  const out: LineRange[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let next: LineRange;
    if (i < a.length && j < b.length) {
      if (a[i].start < b[j].start) next = a[i++];
      else if (a[i].start > b[j].start) next = b[j++];
      else if (a[i].end < b[j].end) next = a[i++];
      else next = b[j++];
    } else if (i < a.length) next = a[i++];
    else next = b[j++];
    const last = out[out.length - 1];
    if (next.start === next.end) continue;
    if (!last || last.end < next.start) out.push({ start: next.start, end: next.end });
    else if (last.end < next.end) last.end = next.end;
  }
  return out;
}

/** range_set_difference: the lines of `a` that no range of `b` covers. */
function difference(a: readonly LineRange[], b: readonly LineRange[]): LineRange[] {
  const out: LineRange[] = [];
  let j = 0;
  for (const range of a) {
    let { start } = range;
    const { end } = range;
    while (start < end) {
      while (j < b.length && start >= b[j].end) j++;
      if (j >= b.length || end < b[j].start) {
        out.push({ start, end });
        break;
      }
      if (start >= b[j].start) start = b[j].end;
      else if (end > b[j].start) {
        if (start < b[j].start) out.push({ start, end: b[j].start });
        start = b[j].end;
      }
    }
  }
  return out;
}

/** diff_ranges_filter_touched: the hunks whose target side overlaps a tracked range. */
function filterTouched(diff: DiffRanges, ranges: readonly LineRange[]): DiffRanges {
  const out: DiffRanges = { parent: [], target: [] };
  let j = 0;
  for (let i = 0; i < diff.target.length; i++) {
    while (diff.target[i].start > ranges[j].end) {
      j++;
      if (j === ranges.length) return out;
    }
    const t = diff.target[i];
    const r = ranges[j];
    if (!(t.end <= r.start || r.end <= t.start)) {
      out.parent.push(diff.parent[i]);
      out.target.push(t);
    }
  }
  return out;
}

/** range_set_shift_diff: each range moved by what the hunks before it added and removed. */
function shiftDiff(ranges: readonly LineRange[], diff: DiffRanges): LineRange[] {
  const out: LineRange[] = [];
  let j = 0;
  let offset = 0;
  for (const r of ranges) {
    while (j < diff.target.length && r.start >= diff.target[j].start) {
      offset += (diff.parent[j].end - diff.parent[j].start) - (diff.target[j].end - diff.target[j].start);
      j++;
    }
    out.push({ start: r.start + offset, end: r.end + offset });
  }
  return out;
}

/**
 * git's xdi_diff for line-log (collect_diff): no flags (Myers, no indent heuristic), no context, the
 * common tail trimmed first in 1024-byte blocks back to a line's end (trim_common_tail); each change
 * is one hunk.
 */
function collectDiff(parent: Uint8Array, target: Uint8Array): DiffRanges {
  const block = 1024;
  let trimmed = 0;
  const smaller = Math.min(parent.length, target.length);
  while (block + trimmed <= smaller && sameBlock(parent, target, trimmed + block, block)) trimmed += block;
  let recovered = 0;
  const ap = parent.length - trimmed;
  while (recovered < trimmed) if (parent[ap + recovered++] === 10) break;
  const a = parent.subarray(0, parent.length - (trimmed - recovered));
  const b = target.subarray(0, target.length - (trimmed - recovered));
  const changes = lineChanges(a, b, undefined, false);
  const out: DiffRanges = { parent: [], target: [] };
  for (let k = 0; k < changes.length; k += 4) {
    out.parent.push({ start: changes[k], end: changes[k] + changes[k + 2] });
    out.target.push({ start: changes[k + 1], end: changes[k + 1] + changes[k + 3] });
  }
  return out;
}

/** Whether the `length` bytes ending `fromEnd` bytes before each file's end are the same. */
function sameBlock(a: Uint8Array, b: Uint8Array, fromEnd: number, length: number): boolean {
  const as = a.length - fromEnd;
  const bs = b.length - fromEnd;
  for (let k = 0; k < length; k++) if (a[as + k] !== b[bs + k]) return false;
  return true;
}

/** A commit's changes to the tracked files against one parent (queue_diffs), renames paired. */
async function queueDiffs(
  repo: Repo,
  tracked: readonly TrackedFile[],
  commit: Commit,
  parent: Commit | null,
): Promise<FileChange[]> {
  const paths = new Set(tracked.map((t) => t.path));
  // The tracked paths alone first; a whole-tree diff only when one of them was created (a rename?).
  const limited: FileChange[] = [];
  for (const path of paths) {
    const now = await lookupPath(repo, commit.tree, path);
    const before = parent ? await lookupPath(repo, parent.tree, path) : null;
    const side = (e: { oid: string; mode: string } | null) =>
      e && e.mode !== "40000" ? { kind: "blob" as const, oid: e.oid, mode: e.mode } : null;
    const a = side(before);
    const b = side(now);
    if (!b) continue;
    if (a && a.oid === b.oid && a.mode === b.mode) continue;
    limited.push({ path, old: a, new: b });
  }
  if (!limited.some((c) => !c.old)) return limited;
  const all = changesBetween(await flattenTree(repo, parent?.tree ?? null), await flattenTree(repo, commit.tree));
  const candidates = all.filter((c) => !c.new || paths.has(c.path));
  const paired = await findRenames(repo, candidates, Math.round(50 * MAX_SCORE / 100));
  return paired.filter((c) => c.new && paths.has(c.path));
}

async function blobOf(repo: Repo, side: FileChange["old"]): Promise<Uint8Array> {
  return side && side.kind === "blob" ? await repo.objects.readTyped(side.oid, "blob") : new Uint8Array();
}

/**
 * process_all_files: the tracked files as they are in the parent, and what the commit shows of
 * each file whose tracked lines it changed.
 */
async function processAllFiles(
  repo: Repo,
  tracked: readonly TrackedFile[],
  queue: readonly FileChange[],
): Promise<{ parentRanges: TrackedFile[]; shown: Map<string, ShownFile> }> {
  const parentRanges = tracked.map((t) => ({ path: t.path, ranges: t.ranges.map((r) => ({ ...r })) }));
  const shown = new Map<string, ShownFile>();
  for (const change of queue) {
    const target = parentRanges.find((t) => t.path === change.path);
    if (!target || target.ranges.length === 0) continue;
    const newBytes = await blobOf(repo, change.new);
    const oldBytes = change.old ? await blobOf(repo, change.old) : new Uint8Array();
    const diff = collectDiff(oldBytes, newBytes);
    target.path = change.oldPath ?? change.path;
    const touched = filterTouched(diff, target.ranges);
    const kept = difference(target.ranges, touched.target);
    const mappedRanges = union(shiftDiff(kept, diff), touched.parent);
    const ranges = target.ranges;
    target.ranges = mappedRanges;
    if (touched.parent.length > 0) {
      shown.set(change.path, {
        oldPath: change.oldPath ?? change.path,
        newPath: change.path,
        created: !change.old,
        oldBytes,
        newBytes,
        ranges,
        touched,
      });
    }
  }
  return { parentRanges, shown };
}

/** line_log_data_merge: the ranges reaching a commit from two children, per path. */
function mergeTracked(a: readonly TrackedFile[], b: readonly TrackedFile[]): TrackedFile[] {
  const byPath = new Map<string, LineRange[]>();
  for (const t of a) byPath.set(t.path, t.ranges);
  for (const t of b) byPath.set(t.path, byPath.has(t.path) ? union(byPath.get(t.path)!, t.ranges) : t.ranges);
  return [...byPath.entries()].sort(([x], [y]) => compareBytes(x, y)).map(([path, ranges]) => ({ path, ranges }));
}

/**
 * The commits `git log -L` lists from `start` (newest first, git's topological order), each with
 * what it shows; `hide` holds commits left out with their history (`a..b`), `max` bounds the list.
 */
export async function lineLog(
  repo: Repo,
  start: string,
  initial: TrackedFile[],
  walked: readonly { id: string; parents: string[] }[],
  max: number,
  /** Commit filters (--author, --grep, --until): applied after the ranges moved on, as git applies them. */
  keep?: (commit: Commit, oid: string) => boolean | Promise<boolean>,
): Promise<LineLogEntry[]> {
  const listed = async (id: string, commit: Commit) => !keep || await keep(commit, id);
  const ranges = new Map<string, TrackedFile[]>([[start, initial]]);
  const addRanges = (id: string, files: TrackedFile[]) => {
    const old = ranges.get(id);
    ranges.set(id, old ? mergeTracked(old, files) : files);
  };
  const out: LineLogEntry[] = [];
  for (const step of topoOrder(walked)) {
    if (out.length >= max) break;
    const tracked = ranges.get(step.id);
    ranges.delete(step.id);
    if (!tracked || tracked.every((t) => t.ranges.length === 0)) continue;
    const commit = await readCommit(repo, step.id);
    if (commit.parents.length <= 1) {
      const parent = commit.parents.length ? await readCommit(repo, commit.parents[0]) : null;
      const queue = await queueDiffs(repo, tracked, commit, parent);
      const { parentRanges, shown } = await processAllFiles(repo, tracked, queue);
      if (parent) addRanges(commit.parents[0], parentRanges);
      if (shown.size && await listed(step.id, commit)) {
        const files = tracked.map((t) => shown.get(t.path)).filter((f): f is ShownFile => f !== undefined);
        out.push({ id: step.id, commit, files });
      }
      continue;
    }
    // A merge: a parent whose diff touches no tracked line takes all the blame (the others are not
    // followed); when every parent changed them, each parent carries its own ranges and the merge
    // is listed without a diff.
    const candidates: TrackedFile[][] = [];
    let blamed = -1;
    for (const [i, parentId] of commit.parents.entries()) {
      const parent = await readCommit(repo, parentId);
      const { parentRanges, shown } = await processAllFiles(
        repo,
        tracked,
        await queueDiffs(repo, tracked, commit, parent),
      );
      candidates.push(parentRanges);
      if (shown.size === 0) {
        blamed = i;
        break;
      }
    }
    if (blamed >= 0) {
      addRanges(commit.parents[blamed], candidates[blamed]);
      continue;
    }
    for (const [i, parentId] of commit.parents.entries()) addRanges(parentId, candidates[i]);
    if (await listed(step.id, commit)) out.push({ id: step.id, commit, files: [] });
  }
  return out;
}

/** dump_diff_hacky: a blank line, then each shown file's header and one hunk per tracked range it changed. */
export function renderLineLogDiff(files: readonly ShownFile[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const encoder = new TextEncoder();
  const text = (s: string) => parts.push(encoder.encode(s));
  text("\n");
  for (const file of files) {
    const pStarts = lineStarts(file.oldBytes);
    const tStarts = lineStarts(file.newBytes);
    const line = (prefix: string, bytes: Uint8Array, starts: number[], n: number) => {
      let end = starts[n + 1];
      const hadNewline = end > starts[n] && bytes[end - 1] === 10;
      if (hadNewline) end--;
      text(prefix);
      parts.push(bytes.subarray(starts[n], end));
      text("\n");
      if (!hadNewline) text("\\ No newline at end of file\n");
    };
    text(`diff --git a/${file.oldPath} b/${file.newPath}\n`);
    text(`--- ${file.created ? "/dev/null" : `a/${file.oldPath}`}\n`);
    text(`+++ b/${file.newPath}\n`);
    const { parent, target } = file.touched;
    let j = 0;
    for (const range of file.ranges) {
      const tStart = range.start;
      const tEnd = range.end;
      let tCur = tStart;
      while (j < target.length && target[j].end < tStart) j++;
      if (j === target.length || target[j].start > tEnd) continue;
      let jLast = j;
      while (jLast < target.length && target[jLast].start < tEnd) jLast++;
      if (jLast > j) jLast--;
      let pStart = tStart < target[j].start ? parent[j].start - (target[j].start - tStart) : parent[j].start;
      let pEnd = tEnd > target[jLast].end ? parent[jLast].end + (tEnd - target[jLast].end) : parent[jLast].end;
      if (!pStart && !pEnd) {
        pStart = -1;
        pEnd = -1;
      }
      text(`@@ -${pStart + 1},${pEnd - pStart} +${tStart + 1},${tEnd - tStart} @@\n`);
      while (j < target.length && target[j].start < tEnd) {
        for (; tCur < target[j].start; tCur++) line(" ", file.newBytes, tStarts, tCur);
        for (let k = parent[j].start; k < parent[j].end; k++) line("-", file.oldBytes, pStarts, k);
        for (; tCur < target[j].end && tCur < tEnd; tCur++) line("+", file.newBytes, tStarts, tCur);
        j++;
      }
      for (; tCur < tEnd; tCur++) line(" ", file.newBytes, tStarts, tCur);
    }
  }
  let size = 0;
  for (const p of parts) size += p.length;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
}
