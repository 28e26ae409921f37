/** Listing, creating, deleting and renaming branches, and which worktrees hold a branch. */

import { PtermError } from "../../../core/errors.ts";
import { type GitAuthor, signatureNow } from "../repo/identity.ts";
import { isAncestor } from "../merge/merge.ts";
import {
  checkBranchName,
  deleteRef,
  listRefs,
  readHead,
  resolveRefOid,
  setHeadSymbolic,
  updateRef,
} from "../repo/refs.ts";
import { gitPath, type Repo } from "../repo/repo.ts";
import { resolveCommit } from "../history/revparse.ts";
import { configuredUpstream, upstreamLabel } from "../repo/upstream_config.ts";
import { removeConfigSection, renameConfigSection } from "../repo/config_edit.ts";

export function listBranches(
  repo: Repo,
): { name: string; commit: string; current: boolean; upstream: string | null }[] {
  const head = readHead(repo);
  return [...listRefs(repo, "refs/heads")].map(([ref, commit]) => {
    const upstream = configuredUpstream(repo, ref.slice(11));
    return { name: ref.slice(11), commit, current: head.ref === ref, upstream: upstream && upstreamLabel(upstream) };
  });
}

export async function createBranch(
  repo: Repo,
  name: string,
  start: string,
  author: GitAuthor,
  force = false,
): Promise<string> {
  checkBranchName(name);
  const ref = `refs/heads/${name}`;
  const existing = resolveRefOid(repo, ref);
  if (existing && !force) {
    throw new PtermError(
      "AlreadyExists",
      `a branch named ${name} already exists; choose another name (or --force to reset it).`,
    );
  }
  if (existing && readHead(repo).ref === ref) {
    throw new PtermError("InvalidArgs", `${name} is the current branch; use git reset to move it.`);
  }
  const oid = await resolveCommit(repo, start);
  await updateRef(repo, ref, oid, {
    expected: existing,
    message: `branch: Created from ${start}`,
    who: signatureNow(author),
  });
  return oid;
}

/**
 * The other worktrees of this repository that have `ref` checked out: the main worktree and the
 * linked ones (`git worktree add`, `<common>/worktrees/<name>`), the one `repo` is excepted. git
 * refuses to check out or delete such a branch (it would pull the rug from under that worktree),
 * and so does pterm, from any of them. Named by folder, relative to this work tree's parent when
 * there, else by the worktree's name; never as a host path.
 */
export function worktreesHolding(repo: Repo, ref: string): string[] {
  const parent = repo.dir.slice(0, repo.dir.lastIndexOf("/"));
  const shown = (workTree: string | null, fallback: string) =>
    workTree !== null && workTree.startsWith(parent + "/") ? workTree.slice(parent.length + 1) : fallback;
  const holds = (gitdir: string) => {
    try {
      return Deno.readTextFileSync(`${gitdir}/HEAD`).trim() === `ref: ${ref}`;
    } catch {
      return false;
    }
  };
  const holding: string[] = [];
  if (repo.commondir !== repo.gitdir && holds(repo.commondir)) {
    const main = repo.commondir.endsWith("/.git") ? repo.commondir.slice(0, -"/.git".length) : null;
    holding.push(shown(main, "the main worktree"));
  }
  let names: string[];
  try {
    names = [...Deno.readDirSync(`${repo.commondir}/worktrees`)].filter((e) => e.isDirectory).map((e) => e.name);
  } catch {
    names = [];
  }
  for (const name of names.sort()) {
    const gitdir = `${repo.commondir}/worktrees/${name}`;
    if (gitdir === repo.gitdir || !holds(gitdir)) continue;
    let workTree: string | null = null;
    try {
      workTree = Deno.readTextFileSync(`${gitdir}/gitdir`).trim().replace(/\/\.git$/, "");
    } catch { /* keep the worktree's name */ }
    holding.push(shown(workTree, name));
  }
  return holding;
}

/** Refuses to move or delete a branch another worktree has checked out, as git does. */
export function refuseIfCheckedOutElsewhere(repo: Repo, ref: string, doing: string): void {
  const holding = worktreesHolding(repo, ref);
  if (holding.length === 0) return;
  throw new PtermError(
    "InvalidArgs",
    `cannot ${doing} ${ref.slice("refs/heads/".length)}: it is checked out in the worktree ` +
      `${holding.join(", ")} (git worktree); switch that worktree to another branch first, or use another branch here.`,
  );
}

export async function deleteBranch(repo: Repo, name: string, force: boolean): Promise<string> {
  const ref = `refs/heads/${name}`;
  const oid = resolveRefOid(repo, ref);
  if (!oid) throw new PtermError("NotFound", `there is no branch ${name}; list branches with \`git branch\`.`);
  refuseIfCheckedOutElsewhere(repo, ref, "delete");
  const head = readHead(repo);
  if (head.ref === ref) {
    throw new PtermError(
      "InvalidArgs",
      `cannot delete ${name}: it is the current branch. Switch to another branch first.`,
    );
  }
  if (!force && !(head.oid && (await isAncestor(repo, oid, head.oid)))) {
    throw new PtermError(
      "BranchNotMerged",
      `the branch ${name} is not fully merged into HEAD; its commits would become unreachable. ` +
        "Merge it first, or pass --force to delete it anyway.",
    );
  }
  await deleteRef(repo, ref, oid);
  // As git: the branch's [branch "<name>"] section (its upstream) goes with it, so that a later branch of the same
  // name does not inherit an upstream it never had.
  await removeConfigSection(repo, "branch", name);
  return oid;
}

export async function renameBranch(
  repo: Repo,
  from: string,
  to: string,
  author: GitAuthor,
  force: boolean,
): Promise<string> {
  checkBranchName(to);
  const fromRef = `refs/heads/${from}`;
  const toRef = `refs/heads/${to}`;
  const oid = resolveRefOid(repo, fromRef);
  if (!oid) throw new PtermError("NotFound", `there is no branch ${from}; list branches with \`git branch\`.`);
  if (from === to) return oid;
  const existing = resolveRefOid(repo, toRef);
  if (existing && !force) {
    throw new PtermError("AlreadyExists", `a branch named ${to} already exists; pass --force to overwrite it.`);
  }
  const who = signatureNow(author);
  let reflog: string | null = null;
  try {
    reflog = Deno.readTextFileSync(gitPath(repo, `logs/${fromRef}`));
  } catch { /* no reflog */ }
  await deleteRef(repo, fromRef, oid);
  if (reflog !== null) {
    Deno.mkdirSync(gitPath(repo, `logs/${toRef}`).replace(/\/[^/]*$/, ""), { recursive: true });
    Deno.writeTextFileSync(gitPath(repo, `logs/${toRef}`), reflog);
  }
  await updateRef(repo, toRef, oid, { message: `Branch: renamed ${fromRef} to ${toRef}`, who });
  await renameConfigSection(repo, "branch", from, to);
  if (readHead(repo).ref === fromRef) await setHeadSymbolic(repo, toRef, who, `Branch: renamed ${fromRef} to ${toRef}`);
  return oid;
}
