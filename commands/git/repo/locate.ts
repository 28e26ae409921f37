/**
 * Which repository a git call means when it names none, in this order: the
 * workspace root if it is one; else `git.default_repo` from pterm.json; else the only repository
 * directly under the root or one level down. Several → `AmbiguousRepository` listing them; none →
 * `NotARepository` saying how to make one, and never suggesting to turn a root that holds other
 * projects or documents into a repository.
 */

import { PtermError } from "../../../core/errors.ts";
import { isStatePath } from "../../../core/fs/paths.ts";
import { quoteWord } from "../../../core/grammar.ts";

/** Folders never searched for repositories: dependencies and tool caches hold thousands of them. */
const NOT_SEARCHED = new Set(["node_modules", "vendor", "target", "dist", "build", "__pycache__"]);

/** Whether `dir` (absolute) has a `.git` folder or file. */
export function hasDotGit(dir: string): boolean {
  try {
    Deno.lstatSync(`${dir}/.git`);
    return true;
  } catch {
    return false;
  }
}

function childFolders(abs: string): string[] {
  const names: string[] = [];
  try {
    for (const entry of Deno.readDirSync(abs)) {
      if (!entry.isDirectory || entry.name.startsWith(".") || NOT_SEARCHED.has(entry.name)) continue;
      names.push(entry.name);
    }
  } catch { /* unreadable: nothing found there */ }
  return names.sort();
}

/** Repositories directly under the root or one level down, relative to the root, sorted. */
export function repositoriesNear(root: string): string[] {
  const found: string[] = [];
  for (const name of childFolders(root)) {
    if (isStatePath(name)) continue;
    if (hasDotGit(`${root}/${name}`)) {
      found.push(name);
      continue;
    }
    for (const inner of childFolders(`${root}/${name}`)) {
      if (hasDotGit(`${root}/${name}/${inner}`)) found.push(`${name}/${inner}`);
    }
  }
  return found;
}

/** Whether the root holds anything besides pterm's own state (files a user made, other folders). */
function rootHasContent(root: string): boolean {
  try {
    for (const entry of Deno.readDirSync(root)) {
      if (!isStatePath(entry.name) && !entry.name.startsWith(".")) return true;
    }
  } catch { /* unreadable */ }
  return false;
}

export interface RepositoryOptions {
  /** The pterm.json setting that names the default (`git.default_repo`), for the error's advice. */
  readonly configKey?: string;
  /** No repository anywhere: the root itself, as a plain folder (`patch`), instead of NotARepository. */
  readonly plainRoot?: boolean;
}

/**
 * The repository (relative to the root) a call that gave no --repo means. `commandPath` is the
 * subcommand as run (`git status`), for the line the errors suggest.
 */
export function defaultRepository(
  root: string,
  configured: string | undefined,
  commandPath: string,
  options: RepositoryOptions = {},
): string {
  if (hasDotGit(root)) return ".";
  if (configured !== undefined) return configured;
  const near = repositoriesNear(root);
  if (near.length === 1) return near[0];
  if (near.length > 1) {
    const listed = near.slice(0, 20).map((r) => `  ${r}`).join("\n");
    throw new PtermError(
      "AmbiguousRepository",
      `${commandPath}: no --repo given and the workspace holds ${near.length} repositories:\n${listed}${
        near.length > 20 ? "\n  …" : ""
      }\nName one, e.g. \`${commandPath} --repo ${quoteWord(near[0])}\`${
        options.plainRoot ? " (or `--repo .` for the root folder itself)" : ""
      } (or set ${options.configKey ?? "git.default_repo"} in pterm.json).`,
    );
  }
  // A command that also edits plain folders works in the root when no repository is anywhere.
  if (options.plainRoot) return ".";
  const init = rootHasContent(root)
    ? "Create one in a folder of its own, e.g. `git init --dir myproject`, then pass `--repo myproject`"
    : "Create one with `git init` (the workspace root) or `git init --dir myproject`";
  throw new PtermError(
    "NotARepository",
    `${commandPath}: no --repo given, and there is no repository here: the workspace root is not one and none ` +
      `is directly under it or one level down. ${init}.`,
  );
}
