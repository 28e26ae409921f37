/** `git rm` and `git mv`, with git's safety checks. */

import { PtermError } from "../../../core/errors.ts";
import { comparePaths } from "../odb/bytes.ts";
import { refuseSkipWorktree } from "./checkout.ts";
import { worktreeState } from "./compare.ts";
import type { Index } from "./index_file.ts";
import type { Repo } from "../repo/repo.ts";
import { headTree } from "../porcelain/status.ts";
import { flattenTree, pathWithin } from "../odb/tree.ts";
import { checkRepoPath, hiddenPathDenied, lstatTracked, type PathPolicy, WorktreeWriter } from "./worktree.ts";

export async function removePaths(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  specs: readonly string[],
  options: { cached: boolean; recursive: boolean; force: boolean },
): Promise<string[]> {
  const tracked = [...new Set([...index.entries.keys(), ...index.conflicts.keys()])].sort(comparePaths);
  const selected = new Set<string>();
  for (const spec of specs) {
    if (spec === "" && !options.recursive) {
      throw new PtermError("InvalidArgs", "removing the whole repository needs --recursive.");
    }
    const hidden = spec === "" ? null : policy.hidden(spec);
    if (hidden) throw hiddenPathDenied(spec, hidden, "git rm changed nothing");
    const matching = tracked.filter((p) => pathWithin(p, spec));
    if (matching.length === 0) {
      throw new PtermError("NotFound", `pathspec \`${spec}\` did not match any tracked file (see git status).`);
    }
    if (!options.recursive && !(matching.length === 1 && matching[0] === spec)) {
      throw new PtermError("InvalidArgs", `not removing the folder \`${spec}\` without --recursive.`);
    }
    for (const p of matching) if (!policy.hidden(p)) selected.add(p);
  }
  refuseSkipWorktree(index, selected, "git rm");
  const head = await flattenTree(repo, await headTree(repo));
  const problems: string[] = [];
  if (!options.force) {
    for (const path of selected) {
      const entry = index.entries.get(path);
      if (!entry) continue;
      const inHead = head.get(path);
      const stagedDiffers = !inHead || inHead.oid !== entry.oid;
      const local = await worktreeState(repo, entry, index.fileMtimeMs);
      const localDiffers = local === "dirty";
      if (stagedDiffers && localDiffers) problems.push(`${path} (staged content differs from both the file and HEAD)`);
      else if (!options.cached && stagedDiffers) problems.push(`${path} (has changes staged in the index)`);
      else if (!options.cached && localDiffers) problems.push(`${path} (has local modifications)`);
    }
  }
  if (problems.length > 0) {
    throw new PtermError(
      "UncommittedChanges",
      `git rm refused, to avoid losing changes: ${problems.slice(0, 20).join(", ")}. ` +
        "Use --cached to keep the files, or --force to remove them anyway.",
    );
  }
  const writer = new WorktreeWriter(repo);
  const removed = [...selected].sort(comparePaths);
  for (const path of removed) {
    index.remove(path);
    if (!options.cached) writer.removeFile(path);
  }
  return removed;
}

export function movePath(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  source: string,
  destination: string,
  force: boolean,
): { from: string; to: string }[] {
  for (const p of [source, destination]) {
    checkRepoPath(p, p === source ? "<source>" : "<destination>");
    const hidden = policy.hidden(p);
    if (hidden) throw hiddenPathDenied(p, hidden, "git mv changed nothing");
  }
  const entries = [...index.entries.keys()].filter((p) => pathWithin(p, source)).sort(comparePaths);
  if (entries.length === 0) {
    throw new PtermError("NotFound", `\`${source}\` is not tracked (git mv moves tracked files; see git status).`);
  }
  if ([...index.conflicts.keys()].some((p) => pathWithin(p, source))) {
    throw new PtermError("Conflict", `\`${source}\` has unresolved conflicts; resolve them before moving it.`);
  }
  const srcInfo = lstatTracked(repo, source);
  if (!srcInfo) throw new PtermError("NotFound", `\`${source}\` is tracked but missing from the work tree.`);
  let target = destination;
  const destInfo = lstatTracked(repo, destination);
  if (destInfo?.isDirectory && !destInfo.isSymlink) target = `${destination}/${source.split("/").pop()}`;
  if (target === source) throw new PtermError("InvalidArgs", "source and destination are the same.");
  if (pathWithin(target, source)) throw new PtermError("InvalidArgs", `cannot move \`${source}\` into itself.`);
  const targetInfo = lstatTracked(repo, target);
  const isDir = srcInfo.isDirectory;
  if (targetInfo) {
    if (isDir || targetInfo.isDirectory || !force) {
      throw new PtermError(
        "AlreadyExists",
        `\`${target}\` already exists${isDir ? "" : "; pass --force to overwrite it"}.`,
      );
    }
  }
  const parent = target.includes("/") ? target.slice(0, target.lastIndexOf("/")) : "";
  if (parent) {
    const parentInfo = lstatTracked(repo, parent);
    if (!parentInfo?.isDirectory) {
      throw new PtermError(
        "NotFound",
        `the destination folder \`${parent}\` does not exist; create it first (or move to an existing folder).`,
      );
    }
  }
  refuseSkipWorktree(index, entries, "git mv");
  const writer = new WorktreeWriter(repo);
  // A moved HEAD (or objects/, refs/) must not complete a git directory's shape where it lands.
  writer.refuseGitDirectories(
    entries.map((path) => [target + path.slice(source.length), index.entries.get(path)!.mode] as const),
    entries,
    "git mv",
  );
  writer.prepareParentsReadOnly(source);
  const destAbs = writer.prepare(target);
  if (targetInfo) Deno.removeSync(destAbs);
  Deno.renameSync(`${repo.dir}/${source}`, destAbs);
  const moved: { from: string; to: string }[] = [];
  for (const path of entries) {
    const entry = index.entries.get(path)!;
    const to = target + path.slice(source.length);
    index.remove(path);
    index.set({ ...entry, path: to });
    moved.push({ from: path, to });
  }
  return moved;
}
