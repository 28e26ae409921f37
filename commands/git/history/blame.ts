/**
 * `git blame`: which commit last changed each line of a file, computed as git's blame.c does.
 * Lines are tracked per origin — a commit and the path the file had there. Commits are visited
 * newest first (committer date); each hands the lines its parents already had on to them:
 *  - first pass: each parent's version at the same path; a parent with the very same blob takes
 *    every line at once;
 *  - second pass (whole-file renames, git's default): a parent without the path gets the file it
 *    was renamed from, found by rename detection between that parent and the commit with the path
 *    as the only destination (git's `single_follow`);
 *  - then, parent by parent, the unchanged regions of a line diff go on to the parent; the first
 *    such parent is the origin's `previous`. Whatever no parent takes is this origin's own.
 * A commit with no parents (a root, or a shallow clone's boundary) is a boundary, marked `^` as
 * git marks it. A line of the work tree that no commit has is "Not Committed Yet".
 */

import { LineNumbering, type NumberedVersion } from "../diff/line_diff.ts";
import { detectRenames } from "../diff/renames.ts";
import { flattenTree } from "../odb/tree.ts";
import type { CommitLinks } from "../odb/objects.ts";
import type { Repo } from "../repo/repo.ts";
import { encodeName, toHex } from "../odb/bytes.ts";

/** The pseudo-commit of lines only the work tree has, as git names it. */
export const NOT_COMMITTED = "0000000000000000000000000000000000000000";

export interface BlamedLine {
  /** 1-based line number in the blamed version. */
  readonly line: number;
  readonly commit: string;
  /** The file's path in that commit (differs from the blamed path across a rename). */
  readonly path: string;
  /** 1-based line number in that commit's version of the file. */
  readonly origLine: number;
  /** true for a commit with no parent, a root or a shallow boundary (git marks it `^`). */
  readonly boundary: boolean;
  /** The parent version this commit's lines were compared with (git's porcelain `previous`). */
  readonly previous: { readonly commit: string; readonly path: string } | null;
  readonly text: string;
}

/**
 * Lines still to blame, as two parallel lists (no object per line: a blame hands thousands of
 * lines on at every commit): `final[k]` is a line's index in the final text, `here[k]` its index
 * in this origin's version. A list handed to `enqueue` belongs to the queue from then on.
 */
interface Pending {
  readonly final: Int32Array;
  readonly here: Int32Array;
}

interface Origin {
  readonly oid: string;
  readonly path: string;
  readonly commit: CommitLinks;
  readonly blob: string;
}

interface Visit extends Origin {
  pending: Pending;
}

const nameCache = new Map<string, Uint8Array>();
const nameBytes = (name: string) => {
  let bytes = nameCache.get(name);
  if (!bytes) nameCache.set(name, bytes = encodeName(name));
  return bytes;
};

/**
 * One entry of a raw tree object by its exact name, without decoding the others (the walk reads
 * thousands of trees for one path). A name that matches is the asked-for path's own component.
 */
function findTreeEntry(content: Uint8Array, name: Uint8Array): { oid: string; mode: string } | null {
  let i = 0;
  while (i < content.length) {
    const space = content.indexOf(0x20, i);
    const nul = content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) return null;
    if (nul - space - 1 === name.length) {
      let same = true;
      for (let k = 0; k < name.length && same; k++) same = content[space + 1 + k] === name[k];
      if (same) {
        // A mode is octal digits: read as one character per byte.
        let mode = "";
        for (let k = i; k < space; k++) mode += String.fromCharCode(content[k]);
        return { mode: mode === "040000" ? "40000" : mode, oid: toHex(content, nul + 1, nul + 21) };
      }
    }
    i = nul + 21;
  }
  return null;
}

const isFile = (mode: string) => mode !== "40000" && mode !== "160000";

/**
 * Blames `finalBytes` (the file `path` at `start`, or the work tree's version of it in git's form
 * when `worktree` is true) line by line. Lines are compared as git's diff compares them, by their
 * bytes with the newline.
 */
