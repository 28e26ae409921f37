/**
 * git's combined diff (combine-diff.c): of a path with a conflict in progress, as `git diff` runs it
 * from diff-files, the work-tree file against both sides of the conflict (index stages 2 and 3); of
 * a merge commit, as `git show` runs it, the merge's blob against each parent's. Each line is marked
 * with one column per side. Dense (`--cc`, git's default) drops the hunks where
 * the file agrees with one side; `-c` keeps them.
 */

import { bytesEqual, looksBinary, quoteName, ZERO_OID } from "../odb/bytes.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { conversionFor, worktreeBlob } from "../worktree/convert.ts";
import { concatBytes, DEFAULT_ALGORITHM, type LineAlgorithm, lineChanges } from "./line_diff.ts";
import type { DiffPrefixes } from "./diff.ts";
import type { Repo } from "../repo/repo.ts";
import { subprojectText } from "../repo/submodule.ts";
import { lstatTracked } from "../worktree/worktree.ts";

/** One side of the conflict: the blob (and its mode) the index records at stage 2 or 3. */
export interface CombinedParent {
  readonly oid: string;
  /** A tree mode: `100644`, `100755`, `120000`, `160000`. */
  readonly mode: string;
}

export interface CombinedOptions {
  /** Lines of context (git's -U). */
  readonly context: number;
  /** `--cc` (true, git's default) or `-c` (false). */
  readonly dense: boolean;
  readonly algorithm?: LineAlgorithm;
  /**
   * The merge commit's own blob (git show of a merge), null where the merge deleted the path; absent,
   * the result is the work-tree file. A commit's path is shown only with a hunk left or a mode that
   * differs; the work tree's always is.
   */
  readonly result?: CombinedParent | null;
  /** The names' prefixes on the ---/+++ lines (`a/` and `b/` unless given). */
  readonly prefixes?: DiffPrefixes;
}

/** A line lost from some parents: its bytes (no newline) and which parents had it (bit n for parent n). */
interface Lost {
  readonly line: Uint8Array;
  parents: number;
}

/** A line of the result, with what the parents lost before it. */
interface ResultLine {
  /** Bit n: parent n lacks this line (git prints `+` in its column); bit N the "shown" mark; bit N+1 "no deletions before". */
  flag: number;
  lost: Lost[];
  /** Lost lines of the parent being compared, before they are merged into `lost`. */
  pending: Lost[];
  readonly start: number;
  readonly end: number;
  /** Per parent: its line number where a hunk starting here begins. */
  readonly pLno: number[];
}

/**
 * xdiff-interface.c's trim_common_tail: with no context, a common tail of whole 1 KiB blocks is
 * left out of the diff (back to a line end), which can change how git's diff places a change.
 */
function trimCommonTail(a: Uint8Array, b: Uint8Array): [Uint8Array, Uint8Array] {
  const block = 1024;
  let trimmed = 0;
  const smaller = Math.min(a.length, b.length);
  const same = (from: number) => {
    for (let k = 0; k < block; k++) if (a[a.length - from - block + k] !== b[b.length - from - block + k]) return false;
    return true;
  };
  while (block + trimmed <= smaller && same(trimmed)) trimmed += block;
  let recovered = 0;
  const apEnd = a.length - trimmed;
  while (recovered < trimmed) if (a[apEnd + recovered++] === 0x0a) break;
  return [a.subarray(0, a.length - trimmed + recovered), b.subarray(0, b.length - trimmed + recovered)];
}

