/**
 * Unified diffs in git's format, from xdiff's line diff (line_diff.ts): `diff --git` headers with mode,
 * new/deleted-file and `index` lines, `@@` hunks with git's default function-name context,
 * "\ No newline at end of file", and "Binary files ... differ" for binary content (a NUL in the
 * first 8000 bytes, as git decides; other text that is not UTF-8 is shown byte for byte). Renames are
 * detected as git detects them (`findRenames`, on by default as with git's diff.renames) and shown
 * with git's `similarity index` / `rename from` / `rename to` lines.
 */

import { unifiedDiff } from "./line_diff.ts";
import { comparePaths, looksBinary } from "./bytes.ts";
import { sha1 } from "./codec.ts";
import { MODE_GITLINK, MODE_LINK, objectHeader } from "./objects.ts";
import { submoduleHead, subprojectText } from "./submodule.ts";
import type { Repo } from "./repo.ts";
import type { FlatEntry } from "./tree.ts";
import { lstatTracked } from "./worktree.ts";
import { conversionFor, worktreeBlob } from "./convert.ts";
import { DEFAULT_RENAME_SCORE, detectRenames, MAX_SCORE, similarityPercent } from "./renames.ts";

/** One side of a file change: a blob, or the file in the work tree (oid computed when read). */
export type DiffSide = { kind: "blob"; oid: string; mode: string } | { kind: "worktree"; mode: string } | null;

export interface FileChange {
  readonly path: string;
  readonly old: DiffSide;
  readonly new: DiffSide;
  /** A rename: the path the old side had, and git's score (0..60000). */
  readonly oldPath?: string;
  readonly score?: number;
}

export interface DiffFile {
  path: string;
  old_path?: string;
  similarity?: number;
  status: "added" | "modified" | "deleted" | "typechange" | "renamed";
  old_mode: string | null;
  new_mode: string | null;
  binary: boolean;
  additions: number;
  deletions: number;
}

export interface RenderedDiff {
  readonly patch: string;
  readonly files: DiffFile[];
  readonly additions: number;
  readonly deletions: number;
}

async function load(repo: Repo, path: string, side: DiffSide): Promise<{ bytes: Uint8Array; oid: string }> {
  if (!side) return { bytes: new Uint8Array(), oid: "0".repeat(40) };
  if (side.mode === MODE_GITLINK) {
    // A submodule: the commit it records (or, in the work tree, the one checked out), as git shows it.
    const oid = side.kind === "blob" ? side.oid : submoduleHead(repo, path) ?? "0".repeat(40);
    return { bytes: subprojectText(oid), oid };
  }
  if (side.kind === "blob") return { bytes: await repo.objects.readTyped(side.oid, "blob"), oid: side.oid };
  const info = lstatTracked(repo, path);
  const bytes = info ? await worktreeBlob(repo, path, info) : new Uint8Array();
  return { bytes, oid: await sha1(objectHeader("blob", bytes.length), bytes) };
}

const isLink = (side: DiffSide) => side?.mode === MODE_LINK;

