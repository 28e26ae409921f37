/**
 * Moving the index and the work tree from one tree to another (git's unpack-trees, two-way):
 * branch switches carry local changes along when the two trees agree on a path and refuse
 * when a change would be overwritten; `--force` and `reset --hard` take the target as it is.
 * Planning happens before anything is touched, so a refusal changes nothing. Deletions run
 * before writes, so a file that becomes a folder (or a link that becomes a folder) is gone
 * before anything is written below it.
 */

import { PtermError } from "../../../core/errors.ts";
import { comparePaths } from "../odb/bytes.ts";
import { worktreeHolds, worktreeState } from "./compare.ts";
import { conversionFor } from "./convert.ts";
import { IgnoreRules } from "./ignore.ts";
import {
  emptyEntry,
  entryFromWrite,
  type Index,
  type IndexEntry,
  S_IFGITLINK,
  S_IFLNK,
  treeModeToMode,
} from "./index_file.ts";
import { disableSymlinks, type Repo } from "../repo/repo.ts";
import { type FlatEntry, flattenTree, pathWithin } from "../odb/tree.ts";
import {
  hiddenPathDenied,
  keptInStep,
  lstatTracked,
  type PathPolicy,
  refuseUnaddressable,
  WorktreeWriter,
} from "./worktree.ts";

export type SwitchMode = "safe" | "force" | "hard";

export interface SwitchResult {
  /** Paths whose work-tree file was written or deleted. */
  readonly changed: string[];
  /** Hidden paths whose index entry followed the tree but whose file pterm did not touch. */
  readonly withheld: string[];
}

function sameEntry(a: { oid: string; mode: number } | undefined, b: FlatEntry | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.oid === b.oid && a.mode === treeModeToMode(b.mode);
}

function sameFlat(a: FlatEntry | undefined, b: FlatEntry | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.oid === b.oid && a.mode === b.mode;
}

interface Planned {
  readonly path: string;
  /** The target, or undefined to delete. */
  readonly target: FlatEntry | undefined;
  /** Whether the work-tree file must be (re)written or deleted; false: only the index changes. */
  readonly touchWorktree: boolean;
}

export function localChangesError(paths: string[], action: string, hint: string): PtermError {
  const sorted = [...paths].sort(comparePaths);
  const shown = sorted.slice(0, 20).join(", ") + (sorted.length > 20 ? `, ... (${sorted.length} in all)` : "");
  return new PtermError(
    "UncommittedChanges",
    `your local changes to these files would be overwritten by ${action}: ${shown}. ${hint}`,
    { result: { blocked_paths: sorted.slice(0, 1000) } },
  );
}

/**
 * Moves `index` (held lock) and the work tree from `oldTree` to `newTree`. `paths`, when given,
 * limits the update to those paths (used by `checkout <rev> -- paths` through `restorePaths`).
 */
