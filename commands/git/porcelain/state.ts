/** What the porcelain operations share: a commit's tree, and a state file written whole into the git directory. */

import { PtermError } from "../../../core/errors.ts";
import { comparePaths } from "../odb/bytes.ts";
import { readCommit } from "../history/log.ts";
import { readHead } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import type { Index } from "../worktree/index_file.ts";
import { indexVsTree } from "./status.ts";

/** The tree of `commit`, or null for none (an unborn branch). */
export async function treeOf(repo: Repo, commit: string | null): Promise<string | null> {
  return commit ? (await readCommit(repo, commit)).tree : null;
}

/** Writes a state file (ORIG_HEAD, MERGE_MSG, …) through a temporary name, so git never reads half of one. */
export function writeStateFile(repo: Repo, name: string, text: string): void {
  const path = `${repo.gitdir}/${name}`;
  const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  Deno.writeTextFileSync(temp, text);
  Deno.renameSync(temp, path);
}

/** Refuses an operation that needs the index to match HEAD (revert, cherry-pick, merge), naming the staged paths. */
export async function requireIndexMatchesHead(repo: Repo, index: Index, action: string): Promise<void> {
  const headOid = readHead(repo).oid;
  const staged = await indexVsTree(repo, index, await treeOf(repo, headOid));
  if (staged.size > 0 || index.hasConflicts()) {
    const paths = [...staged.keys(), ...index.conflicts.keys()].sort(comparePaths);
    throw new PtermError(
      "UncommittedChanges",
      `${action} needs an index that matches HEAD, but these paths have staged changes: ` +
        `${paths.slice(0, 20).join(", ")}${
          paths.length > 20 ? ", ..." : ""
        }. Commit them or unstage them (git reset) first.`,
      { result: { blocked_paths: paths.slice(0, 1000) } },
    );
  }
}
