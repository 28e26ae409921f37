/**
 * A merge, cherry-pick or revert in progress: which one (its _HEAD file in .git), the commit it
 * applies, the message it prepared, and what a commit made meanwhile takes from it. Small, so
 * that `git status` and `git commit` load it without the merge machinery.
 */

import { PtermError } from "../../../core/errors.ts";
import { folderNames } from "../../../core/fs/names.ts";
import { clearSequenceState } from "../porcelain/commit.ts";
import { cleanupMessage, parseCommit, type Signature } from "../odb/objects.ts";
import type { Repo } from "../repo/repo.ts";

/**
 * A merge, cherry-pick, revert or rebase stopped on conflicts (or by --no-commit), and the file that says so
 * (a rebase: its state folder, git's sequencer's `rebase-merge/`, or `rebase-apply/` of git's older backend).
 */
export type Sequence = "merge" | "cherry-pick" | "revert" | "rebase";
const SEQUENCE_HEADS: Record<Sequence, string> = {
  merge: "MERGE_HEAD",
  "cherry-pick": "CHERRY_PICK_HEAD",
  revert: "REVERT_HEAD",
  rebase: "rebase-merge",
};

/** The names in the git directory: one listing answers which state files exist (core/fs/names.ts). */
function gitdirNames(repo: Repo): Set<string> {
  return folderNames(repo.gitdir) ?? new Set();
}

/** The folder of a rebase in progress (`rebase-merge`, or `rebase-apply` of git's apply backend), or null. */
export function rebaseStateDir(repo: Repo, names = gitdirNames(repo)): "rebase-merge" | "rebase-apply" | null {
  for (const name of ["rebase-merge", "rebase-apply"] as const) {
    if (!names.has(name)) continue;
    try {
      if (Deno.statSync(`${repo.gitdir}/${name}`).isDirectory) return name;
    } catch { /* not this one */ }
  }
  return null;
}

/**
 * Which operation is in progress, in git's status order: a merge (MERGE_HEAD), a rebase (its state folder: a
 * commit made now does not conclude it), a cherry-pick (CHERRY_PICK_HEAD), a revert (REVERT_HEAD).
 */
export function sequenceInProgress(repo: Repo): Sequence | null {
  const names = gitdirNames(repo);
  for (const kind of ["merge", "rebase", "cherry-pick", "revert"] as const) {
    if (kind === "rebase") {
      if (rebaseStateDir(repo, names)) return kind;
      continue;
    }
    if (!names.has(SEQUENCE_HEADS[kind])) continue;
    try {
      const text = Deno.readTextFileSync(`${repo.gitdir}/${SEQUENCE_HEADS[kind]}`);
      if (/^[0-9a-f]{40}/m.test(text)) return kind;
    } catch { /* not this one */ }
  }
  return null;
}

/** The commit a cherry-pick or revert in progress is applying (its _HEAD file), or null. */
export function sequenceCommit(repo: Repo, kind: Sequence): string | null {
  if (kind === "rebase") return null;
  try {
    return /^[0-9a-f]{40}/.exec(Deno.readTextFileSync(`${repo.gitdir}/${SEQUENCE_HEADS[kind]}`))?.[0] ?? null;
  } catch {
    return null;
  }
}

export function requireSequence(repo: Repo, kind: Sequence, doing: string): void {
  if (sequenceInProgress(repo) === kind) return;
  const other = sequenceInProgress(repo);
  throw new PtermError(
    "NotFound",
    `there is no ${kind} to ${doing} (no ${SEQUENCE_HEADS[kind]})` +
      (other ? `; a ${other} is in progress: \`git ${other} --${doing}\`.` : "."),
  );
}

/**
 * `--quit`: forget the operation in progress (its state files) and keep index and work tree as they are; a rebase's
 * state folder goes, and HEAD stays where the rebase left it, as git's `rebase --quit` leaves it.
 */
export function quitSequence(repo: Repo, kind: Sequence): void {
  requireSequence(repo, kind, "quit");
  if (kind === "rebase") {
    Deno.removeSync(`${repo.gitdir}/${rebaseStateDir(repo)}`, { recursive: true });
    return;
  }
  clearSequenceState(repo);
}

/** The message `git merge --squash` prepared (.git/SQUASH_MSG) for the commit that follows it, or null. */
export function squashMessage(repo: Repo): string | null {
  try {
    return Deno.readTextFileSync(`${repo.gitdir}/SQUASH_MSG`);
  } catch {
    return null;
  }
}

/** The message a merge, cherry-pick or revert prepared (.git/MERGE_MSG), or null. */
export function preparedMessage(repo: Repo): string | null {
  try {
    return Deno.readTextFileSync(`${repo.gitdir}/MERGE_MSG`);
  } catch {
    return null;
  }
}

/**
 * A prepared message (MERGE_MSG, SQUASH_MSG) as the commit that concludes the operation takes it — git's editor
 * saved unchanged, cleanup mode "strip": the `#` comment lines (the `# Conflicts:` block) dropped, whitespace cleaned.
 */
export function concludingMessage(prepared: string): string {
  return cleanupMessage(prepared, true);
}

/**
 * The MERGE_MSG of a merge, cherry-pick, revert or rebase pick that stopped on conflicts, as git writes it: the
 * message, then a blank line and the `# Conflicts:` block naming each conflicted path (unquoted, index order).
 */
export function messageWithConflicts(message: string, conflicts: readonly string[]): string {
  if (conflicts.length === 0) return message;
  return `${message}\n# Conflicts:\n${conflicts.map((path) => `#\t${path}\n`).join("")}`;
}

/**
 * What a commit made while a cherry-pick is in progress takes from it, as git's commit does: the
 * picked commit's author, unless --author was given.
 */
export async function sequenceCommitOptions(
  repo: Repo,
  explicitAuthor: boolean,
): Promise<{ authorSignature?: Signature }> {
  const picked = sequenceInProgress(repo) === "cherry-pick" ? sequenceCommit(repo, "cherry-pick") : null;
  if (!picked || explicitAuthor) return {};
  return { authorSignature: parseCommit(await repo.objects.readTyped(picked, "commit")).author };
}