export async function switchTrees(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  oldTree: string | null,
  newTree: string | null,
  mode: SwitchMode,
  action = "checkout",
  options: { dryRun?: boolean } = {},
): Promise<SwitchResult> {
  const O = await flattenTree(repo, oldTree);
  const N = await flattenTree(repo, newTree);
  const all = new Set<string>([...O.keys(), ...N.keys()]);
  if (mode !== "safe") {
    for (const p of index.entries.keys()) all.add(p);
    for (const p of index.conflicts.keys()) all.add(p);
  }
  const ignore = new IgnoreRules(repo.dir, repo.commondir, repo.ignoreCase, (p) => policy.hidden(p) !== null);
  const plan: Planned[] = [];
  const blocked: string[] = [];
  const withheld: string[] = [];
  const racy = index.fileMtimeMs;
  const deleting = new Set<string>();
  /** Folders standing where the target has a file: fine only if everything in them is being deleted. */
  const folderChecks: string[] = [];

  for (const path of [...all].sort(comparePaths)) {
    const o = O.get(path);
    const n = N.get(path);
    const i = index.entries.get(path);
    const conflicted = index.conflicts.has(path);
    const hidden = policy.hidden(path);
    if (hidden && !(await writesInStep(repo, policy, path, i, n, racy))) {
      // A tree that would write into a git directory is refused whole: recording it in the index
      // alone would have the person's git write it on their next checkout.
      if (hidden === "gitdir" && n && !sameEntry(i, n)) {
        throw hiddenPathDenied(path, hidden, "the checkout changed nothing");
      }
      if (!sameEntry(i, n) || conflicted) {
        plan.push({ path, target: n, touchWorktree: false });
        withheld.push(path);
      }
      continue;
    }
    if (mode === "safe") {
      if (conflicted) {
        blocked.push(path);
        continue;
      }
      if (sameFlat(o, n)) continue;
      if (i && sameEntry(i, n)) continue;
      if (i ? !sameEntry(i, o) : o !== undefined) {
        // Staged change (or staged deletion) that the target would replace.
        if (!(i === undefined && n === undefined)) {
          blocked.push(path);
          continue;
        }
        continue;
      }
      if (i) {
        const state = await worktreeState(repo, i, racy);
        if (state === "dirty") {
          blocked.push(path);
          continue;
        }
      } else if (n) {
        // Not tracked here, tracked there: an untracked file in the way must not be lost.
        const info = lstatTracked(repo, path);
        if (info && !info.isDirectory && !ignore.isIgnored(path, false) && !(await worktreeHolds(repo, path, n.oid))) {
          blocked.push(path);
          continue;
        }
        if (info?.isDirectory) folderChecks.push(path);
      }
      plan.push({ path, target: n, touchWorktree: true });
      if (!n) deleting.add(path);
      continue;
    }
    // force / hard: the target wins; skip what already matches.
    if (!conflicted && sameEntry(i, n)) {
      if (!n) continue;
      const state = await worktreeState(repo, i!, racy);
      if (state === "clean") continue;
    }
    const tracked = i !== undefined || o !== undefined || conflicted;
    if (!n && !tracked) continue;
    // `checkout --force` leaves files that were only added to the index on disk (git does too).
    const keepFile = mode === "force" && !n && o === undefined && !conflicted;
    plan.push({ path, target: n, touchWorktree: !keepFile });
    if (!n) deleting.add(path);
  }

  for (const folder of folderChecks) {
    if (filesUnder(repo.dir, folder).some((f) => !deleting.has(f))) blocked.push(folder);
  }
  if (mode === "safe") {
    // A new file below a path that is an untracked file in the work tree (not being deleted).
    for (const step of plan) {
      if (!step.target) continue;
      const parts = step.path.split("/");
      for (let k = 1; k < parts.length; k++) {
        const prefix = parts.slice(0, k).join("/");
        if (deleting.has(prefix)) continue;
        const info = lstatTracked(repo, prefix);
        if (info && !info.isDirectory) blocked.push(prefix);
        if (info?.isSymlink) blocked.push(prefix);
      }
    }
  }
  if (blocked.length > 0) {
    throw localChangesError(
      [...new Set(blocked)],
      action,
      "Commit them, stash them (`git stash push`), or discard them with --force.",
    );
  }
  refuseSkipWorktree(index, plan.map((p) => p.path), action);
  if (options.dryRun) {
    return { changed: plan.filter((p) => p.touchWorktree).map((p) => p.path), withheld };
  }
  return await applyPlan(repo, index, plan, mode !== "safe", withheld);
}

/**
 * Whether overwriting or deleting the work-tree file at `path` loses nothing: there is none, it matches its index
 * entry, or (untracked) it already holds the target blob. Hashing it here shows its content to no one.
 */
/**
 * Whether a step that moves the index to `target` may write `path` in the work tree as well: every path
 * that is not withheld, and a secret whose file holds nothing the index does not (a local change pterm
 * could neither show nor save) — written without its content being read out, so that the person's git
 * sees the same state after pterm's step as after its own. A path inside a git directory never is.
 */
export async function writesInStep(
  repo: Repo,
  policy: PathPolicy,
  path: string,
  entry: IndexEntry | undefined,
  target: FlatEntry | undefined,
  racy: number,
): Promise<boolean> {
  const hidden = policy.hidden(path);
  if (!hidden) return true;
  return keptInStep(hidden) && await holdsNothingUnsaved(repo, entry, target, path, racy);
}

export async function holdsNothingUnsaved(
  repo: Repo,
  entry: IndexEntry | undefined,
  target: FlatEntry | undefined,
  path: string,
  racy: number,
): Promise<boolean> {
  const info = lstatTracked(repo, path);
  if (!info) return true;
  if (info.isDirectory) return false;
  if (entry) return (await worktreeState(repo, entry, racy)) === "clean";
  return target !== undefined && (await worktreeHolds(repo, path, target.oid));
}