/** combine-diff.c's coalesce_lines: merges a parent's lost lines into those already there, by their longest common subsequence. */
function coalesce(base: Lost[], incoming: Lost[], parent: number): Lost[] {
  if (incoming.length === 0) return base;
  if (base.length === 0) return incoming;
  const rows = base.length + 1;
  const cols = incoming.length + 1;
  const lcs = new Int32Array(rows * cols);
  // Which way each cell came: 0 both lines match, 1 from the base line above, 2 from the new line to the left.
  const dir = new Uint8Array(rows * cols);
  for (let i = 0; i < rows; i++) dir[i * cols] = 1;
  for (let j = 1; j < cols; j++) dir[j] = 2;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      if (bytesEqual(base[i - 1].line, incoming[j - 1].line)) {
        lcs[i * cols + j] = lcs[(i - 1) * cols + j - 1] + 1;
        dir[i * cols + j] = 0;
      } else if (lcs[i * cols + j - 1] >= lcs[(i - 1) * cols + j]) {
        lcs[i * cols + j] = lcs[i * cols + j - 1];
        dir[i * cols + j] = 2;
      } else {
        lcs[i * cols + j] = lcs[(i - 1) * cols + j];
        dir[i * cols + j] = 1;
      }
    }
  }
  const out = [...base];
  let i = rows - 1;
  let j = cols - 1;
  while (i !== 0 || j !== 0) {
    const d = dir[i * cols + j];
    if (d === 0) {
      out[i - 1].parents |= 1 << parent;
      i--;
      j--;
    } else if (d === 2) {
      // Inserted right after base line i-1: later (earlier-numbered) insertions land before it.
      out.splice(i, 0, incoming[j - 1]);
      j--;
    } else i--;
  }
  return out;
}

/** Reads a parent's blob as combine-diff.c's grab_blob does (a submodule as its `Subproject commit` line). */
async function parentBytes(repo: Repo, parent: CombinedParent): Promise<Uint8Array> {
  if (parent.mode === "160000") return subprojectText(parent.oid);
  if (parent.oid === ZERO_OID) return new Uint8Array();
  return await repo.objects.readTyped(parent.oid, "blob");
}

/** The file in the work tree as git's show_patch_diff reads it: bytes in git's form and its mode, or null when gone. */
async function worktreeResult(repo: Repo, path: string): Promise<{ bytes: Uint8Array; mode: string } | null> {
  const info = lstatTracked(repo, path);
  if (!info) return null;
  if (info.isDirectory) return null;
  const bytes = await worktreeBlob(repo, path, info);
  // git's canon_mode: a link, or a file executable by its owner or not.
  const mode = info.isSymlink ? "120000" : (info.mode ?? 0) & 0o100 ? "100755" : "100644";
  return { bytes, mode };
}

/**
 * The combined diff of the unmerged `path` (the work tree against `parents`, git's stage 2 then
 * stage 3), byte for byte as `git diff` prints it with colour off.
 */
