/**
 * Submodules as the superproject sees them: a gitlink (mode 160000) records a commit of another
 * repository checked out at that path. The checkout is opened as a repository of its own, through
 * the same code (`openRepo`, so its gitfile is followed and confined exactly as `--repo` would),
 * and what status and diff say of it is read from its own HEAD, index and work tree (status.ts).
 */

import type { Repo } from "./repo.ts";
import { openRepo } from "./repo.ts";
import { readHead } from "./refs.ts";
import { type GitConfig, parseConfig } from "./config.ts";

const gitmodulesCache = new WeakMap<Repo, GitConfig>();

/** The work tree's `.gitmodules` (a regular file only: one that is a link is never followed), parsed once per repository object. */
function gitmodules(repo: Repo): GitConfig {
  let parsed = gitmodulesCache.get(repo);
  if (!parsed) {
    let text = "";
    try {
      if (Deno.lstatSync(`${repo.dir}/.gitmodules`).isFile) text = Deno.readTextFileSync(`${repo.dir}/.gitmodules`);
    } catch { /* none */ }
    parsed = parseConfig(text);
    gitmodulesCache.set(repo, parsed);
  }
  return parsed;
}

export type SubmoduleIgnore = "none" | "untracked" | "dirty" | "all";

/**
 * What status and diff overlook in the submodule at `path`, as git decides: `submodule.<name>.ignore`
 * from the repository's config, else from `.gitmodules` (the name is the section whose `path` is
 * this one), else `diff.ignoreSubmodules`, else "none". An unknown value counts as "none".
 * `perSubmodule`: the value is the submodule's own, which (in git) also overrides status's `-uno`.
 */
export function submoduleIgnore(repo: Repo, path: string): { ignore: SubmoduleIgnore; perSubmodule: boolean } {
  const modules = gitmodules(repo);
  let name: string | null = null;
  for (const key of modules.keys()) {
    const match = /^submodule\.(.+)\.path$/.exec(key);
    if (match && modules.get(key) === path) name = match[1];
  }
  const own = name !== null
    ? repo.config.get(`submodule.${name}.ignore`) ?? modules.get(`submodule.${name}.ignore`)
    : undefined;
  const value = own ?? repo.config.get("diff.ignoresubmodules") ?? "none";
  const known = ["none", "untracked", "dirty", "all"] as const;
  return { ignore: known.find((k) => k === value.toLowerCase()) ?? "none", perSubmodule: own !== undefined };
}

/**
 * The repository checked out at `path` (a gitlink's folder, or a nested repository), or null when
 * nothing is checked out there (no `.git`: git's "not populated"). A `.git` that cannot be followed
 * safely or is damaged is an error, never taken for "not checked out": git would fail there too,
 * and saying "clean" would be a silent wrong answer.
 */
export function openSubmodule(repo: Repo, path: string): Repo | null {
  const dir = `${repo.dir}/${path}`;
  try {
    Deno.lstatSync(`${dir}/.git`);
  } catch {
    return null;
  }
  const label = repo.label === "." || repo.label === "" ? path : `${repo.label}/${path}`;
  // Without a workspace root (a library call), the superproject's own folder is the bound.
  return openRepo(dir, label, repo.root ?? repo.dir);
}

/** The commit a submodule's checkout is at, or null when it is not checked out (or its branch is unborn). */
export function submoduleHead(repo: Repo, path: string): string | null {
  const sub = openSubmodule(repo, path);
  return sub ? readHead(sub).oid : null;
}

/** What a diff shows for a gitlink: git's `Subproject commit <id>` line (`-dirty` for a checkout with changes). */
export function subprojectText(oid: string, dirty = false): Uint8Array {
  return new TextEncoder().encode(`Subproject commit ${oid}${dirty ? "-dirty" : ""}\n`);
}
