/**
 * Submodules as the superproject sees them: a gitlink (mode 160000) records a commit of another
 * repository checked out at that path. The checkout is opened as a repository of its own, through
 * the same code (`openRepo`, so its gitfile is followed and confined exactly as `--repo` would),
 * and what status and diff say of it is read from its own HEAD, index and work tree (status.ts).
 */

import type { Repo } from "./repo.ts";
import { openRepo } from "./repo.ts";
import { readHead } from "./refs.ts";

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