export async function combinedDiff(
  repo: Repo,
  path: string,
  parents: readonly CombinedParent[],
  options: CombinedOptions,
): Promise<Uint8Array> {
  const context = options.context;
  const algorithm = options.algorithm ?? DEFAULT_ALGORITHM;
  const numParent = parents.length;
  const fromCommit = options.result !== undefined;
  const found = !fromCommit
    ? await worktreeResult(repo, path)
    : options.result
    ? { bytes: await parentBytes(repo, options.result), mode: options.result.mode }
    : null;
  const result = found?.bytes ?? new Uint8Array();
  const resultMode = found?.mode ?? null;
  const resultDeleted = found === null;
  const modeDiffers = parents.some((p) => p.mode !== (resultMode ?? ""));

  const out: Uint8Array[] = [];
  const text = (s: string) => out.push(new TextEncoder().encode(s));
  const header = (showFileHeader: boolean) => {
    text(`diff ${options.dense ? "--cc" : "--combined"} ${quoteName(path, repo.quotePath)}\n`);
    text(
      `index ${parents.map((p) => abbreviate(repo, p.oid)).join(",")}..${
        abbreviate(repo, options.result?.oid ?? ZERO_OID)
      }\n`,
    );
    if (modeDiffers) {
      // A parent is never "added" here (diff-files marks each stage modified), so no "new file mode".
      text(
        `${resultDeleted ? "deleted file " : ""}mode ${parents.map((p) => p.mode.padStart(6, "0")).join(",")}${
          resultMode ? `..${resultMode.padStart(6, "0")}` : ""
        }\n`,
      );
    }
    if (!showFileHeader) return;
    const prefixes = options.prefixes ?? { a: "a/", b: "b/" };
    text(`--- ${quoteName(`${prefixes.a}${path}`, repo.quotePath)}\n`);
    text(`+++ ${resultDeleted ? "/dev/null" : quoteName(`${prefixes.b}${path}`, repo.quotePath)}\n`);
  };

  const attribute = (await conversionFor(repo).plan(path)).diff;
  let binary = attribute === false;
  if (attribute !== true && !binary) {
    binary = looksBinary(result);
    for (const parent of parents) if (!binary && looksBinary(await parentBytes(repo, parent))) binary = true;
  }
  if (binary) {
    header(false);
    text("Binary files differ\n");
    return concatBytes(out);
  }

  // The result's lines: [start, end) without the newline.
  let cnt = 0;
  for (const byte of result) if (byte === 0x0a) cnt++;
  if (result.length && result[result.length - 1] !== 0x0a) cnt++;
  const sline: ResultLine[] = [];
  let start = 0;
  for (let lno = 0; lno < cnt + 2; lno++) {
    let end = start;
    if (lno < cnt) {
      while (end < result.length && result[end] !== 0x0a) end++;
    }
    sline.push({ flag: 0, lost: [], pending: [], start, end, pLno: new Array(numParent).fill(0) });
    if (lno < cnt) start = end + 1;
  }

  for (let n = 0; n < numParent; n++) {
    const reused = parents.findIndex((p, j) => j < n && p.oid === parents[n].oid);
    if (reused >= 0) {
      // combine-diff.c's reuse_combine_diff: the same blob as an earlier parent.
      const jmask = 1 << reused;
      const imask = 1 << n;
      for (let lno = 0; lno <= cnt; lno++) {
        const sl = sline[lno];
        sl.pLno[n] = sl.pLno[reused];
        for (const ll of sl.lost) if (ll.parents & jmask) ll.parents |= imask;
        if (sl.flag & jmask) sl.flag |= imask;
      }
      sline[cnt + 1].pLno[n] = sline[cnt + 1].pLno[reused];
      continue;
    }
    if (resultDeleted) continue;
    const nmask = 1 << n;
    const parentFile = await parentBytes(repo, parents[n]);
    // combine-diff.c diffs each parent with no context, so xdiff's common-tail trimming applies.
    const [a, b] = trimCommonTail(parentFile, result);
    const changes = lineChanges(a, b, algorithm);
    // Line starts of the parent, for its lost lines.
    const parentStarts: number[] = [0];
    for (let k = 0; k < a.length; k++) if (a[k] === 0x0a && k + 1 < a.length) parentStarts.push(k + 1);
    const parentLine = (i: number) => {
      const s = parentStarts[i];
      let e = s;
      while (e < a.length && a[e] !== 0x0a) e++;
      return a.subarray(s, e);
    };
    for (let k = 0; k < changes.length; k += 4) {
      const i1 = changes[k];
      const i2 = changes[k + 1];
      const chg1 = changes[k + 2];
      const chg2 = changes[k + 3];
      // xdiff's hunk header numbers: an empty side names the line before it.
      let nb = chg2 ? i2 + 1 : i2;
      const bucket = chg2 === 0 ? sline[nb] : sline[nb - 1];
      if (chg2 === 0 && nb === 0) nb = 1;
      for (let l = 0; l < chg1; l++) bucket.pending.push({ line: parentLine(i1 + l), parents: nmask });
      let lno = chg2 ? i2 + 1 : nb;
      for (let l = 0; l < chg2; l++) {
        sline[lno - 1].flag |= nmask;
        lno++;
      }
    }
    let pLno = 1;
    let lno = 0;
    for (; lno <= cnt; lno++) {
      const sl = sline[lno];
      sl.pLno[n] = pLno;
      if (sl.pending.length) {
        sl.lost = coalesce(sl.lost, sl.pending, n);
        sl.pending = [];
      }
      for (const ll of sl.lost) if (ll.parents & nmask) pLno++;
      if (lno < cnt && !(sl.flag & nmask)) pLno++;
    }
    sline[lno].pLno[n] = pLno;
  }

  const showHunks = makeHunks(sline, cnt, numParent, options.dense, context);
  // From the work tree (diff-files), git prints the header even when no hunk is left to show.
  if (fromCommit && !showHunks && !modeDiffers) return new Uint8Array();
  header(true);
  if (!resultDeleted) dumpLines(out, sline, result, cnt, numParent, context);
  return concatBytes(out);
}