export async function blame(
  repo: Repo,
  start: string | null,
  path: string,
  finalBytes: Uint8Array,
  worktree: boolean,
): Promise<BlamedLine[]> {
  const numbering = new LineNumbering();
  const finalVersion: Version = { bytes: finalBytes, ...numbering.version(finalBytes) };
  const finalCount = finalVersion.lines.count;
  const owner: (
    | { origin: Origin | null; here: number; boundary: boolean; previous: BlamedLine["previous"] }
    | null
  )[] = new Array(finalCount).fill(null);
  const queue = new Map<string, Visit>();
  const blobs = new Map<string, Version>();
  /** The version `blob` holds; `like`, a version it mostly shares, saves numbering their common lines. */
  const versionOf = async (blob: string, like?: Version): Promise<Version> => {
    let version = blobs.get(blob);
    if (!version) {
      const bytes = (await repo.objects.read(blob)).content;
      version = { bytes, ...numbering.version(bytes, like) };
      blobs.set(blob, version);
    }
    return version;
  };
  const commitOf = (oid: string) => repo.objects.readCommitLinks(oid);
  // Most commits share their subtrees with the next one: each (tree, rest of path) is looked up once.
  const lookups = new Map<string, Promise<{ oid: string; mode: string } | null>>();
  type Found = { oid: string; mode: string } | null;
  const lookupCached = (tree: string, parts: readonly string[], from: number): Promise<Found> => {
    const key = `${tree}\0${parts.slice(from).join("/")}`;
    let found = lookups.get(key);
    if (!found) {
      found = (async (): Promise<Found> => {
        const entry = findTreeEntry(await repo.objects.readTyped(tree, "tree"), nameBytes(parts[from]));
        if (!entry || from === parts.length - 1) return entry;
        return entry.mode === "40000" ? await lookupCached(entry.oid, parts, from + 1) : null;
      })();
      lookups.set(key, found);
    }
    return found;
  };
  const originAt = async (oid: string, at: string): Promise<Origin | null> => {
    const commit = await commitOf(oid);
    const found = await lookupCached(commit.tree, at.split("/"), 0);
    if (!found || !isFile(found.mode)) return null;
    return { oid, path: at, commit, blob: found.oid };
  };
  /** The file `child.path` was renamed from in `parent` (git's find_rename), if any. */
  const renamedFrom = async (parent: string, child: Origin): Promise<Origin | null> => {
    const parentCommit = await commitOf(parent);
    const before = await flattenTree(repo, parentCommit.tree);
    const after = await flattenTree(repo, child.commit.tree);
    const deleted = new Map<string, { oid: string; mode: string }>();
    for (const [p, entry] of before) if (!after.has(p)) deleted.set(p, entry);
    const target = after.get(child.path);
    if (!target || deleted.size === 0) return null;
    const renames = await detectRenames(
      deleted,
      new Map([[child.path, target]]),
      async (_p, side) => (await repo.objects.read(side.oid)).content,
    );
    const rename = renames.find((r) => r.to === child.path);
    if (!rename) return null;
    const source = deleted.get(rename.from)!;
    if (!isFile(source.mode)) return null;
    return { oid: parent, path: rename.from, commit: parentCommit, blob: source.oid };
  };
  const enqueue = (origin: Origin, pending: Pending) => {
    const key = `${origin.oid}\0${origin.path}`;
    const seen = queue.get(key);
    if (!seen) {
      queue.set(key, { ...origin, pending });
      return;
    }
    seen.pending = { final: joined(seen.pending.final, pending.final), here: joined(seen.pending.here, pending.here) };
  };

  const everyLine = Int32Array.from({ length: finalCount }, (_, i) => i);
  let pending: Pending = { final: everyLine, here: everyLine.slice() };
  if (start !== null) {
    const top = await originAt(start, path);
    if (top && worktree) {
      // Lines the work tree shares with the start commit go on; the others are not committed yet.
      const split = handOn(numbering, await versionOf(top.blob, finalVersion), finalVersion, pending);
      for (let k = 0; k < split.left.final.length; k++) {
        owner[split.left.final[k]] = {
          origin: null,
          here: split.left.here[k],
          boundary: false,
          previous: { commit: start, path },
        };
      }
      pending = split.passed;
    }
    if (top && pending.final.length) enqueue(top, pending);
  }
  while (queue.size > 0) {
    // Newest first (committer date), the earliest queued first among equals, as git's queue.
    let next: Visit | null = null;
    for (const visit of queue.values()) {
      if (!next || visit.commit.committerTime > next.commit.committerTime) next = visit;
    }
    const visit = next!;
    queue.delete(`${visit.oid}\0${visit.path}`);
    const parents = visit.commit.parents;
    const scapegoats: (Origin | null)[] = new Array(parents.length).fill(null);
    let whole: Origin | null = null;
    for (let pass = 0; pass < 2 && !whole; pass++) {
      for (let i = 0; i < parents.length; i++) {
        if (scapegoats[i]) continue;
        const found = pass === 0 ? await originAt(parents[i], visit.path) : await renamedFrom(parents[i], visit);
        if (!found) continue;
        if (found.blob === visit.blob) {
          whole = found;
          break;
        }
        // Two parents with the same version: the first one takes the lines.
        if (!scapegoats.some((s) => s?.blob === found.blob)) scapegoats[i] = found;
      }
    }
    if (whole) {
      enqueue(whole, visit.pending);
      continue;
    }
    let left = visit.pending;
    let previous: BlamedLine["previous"] = null;
    for (const parent of scapegoats) {
      if (!parent) continue;
      previous ??= { commit: parent.oid, path: parent.path };
      if (left.final.length === 0) break;
      const child = await versionOf(visit.blob);
      const split = handOn(numbering, await versionOf(parent.blob, child), child, left);
      if (split.passed.final.length) enqueue(parent, split.passed);
      left = split.left;
    }
    for (let k = 0; k < left.final.length; k++) {
      owner[left.final[k]] = { origin: visit, here: left.here[k], boundary: parents.length === 0, previous };
    }
  }
  const decoder = new TextDecoder();
  const { starts } = finalVersion.lines;
  return owner.map((own, i) => {
    // The line's text without its newline (a last line may have none).
    const end = finalBytes[starts[i + 1] - 1] === 0x0a ? starts[i + 1] - 1 : starts[i + 1];
    const text = decoder.decode(finalBytes.subarray(starts[i], end));
    return {
      line: i + 1,
      commit: own?.origin?.oid ?? NOT_COMMITTED,
      path: own?.origin?.path ?? path,
      origLine: (own?.here ?? i) + 1,
      boundary: own?.boundary ?? false,
      previous: own?.previous ?? null,
      text,
    };
  });
}