/** Renders the changes (sorted by path) as one git-style patch. */
export async function renderDiff(repo: Repo, changes: readonly FileChange[], context = 3): Promise<RenderedDiff> {
  const files: DiffFile[] = [];
  let patch = "";
  let additions = 0;
  let deletions = 0;
  for (const change of [...changes].sort((a, b) => comparePaths(a.path, b.path))) {
    // A change between a link and a file is shown as a deletion plus an addition, as git does.
    const split = change.old && change.new && isLink(change.old) !== isLink(change.new);
    const parts: FileChange[] = split
      ? [{ path: change.path, old: change.old, new: null }, { path: change.path, old: null, new: change.new }]
      : [change];
    let fileAdd = 0;
    let fileDel = 0;
    let binary = false;
    let printed = false;
    for (const part of parts) {
      const oldPath = part.oldPath ?? part.path;
      const before = await load(repo, oldPath, part.old);
      const after = await load(repo, part.path, part.new);
      const oldMode = part.old?.mode ?? null;
      const newMode = part.new?.mode ?? null;
      if (before.oid === after.oid && oldMode === newMode && !part.oldPath) continue;
      const a = part.old ? `a/${oldPath}` : "/dev/null";
      const b = part.new ? `b/${part.path}` : "/dev/null";
      let header = `diff --git a/${oldPath} b/${part.path}\n`;
      if (!part.old) header += `new file mode ${newMode}\n`;
      else if (!part.new) header += `deleted file mode ${oldMode}\n`;
      else if (oldMode !== newMode) header += `old mode ${oldMode}\nnew mode ${newMode}\n`;
      if (part.oldPath) {
        header += `similarity index ${similarityPercent(part.score ?? MAX_SCORE)}%\n` +
          `rename from ${part.oldPath}\nrename to ${part.path}\n`;
      }
      const sameMode = part.old && part.new && oldMode === newMode;
      if (before.oid !== after.oid) {
        header += `index ${before.oid.slice(0, 7)}..${after.oid.slice(0, 7)}${sameMode ? ` ${oldMode}` : ""}\n`;
      }
      patch += header;
      printed = true;
      if (before.oid === after.oid) continue;
      // `-diff` (or `binary`) in .gitattributes: shown as binary whatever the content, as git does.
      const textual = (await conversionFor(repo).plan(part.path)).diff !== false;
      // Binary as git decides: a NUL in the first 8,000 bytes. Other text that is not UTF-8 (Latin-1,
      // say) is still text: line_diff.ts shows it one character per byte.
      if (!textual || looksBinary(before.bytes) || looksBinary(after.bytes)) {
        binary = true;
        patch += `Binary files ${a} and ${b} differ\n`;
        continue;
      }
      if (before.bytes.length === 0 && after.bytes.length === 0) continue;
      patch += `--- ${a}\n+++ ${b}\n`;
      const hunks = unifiedDiff(before.bytes, after.bytes, context);
      patch += hunks.text;
      fileAdd += hunks.add;
      fileDel += hunks.del;
    }
    const status: DiffFile["status"] = change.oldPath
      ? "renamed"
      : split
      ? "typechange"
      : !change.old
      ? "added"
      : !change.new
      ? "deleted"
      : "modified";
    // Nothing printed: content and mode turned out identical (e.g. a file only touched).
    if (!printed) continue;
    additions += fileAdd;
    deletions += fileDel;
    files.push({
      path: change.path,
      ...(change.oldPath ? { old_path: change.oldPath, similarity: similarityPercent(change.score ?? MAX_SCORE) } : {}),
      status,
      old_mode: change.old?.mode ?? null,
      new_mode: change.new?.mode ?? null,
      binary,
      additions: fileAdd,
      deletions: fileDel,
    });
  }
  return { patch, files, additions, deletions };
}

/** A rename as git's diffstat names it: `dir/{old => new}/file` (git's pprint_rename). */
export function renameName(a: string, b: string): string {
  let prefix = 0;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) {
    if (a[i] === "/") prefix = i + 1;
    i++;
  }
  // Compared from the ends (the string ends count as equal), never back into the prefix but its slash.
  let suffix = 0;
  let ia = a.length;
  let ib = b.length;
  const floor = prefix - (prefix ? 1 : 0);
  const at = (s: string, k: number) => (k === s.length ? "" : s[k]);
  while (ia >= floor && ib >= floor && at(a, ia) === at(b, ib)) {
    if (at(a, ia) === "/") suffix = a.length - ia;
    ia--;
    ib--;
  }
  const aMid = Math.max(0, a.length - prefix - suffix);
  const bMid = Math.max(0, b.length - prefix - suffix);
  const middle = `${a.slice(prefix, prefix + aMid)} => ${b.slice(prefix, prefix + bMid)}`;
  return prefix + suffix ? `${a.slice(0, prefix)}{${middle}}${a.slice(a.length - suffix)}` : middle;
}