function interesting(sl: ResultLine, allMask: number): boolean {
  return (sl.flag & allMask) !== 0 || sl.lost.length > 0;
}

function adjustHunkTail(sline: ResultLine[], allMask: number, hunkBegin: number, i: number): number {
  if (hunkBegin + 1 <= i && !(sline[i - 1].flag & allMask)) i--;
  return i;
}

function findNext(sline: ResultLine[], mark: number, i: number, cnt: number, uninteresting: boolean): number {
  while (i <= cnt) {
    if (uninteresting ? !(sline[i].flag & mark) : sline[i].flag & mark) return i;
    i++;
  }
  return i;
}

function giveContext(sline: ResultLine[], cnt: number, numParent: number, context: number): boolean {
  const allMask = (1 << numParent) - 1;
  const mark = 1 << numParent;
  const noPreDelete = 2 << numParent;
  let i = findNext(sline, mark, 0, cnt, false);
  if (cnt < i) return false;
  while (i <= cnt) {
    let j = context < i ? i - context : 0;
    while (j < i) {
      if (!(sline[j].flag & mark)) sline[j].flag |= noPreDelete;
      sline[j++].flag |= mark;
    }
    for (;;) {
      j = findNext(sline, mark, i, cnt, true);
      if (cnt < j) return true;
      let k = findNext(sline, mark, j, cnt, false);
      j = adjustHunkTail(sline, allMask, i, j);
      if (k < j + context) {
        while (j < k) sline[j++].flag |= mark;
        i = k;
        continue;
      }
      i = k;
      k = j + context < cnt + 1 ? j + context : cnt + 1;
      while (j < k) sline[j++].flag |= mark;
      break;
    }
  }
  return true;
}

function makeHunks(sline: ResultLine[], cnt: number, numParent: number, dense: boolean, context: number): boolean {
  const allMask = (1 << numParent) - 1;
  const mark = 1 << numParent;
  for (let i = 0; i <= cnt; i++) {
    if (interesting(sline[i], allMask)) sline[i].flag |= mark;
    else sline[i].flag &= ~mark;
  }
  if (!dense) return giveContext(sline, cnt, numParent, context);
  // A hunk whose changes come from one parent only, or are the same against all but one, is dropped.
  let i = 0;
  while (i <= cnt) {
    while (i <= cnt && !(sline[i].flag & mark)) i++;
    if (cnt < i) break;
    const hunkBegin = i;
    let j = i + 1;
    for (; j <= cnt; j++) {
      if (!(sline[j].flag & mark)) {
        let la = adjustHunkTail(sline, allMask, hunkBegin, j);
        la = la + context < cnt + 1 ? la + context : cnt + 1;
        let contin = false;
        while (la && j <= --la) {
          if (sline[la].flag & mark) {
            contin = true;
            break;
          }
        }
        if (!contin) break;
        j = la;
      }
    }
    const hunkEnd = j;
    let sameDiff = 0;
    let hasInteresting = false;
    for (j = i; j < hunkEnd && !hasInteresting; j++) {
      let thisDiff = sline[j].flag & allMask;
      if (thisDiff) {
        if (!sameDiff) sameDiff = thisDiff;
        else if (sameDiff !== thisDiff) {
          hasInteresting = true;
          break;
        }
      }
      for (const ll of sline[j].lost) {
        if (hasInteresting) break;
        thisDiff = ll.parents;
        if (!sameDiff) sameDiff = thisDiff;
        else if (sameDiff !== thisDiff) hasInteresting = true;
      }
    }
    if (!hasInteresting && sameDiff !== allMask) {
      for (j = hunkBegin; j < hunkEnd; j++) sline[j].flag &= ~mark;
    }
    i = hunkEnd;
  }
  return giveContext(sline, cnt, numParent, context);
}