/** `a` then `b`, in a new array. */
function joined(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** A version of the file: its bytes, split into lines and numbered by the blame's LineNumbering. */
interface Version extends NumberedVersion {
  readonly bytes: Uint8Array;
}

/**
 * How many trailing lines both versions share and git's blame leaves out of its line diff: xdiff
 * (xdi_diff, without context lines) first trims the common tail in blocks of 1024 bytes, given
 * back up to the first newline — which changes how the rest aligns where lines repeat.
 */
function commonTailLines(x: Version, y: Version): number {
  const a = x.bytes;
  const b = y.bytes;
  // The common tail in bytes: whole lines by their numbers (equal numbers, equal bytes), then byte by byte.
  let lines = 0;
  const most = Math.min(x.lines.count, y.lines.count);
  while (lines < most && x.ids[x.lines.count - 1 - lines] === y.ids[y.lines.count - 1 - lines]) lines++;
  let common = a.length - x.lines.starts[x.lines.count - lines];
  const smaller = Math.min(a.length, b.length);
  while (common < smaller && a[a.length - 1 - common] === b[b.length - 1 - common]) common++;
  const block = 1024;
  const trimmed = common - (common % block);
  if (trimmed === 0) return 0;
  const start = a.length - trimmed;
  let recovered = 0;
  while (recovered < trimmed) if (a[start + recovered++] === 0x0a) break;
  const cut = trimmed - recovered;
  // The trimmed part must be whole lines (it ends both files); then it is those lines.
  if (cut === 0 || a[a.length - cut - 1] !== 0x0a) return 0;
  // Those lines are the ones from the line that starts where the cut does.
  const { starts, count } = x.lines;
  const from = a.length - cut;
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid] < from) lo = mid + 1;
    else hi = mid;
  }
  return count - lo;
}

/**
 * The pending lines of `child` split by whether the `parent` version already has them: those it
 * has (`passed`, each with its line there), and the rest (`left`, as they were).
 */
function handOn(
  numbering: LineNumbering,
  parentVersion: Version,
  childVersion: Version,
  pending: Pending,
): { passed: Pending; left: Pending } {
  const parentCount = parentVersion.lines.count;
  const childCount = childVersion.lines.count;
  const tail = Math.min(commonTailLines(parentVersion, childVersion), parentCount, childCount);
  const head = numbering.kept(parentVersion, parentCount - tail, childVersion, childCount - tail);
  const childToParent = new Int32Array(childCount);
  childToParent.set(head);
  for (let i = childCount - tail; i < childCount; i++) childToParent[i] = i - childCount + parentCount;
  const count = pending.final.length;
  const passedFinal = new Int32Array(count);
  const passedHere = new Int32Array(count);
  const leftFinal = new Int32Array(count);
  const leftHere = new Int32Array(count);
  let passedCount = 0;
  let leftCount = 0;
  for (let k = 0; k < count; k++) {
    const here = pending.here[k];
    const at = childToParent[here];
    if (at !== undefined && at >= 0) {
      passedFinal[passedCount] = pending.final[k];
      passedHere[passedCount++] = at;
    } else {
      leftFinal[leftCount] = pending.final[k];
      leftHere[leftCount++] = here;
    }
  }
  return {
    passed: { final: passedFinal.subarray(0, passedCount), here: passedHere.subarray(0, passedCount) },
    left: { final: leftFinal.subarray(0, leftCount), here: leftHere.subarray(0, leftCount) },
  };
}