/** Every non-folder entry below `rel` (links not followed), relative to the work tree. */
function filesUnder(worktree: string, rel: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(`${worktree}/${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else out.push(path);
    }
  };
  try {
    walk(rel);
  } catch { /* unreadable: nothing known to be in the way */ }
  return out;
}

/** Executes a plan: deletions, then writes, then the index. */
async function applyPlan(
  repo: Repo,
  index: Index,
  plan: readonly Planned[],
  clearWay: boolean,
  withheld: string[],
): Promise<SwitchResult> {
  // Every blob the plan writes must be here before anything is removed or written: a partial
  // clone (or a damaged repository) then fails with the work tree and index untouched.
  refuseUnaddressable(plan.filter((step) => step.touchWorktree).map((step) => step.path), "the checkout");
  for (const step of plan) {
    if (!step.target || !step.touchWorktree || treeModeToMode(step.target.mode) === S_IFGITLINK) continue;
    if (!(await repo.objects.has(step.target.oid))) throw repo.objects.missing(step.target.oid);
  }
  const writer = new WorktreeWriter(repo);
  writer.refuseGitDirectories(
    plan.filter((step) => step.touchWorktree && step.target && treeModeToMode(step.target.mode) !== S_IFGITLINK)
      .map((step) => [step.path, treeModeToMode(step.target!.mode)] as const),
    plan.filter((step) => step.touchWorktree && !step.target).map((step) => step.path),
    "the checkout",
  );
  const changed: string[] = [];
  // Files written by this checkout follow the .gitattributes it writes, as in git.
  conversionFor(repo, index).expectAttributes(
    new Map(plan.filter((s) => isAttributesFile(s.path)).map((s) => [s.path, s.target?.oid ?? null])),
  );
  for (const step of plan) {
    if (step.target || !step.touchWorktree) continue;
    writer.removeFile(step.path);
    changed.push(step.path);
  }
  for (const step of plan) {
    if (!step.target) {
      index.remove(step.path);
      continue;
    }
    const mode = treeModeToMode(step.target.mode);
    if (!step.touchWorktree) {
      index.set(emptyEntry(step.path, step.target.oid, mode));
      continue;
    }
    if (clearWay) clearBlockingFiles(repo, step.path);
    const entry = await writeBlob(repo, writer, step.path, step.target);
    index.set(entry, true);
    changed.push(step.path);
  }
  return { changed: changed.sort(comparePaths), withheld: withheld.sort(comparePaths) };
}

/**
 * Entries marked skip-worktree (`git update-index --skip-worktree`) that an operation would
 * change are refused before anything is touched: pterm leaves such files alone, and does not
 * reproduce git's rules for updating them.
 */
export function refuseSkipWorktree(index: Index, paths: Iterable<string>, action: string): void {
  const marked = [...paths].filter((p) => index.entries.get(p)?.skipWorktree).sort(comparePaths);
  if (marked.length === 0) return;
  const shown = marked.slice(0, 10).join(", ") + (marked.length > 10 ? `, and ${marked.length - 10} more` : "");
  throw new PtermError(
    "UnsupportedFormat",
    `${action} would change ${shown}, marked skip-worktree in the index (git setting made by \`git update-index ` +
      "--skip-worktree`); pterm does not update such entries. Run `git update-index --no-skip-worktree <path>` " +
      "with the real git first. Nothing was changed.",
  );
}

export function isAttributesFile(path: string): boolean {
  return path === ".gitattributes" || path.endsWith("/.gitattributes");
}

/** For --force / --hard: a file (not a link target, never followed) where a folder must go is removed. */
function clearBlockingFiles(repo: Repo, path: string): void {
  const parts = path.split("/");
  for (let k = 1; k < parts.length; k++) {
    const prefix = parts.slice(0, k).join("/");
    let info: Deno.FileInfo | null = null;
    try {
      info = Deno.lstatSync(`${repo.dir}/${prefix}`);
    } catch {
      return;
    }
    if (info.isDirectory) continue;
    Deno.removeSync(`${repo.dir}/${prefix}`);
    return;
  }
}

/**
 * Blobs larger than this that the checkout writes unchanged go from the pack to the file piece by
 * piece, through buffers shared by every blob: none is held whole, none allocates (a checkout of
 * thousands of small files otherwise leaves a buffer per file to the garbage collector).
 */
const STREAMED_BLOB_BYTES = 0;

/** Writes a tree entry's content to the work tree and returns its index entry with fresh stat data. */
export async function writeBlob(
  repo: Repo,
  writer: WorktreeWriter,
  path: string,
  target: FlatEntry,
): Promise<IndexEntry> {
  const mode = treeModeToMode(target.mode);
  if (mode === S_IFGITLINK) {
    const abs = writer.prepare(path);
    try {
      Deno.mkdirSync(abs);
    } catch { /* exists */ }
    return emptyEntry(path, target.oid, mode);
  }
  if (mode !== S_IFLNK && (await conversionFor(repo).writesAsIs(path))) {
    // A blob written as it is goes from its pack into the file, never held whole.
    const source = repo.objects.largeBlob(target.oid, STREAMED_BLOB_BYTES);
    if (source) {
      return entryFromWrite(path, target.oid, mode, writer.writeFile(path, source, mode));
    }
  }
  const blob = await repo.objects.readTyped(target.oid, "blob");
  if (mode === S_IFLNK) await disableSymlinks(repo);
  // A link's target is written as it is; a file's content in its work-tree form (line endings, ident).
  const content = mode === S_IFLNK ? blob : await conversionFor(repo).toWorktree(path, blob);
  return entryFromWrite(path, target.oid, mode, writer.writeFile(path, content, mode));
}

/** `checkout [<tree>] -- <paths>`: index and work tree take the version of `tree` (or of the index when null). */
export async function restorePaths(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  tree: string | null,
  fromIndex: boolean,
  specs: readonly string[],
  /** `git restore --source <rev>`: write the work tree only; the index keeps what it has. */
  worktreeOnly = false,
): Promise<SwitchResult> {
  const writer = new WorktreeWriter(repo);
  const changed: string[] = [];
  const withheld: string[] = [];
  const racy = index.fileMtimeMs;
  const source = new Map<string, FlatEntry>();
  if (fromIndex) {
    for (const [path, e] of index.entries) {
      source.set(path, { oid: e.oid, mode: modeText(e.mode) });
    }
  } else {
    for (const [path, e] of await flattenTree(repo, tree)) source.set(path, e);
  }
  for (const spec of specs) {
    const matching = [...source.keys()].filter((p) => pathWithin(p, spec));
    const conflictedHere = [...index.conflicts.keys()].filter((p) => pathWithin(p, spec));
    if (fromIndex && conflictedHere.length > 0) {
      throw new PtermError(
        "Conflict",
        `${
          conflictedHere[0]
        } is unmerged; resolve the conflict (edit, then git add) or check it out from a commit (e.g. HEAD).`,
      );
    }
    if (matching.length === 0) {
      throw new PtermError(
        "NotFound",
        `pathspec \`${spec || "."}\` did not match any file ${fromIndex ? "in the index" : "in that commit"}.`,
      );
    }
  }
  const paths = [...source.keys()].filter((p) => specs.some((s) => pathWithin(p, s))).sort(comparePaths);
  refuseSkipWorktree(index, paths, "checkout");
  const intoGitDir = paths.find((path) => policy.hidden(path) === "gitdir");
  if (intoGitDir !== undefined) throw hiddenPathDenied(intoGitDir, "gitdir", "nothing was restored");
  writer.refuseGitDirectories(
    paths.filter((path) => !policy.hidden(path) && treeModeToMode(source.get(path)!.mode) !== S_IFGITLINK)
      .map((path) => [path, treeModeToMode(source.get(path)!.mode)] as const),
    [],
    "the restore",
  );
  for (const path of paths) {
    const target = source.get(path)!;
    const current = index.entries.get(path);
    if (policy.hidden(path) && (fromIndex || !(await writesInStep(repo, policy, path, current, target, racy)))) {
      withheld.push(path);
      if (!fromIndex) index.set(emptyEntry(path, target.oid, treeModeToMode(target.mode)));
      continue;
    }
    if (fromIndex) {
      const entry = index.entries.get(path)!;
      if ((await worktreeState(repo, entry, index.fileMtimeMs)) === "clean") continue;
      const written = await writeBlob(repo, writer, path, target);
      index.set(written, true);
    } else {
      if (
        current && sameEntry(current, target) && (await worktreeState(repo, current, index.fileMtimeMs)) === "clean"
      ) {
        continue;
      }
      const written = await writeBlob(repo, writer, path, target);
      if (!worktreeOnly) index.set(written, true);
    }
    changed.push(path);
  }
  return { changed, withheld };
}

function modeText(mode: number): string {
  return mode === 0o120000 ? "120000" : mode === 0o160000 ? "160000" : mode === 0o100755 ? "100755" : "100644";
}

/** `reset --mixed`: the index becomes `tree`, keeping stat data of entries whose content did not change. */
export async function resetIndexTo(repo: Repo, index: Index, tree: string | null, specs: readonly string[] | null) {
  const N = await flattenTree(repo, tree);
  const changed: string[] = [];
  const inScope = (p: string) => specs === null || specs.some((s) => pathWithin(p, s));
  for (const path of [...index.entries.keys(), ...index.conflicts.keys()]) {
    if (!inScope(path)) continue;
    if (!N.has(path)) {
      index.remove(path);
      changed.push(path);
    }
  }
  for (const [path, target] of N) {
    if (!inScope(path)) continue;
    const current = index.entries.get(path);
    if (current && !index.conflicts.has(path) && sameEntry(current, target)) continue;
    index.set(emptyEntry(path, target.oid, treeModeToMode(target.mode)));
    changed.push(path);
  }
  return [...new Set(changed)].sort(comparePaths);
}