/** `git diff --stat`-like text. */
export function renderStat(files: readonly DiffFile[], additions: number, deletions: number): string {
  if (files.length === 0) return "";
  const named = files.map((f) => ({ ...f, path: f.old_path ? renameName(f.old_path, f.path) : f.path }));
  files = named;
  const width = Math.min(60, Math.max(...files.map((f) => f.path.length)));
  const maxChange = Math.max(...files.map((f) => f.additions + f.deletions), 1);
  const scale = Math.min(1, 40 / maxChange);
  const lines = files.map((f) => {
    const name = f.path.length > width ? "..." + f.path.slice(-(width - 3)) : f.path.padEnd(width);
    if (f.binary) return ` ${name} | Bin`;
    const plus = "+".repeat(Math.round(f.additions * scale) || (f.additions ? 1 : 0));
    const minus = "-".repeat(Math.round(f.deletions * scale) || (f.deletions ? 1 : 0));
    return ` ${name} | ${String(f.additions + f.deletions).padStart(4)} ${plus}${minus}`.trimEnd();
  });
  const summary = ` ${files.length} file${files.length === 1 ? "" : "s"} changed, ${additions} insertion${
    additions === 1 ? "" : "s"
  }(+), ${deletions} deletion${deletions === 1 ? "" : "s"}(-)`;
  return lines.join("\n") + "\n" + summary + "\n";
}

/**
 * Pairs deletions with additions that are renames (git's diffcore-rename, `minScore` out of
 * MAX_SCORE): each pair becomes one change at the new path with `oldPath` set.
 */
export async function findRenames(
  repo: Repo,
  changes: readonly FileChange[],
  minScore = DEFAULT_RENAME_SCORE,
): Promise<FileChange[]> {
  const deleted = new Map<string, { oid: string; mode: string; side: DiffSide }>();
  const added = new Map<string, { oid: string; mode: string; side: DiffSide }>();
  for (const c of changes) {
    if (c.old && !c.new) {
      deleted.set(c.path, { oid: c.old.kind === "blob" ? c.old.oid : "", mode: c.old.mode, side: c.old });
    }
    if (!c.old && c.new) {
      added.set(c.path, {
        oid: c.new.kind === "blob" ? c.new.oid : `worktree:${c.path}`,
        mode: c.new.mode,
        side: c.new,
      });
    }
  }
  if (deleted.size === 0 || added.size === 0) return [...changes];
  // A work-tree side's blob name is only known once read: read it up front so exact renames match.
  for (const [path, entry] of added) {
    if (entry.side?.kind === "worktree") entry.oid = (await load(repo, path, entry.side)).oid;
  }
  const renames = await detectRenames(
    deleted,
    added,
    async (path, entry) => (await load(repo, path, entry.side)).bytes,
    minScore,
  );
  if (renames.length === 0) return [...changes];
  const from = new Map(renames.map((r) => [r.from, r]));
  const to = new Map(renames.map((r) => [r.to, r]));
  const out: FileChange[] = [];
  for (const c of changes) {
    if (c.old && !c.new && from.has(c.path)) continue;
    const rename = !c.old && c.new ? to.get(c.path) : undefined;
    if (rename) {
      out.push({
        path: c.path,
        old: deleted.get(rename.from)!.side,
        new: c.new,
        oldPath: rename.from,
        score: rename.score,
      });
    } else out.push(c);
  }
  return out;
}

/** Changes between two flattened trees (or index snapshots). */
export function changesBetween(
  from: ReadonlyMap<string, FlatEntry>,
  to: ReadonlyMap<string, FlatEntry>,
): FileChange[] {
  const out: FileChange[] = [];
  for (const [path, a] of from) {
    const b = to.get(path);
    if (!b) out.push({ path, old: { kind: "blob", ...a }, new: null });
    else if (a.oid !== b.oid || a.mode !== b.mode) {
      out.push({ path, old: { kind: "blob", ...a }, new: { kind: "blob", ...b } });
    }
  }
  for (const [path, b] of to) if (!from.has(path)) out.push({ path, old: null, new: { kind: "blob", ...b } });
  return out;
}