function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/** combine-diff.c's dump_sline: each hunk's `@@@ -a,b -c,d +e,f @@@` header, then its lines. */
function dumpLines(
  out: Uint8Array[],
  sline: ResultLine[],
  result: Uint8Array,
  cnt: number,
  numParent: number,
  context: number,
): void {
  const encoder = new TextEncoder();
  const mark = 1 << numParent;
  const noPreDelete = 2 << numParent;
  const marker = "@".repeat(numParent + 1);
  const newline = new Uint8Array([0x0a]);
  let lno = 0;
  for (;;) {
    let hunkComment = -1;
    let nullContext = 0;
    while (lno <= cnt && !(sline[lno].flag & mark)) {
      // git's hunk_comment_line: a line starting with a letter, `_` or `$` (the trailer has no line).
      if (lno < cnt) {
        const c = result[sline[lno].start];
        if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x24) hunkComment = lno;
      }
      lno++;
    }
    if (cnt < lno) break;
    let hunkEnd = lno + 1;
    for (; hunkEnd <= cnt; hunkEnd++) if (!(sline[hunkEnd].flag & mark)) break;
    let rlines = hunkEnd - lno;
    if (cnt < hunkEnd) rlines--;
    if (!context) {
      for (let j = lno; j < hunkEnd; j++) if (!(sline[j].flag & (mark - 1))) nullContext++;
      rlines -= nullContext;
    }
    let head = marker;
    for (let n = 0; n < numParent; n++) {
      const l0 = sline[lno].pLno[n];
      const l1 = sline[hunkEnd].pLno[n];
      head += ` -${l0},${l1 - l0 - nullContext}`;
    }
    head += ` +${lno + 1},${rlines} ${marker}`;
    out.push(encoder.encode(head));
    if (hunkComment >= 0) {
      const s = sline[hunkComment].start;
      const e = sline[hunkComment].end;
      let commentEnd = 0;
      for (let i = 0; i < 40 && s + i < e; i++) {
        const c = result[s + i];
        if (c === 0) break;
        if (!isSpace(c)) commentEnd = i;
      }
      // git prints the comment up to (not including) its last non-blank byte.
      if (commentEnd) {
        out.push(encoder.encode(" "));
        out.push(result.slice(s, s + commentEnd));
      }
    }
    out.push(newline);
    while (lno < hunkEnd) {
      const sl = sline[lno++];
      const lost = sl.flag & noPreDelete ? [] : sl.lost;
      for (const ll of lost) {
        let columns = "";
        for (let j = 0; j < numParent; j++) columns += ll.parents & (1 << j) ? "-" : " ";
        out.push(encoder.encode(columns), ll.line, newline);
      }
      if (cnt < lno) break;
      if (!(sl.flag & (mark - 1)) && !context) continue;
      let columns = "";
      for (let j = 0; j < numParent; j++) columns += sl.flag & (1 << j) ? "+" : " ";
      out.push(encoder.encode(columns), result.subarray(sl.start, sl.end), newline);
    }
  }
}
