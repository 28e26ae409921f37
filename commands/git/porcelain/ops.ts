/**
 * The operations behind the subcommands and the patch API: reset, revert, tag, branches,
 * branch switches and merges. Each runs inside a held repository lock on its in-memory index.
 */

import { PtermError } from "../../../core/errors.ts";
import { comparePaths, EMPTY_TREE_OID } from "../odb/bytes.ts";
import { resetIndexTo, restorePaths, switchTrees, writeBlob } from "../worktree/checkout.ts";
import { clearSequenceState, commitIndex, readMergeHeads } from "./commit.ts";
import { type GitAuthor, signatureNow } from "../repo/identity.ts";
import { emptyEntry, type Index, treeModeToMode } from "../worktree/index_file.ts";
import { ancestorsOf, readCommit, walkLog } from "../history/log.ts";
import { prettyCommit } from "../history/pretty.ts";
import { applyMerge, isAncestor, mergeBaseTree, mergeTrees } from "../merge/merge.ts";
import { cleanupMessage, parseTag, serializeTag, splitMessage } from "../odb/objects.ts";
import {
  advanceHead,
  checkBranchName,
  checkTagName,
  deleteRef,
  listRefs,
  readHead,
  readRawRef,
  resolveRefOid,
  setHeadDetached,
  setHeadSymbolic,
  updateRef,
} from "../repo/refs.ts";
import { gitPath, type Repo } from "../repo/repo.ts";
import { dwimRef, peel, resolveCommit, resolveRevision } from "../history/revparse.ts";
import { indexVsTree } from "./status.ts";
import { type PathPolicy, WorktreeWriter } from "../worktree/worktree.ts";
import { flattenTree } from "../odb/tree.ts";
import { configuredUpstream, upstreamLabel } from "./upstream.ts";
import { removeConfigSection, renameConfigSection } from "../repo/config_edit.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { preparedMessage, requireSequence, type Sequence, sequenceCommitOptions } from "../merge/sequence.ts";

export type ResetMode = "soft" | "mixed" | "hard";

async function treeOf(repo: Repo, commit: string | null): Promise<string | null> {
  return commit ? (await readCommit(repo, commit)).tree : null;
}

function writeStateFile(repo: Repo, name: string, text: string): void {
  const path = `${repo.gitdir}/${name}`;
  const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  Deno.writeTextFileSync(temp, text);
  Deno.renameSync(temp, path);
}

// ---- reset ---------------------------------------------------------------------------------

export async function resetTo(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  rev: string,
  mode: ResetMode,
  author: GitAuthor,
): Promise<{ head: string; changed_paths: string[] }> {
  const target = await resolveCommit(repo, rev);
  const head = readHead(repo);
  if (mode === "soft" && (index.hasConflicts() || readMergeHeads(repo).length > 0)) {
    throw new PtermError("Conflict", "cannot do a soft reset in the middle of a merge; use --mixed or --hard.");
  }
  const targetTree = await treeOf(repo, target);
  let changed: string[] = [];
  if (mode === "mixed") changed = await resetIndexTo(repo, index, targetTree, null);
  if (mode === "hard") {
    const result = await switchTrees(repo, index, policy, await treeOf(repo, head.oid), targetTree, "hard", "reset");
    changed = result.changed;
  }
  if (head.oid) writeStateFile(repo, "ORIG_HEAD", `${head.oid}\n`);
  await advanceHead(repo, target, {
    expected: head.oid,
    message: `reset: moving to ${rev}`,
    who: signatureNow(author),
  });
  clearSequenceState(repo);
  return { head: target, changed_paths: changed };
}

/** `reset [<rev>] -- <paths>`: those index entries take the version of rev (HEAD by default). */
export async function resetPaths(repo: Repo, index: Index, rev: string | null, specs: readonly string[]) {
  let tree: string | null = null;
  if (rev !== null || readHead(repo).oid) tree = await treeOf(repo, await resolveCommit(repo, rev ?? "HEAD"));
  return await resetIndexTo(repo, index, tree, specs);
}

/** Work-tree paths a reset or revert would change (so a caller can back them up first). */
export async function pathsChangedBy(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  op: { kind: "reset"; ref: string; mode: ResetMode } | { kind: "revert"; ref: string },
): Promise<string[]> {
  const head = readHead(repo);
  if (op.kind === "reset") {
    if (op.mode !== "hard") return [];
    const target = await resolveCommit(repo, op.ref);
    const result = await switchTrees(
      repo,
      index,
      policy,
      await treeOf(repo, head.oid),
      await treeOf(repo, target),
      "hard",
      "reset",
      { dryRun: true },
    );
    return result.changed.filter((p) => !policy.hidden(p)).sort(comparePaths);
  }
  const { base, theirs } = await revertTrees(repo, op.ref);
  const merge = await mergeTrees(repo, base, await treeOf(repo, head.oid), theirs, { ours: "HEAD", theirs: "revert" });
  return [...merge.changes.keys()].filter((p) => !policy.hidden(p)).sort(comparePaths);
}

// ---- revert --------------------------------------------------------------------------------

async function revertTrees(repo: Repo, rev: string) {
  const oid = await resolveCommit(repo, rev);
  const commit = await readCommit(repo, oid);
  if (commit.parents.length > 1) {
    throw new PtermError(
      "InvalidArgs",
      `${oid.slice(0, 7)} is a merge commit; reverting merges is not supported (it needs a choice of parent).`,
    );
  }
  const parentTree = commit.parents.length ? await treeOf(repo, commit.parents[0]) : null;
  return { oid, commit, base: commit.tree, theirs: parentTree };
}

async function requireIndexMatchesHead(repo: Repo, index: Index, action: string): Promise<void> {
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

export async function revertCommit(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  rev: string,
  options: { noCommit: boolean; author: GitAuthor },
): Promise<{ reverted: string; commit_id: string | null; changed_paths: string[]; conflicts: string[] }> {
  const head = readHead(repo);
  if (!head.oid) throw new PtermError("NotFound", "there are no commits yet, so there is nothing to revert onto.");
  await requireIndexMatchesHead(repo, index, "revert");
  const { oid, commit, base, theirs } = await revertTrees(repo, rev);
  const short = abbreviate(repo, oid);
  const subject = splitMessage(commit.message).subject;
  const merge = await mergeTrees(repo, base, await treeOf(repo, head.oid), theirs, {
    ours: "HEAD",
    theirs: `parent of ${short} (${subject})`,
    base: `${short} (${subject})`,
  });
  const applied = await applyMerge(repo, index, policy, merge, "revert");
  const message = `Revert "${subject}"\n\nThis reverts commit ${oid}.\n`;
  if (applied.conflicts.length > 0 || options.noCommit) {
    writeStateFile(repo, "MERGE_MSG", message);
    if (applied.conflicts.length > 0) writeStateFile(repo, "REVERT_HEAD", `${oid}\n`);
    return { reverted: oid, commit_id: null, changed_paths: applied.changed, conflicts: applied.conflicts };
  }
  let commitId: string;
  try {
    commitId = await commitIndex(repo, index, { message, author: options.author, extraParents: [] });
  } catch (error) {
    if (!(error instanceof PtermError) || error.code !== "NothingToCommit") throw error;
    // git's revert commits nothing either ("nothing to commit, working tree clean") and leaves its message.
    writeStateFile(repo, "MERGE_MSG", message);
    throw new PtermError(
      "NothingToCommit",
      `reverting ${short} changes nothing on HEAD (its change is not there to undo), so there is nothing to commit; ` +
        "git stops the same way. Nothing was changed.",
    );
  }
  return { reverted: oid, commit_id: commitId, changed_paths: applied.changed, conflicts: [] };
}

/**
 * `git cherry-pick <rev>`: the change `rev` made to its parent, merged onto HEAD and committed
 * with its message and author (the committer is now); conflicts stop before the commit, as git
 * does, with CHERRY_PICK_HEAD and MERGE_MSG written.
 */
/**
 * `git cherry-pick -x`: the message with `(cherry picked from commit <id>)` appended — after a
 * blank line, unless the message already ends with a trailer block (`Signed-off-by: …`, an
 * earlier such line), as git's sequencer appends it.
 */
function withOrigin(message: string, oid: string): string {
  const text = message.endsWith("\n") ? message : `${message}\n`;
  const paragraphs = text.trimEnd().split(/\n[ \t]*\n/);
  const last = paragraphs[paragraphs.length - 1].split("\n");
  const trailers = paragraphs.length > 1 &&
    last.every((line) => /^[A-Za-z0-9-]+: /.test(line) || /^\(cherry picked from commit [0-9a-f]+\)$/.test(line));
  return `${text}${trailers ? "" : "\n"}(cherry picked from commit ${oid})\n`;
}

export async function cherryPickCommit(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  rev: string,
  options: {
    noCommit: boolean;
    author: GitAuthor;
    recordOrigin?: boolean;
    /** git's --allow-empty: a commit that was empty to begin with is picked as an empty commit. */
    allowEmpty?: boolean;
    /** git's --keep-redundant-commits: a change already in HEAD is still recorded, as an empty commit. */
    keepRedundant?: boolean;
  },
): Promise<{ picked: string; commit_id: string | null; changed_paths: string[]; conflicts: string[] }> {
  const head = readHead(repo);
  if (!head.oid) throw new PtermError("NotFound", "there are no commits yet to pick onto; commit first.");
  await requireIndexMatchesHead(repo, index, "cherry-pick");
  const oid = await resolveCommit(repo, rev);
  const commit = await readCommit(repo, oid);
  if (commit.parents.length > 1) {
    throw new PtermError(
      "InvalidArgs",
      `${oid.slice(0, 7)} is a merge commit; picking merges is not supported (it needs a choice of parent).`,
    );
  }
  const parentTree = commit.parents.length ? await treeOf(repo, commit.parents[0]) : null;
  const subject = splitMessage(commit.message).subject;
  const merge = await mergeTrees(repo, parentTree, await treeOf(repo, head.oid), commit.tree, {
    ours: "HEAD",
    theirs: `${abbreviate(repo, oid)} (${subject})`,
    base: parentTree === null ? "(empty tree)" : `parent of ${abbreviate(repo, oid)} (${subject})`,
  });
  const applied = await applyMerge(repo, index, policy, merge, "cherry-pick");
  const message = options.recordOrigin ? withOrigin(commit.message, oid) : commit.message;
  if (applied.conflicts.length > 0 || options.noCommit) {
    writeStateFile(repo, "MERGE_MSG", message);
    if (applied.conflicts.length > 0) writeStateFile(repo, "CHERRY_PICK_HEAD", `${oid}\n`);
    return { picked: oid, commit_id: null, changed_paths: applied.changed, conflicts: applied.conflicts };
  }
  const initiallyEmpty = commit.tree === (parentTree ?? EMPTY_TREE_OID);
  let commitId: string;
  try {
    commitId = await commitIndex(repo, index, {
      message,
      author: options.author,
      authorSignature: commit.author,
      extraParents: [],
      reflogMessage: `cherry-pick: ${subject}`,
      allowEmpty: options.keepRedundant || (initiallyEmpty && options.allowEmpty),
    });
  } catch (error) {
    if (!(error instanceof PtermError) || error.code !== "NothingToCommit") throw error;
    // As git's sequencer: an empty pick stops with the cherry-pick in progress (CHERRY_PICK_HEAD, MERGE_MSG),
    // so that --skip, --abort, --continue and `git commit --allow-empty` conclude it.
    writeStateFile(repo, "MERGE_MSG", message);
    writeStateFile(repo, "CHERRY_PICK_HEAD", `${oid}\n`);
    throw new PtermError(
      "NothingToCommit",
      `${
        initiallyEmpty
          ? `${abbreviate(repo, oid)} is an empty commit`
          : `the change of ${abbreviate(repo, oid)} is already in HEAD`
      }; the cherry-pick stopped in progress, as git stops it.\n` +
        "The previous cherry-pick is now empty, possibly due to conflict resolution.\n" +
        "If you wish to commit it anyway, use:\n\n    git commit --allow-empty\n\n" +
        "Otherwise, please use 'git cherry-pick --skip'",
    );
  }
  return { picked: oid, commit_id: commitId, changed_paths: applied.changed, conflicts: [] };
}

// ---- tags ----------------------------------------------------------------------------------

export interface TagInfo {
  name: string;
  target: string;
  type: "lightweight" | "annotated";
  object: string;
  message: string | null;
}

export async function describeTag(repo: Repo, name: string, object: string): Promise<TagInfo> {
  const raw = await repo.objects.read(object);
  if (raw.type === "tag") {
    const tag = parseTag(raw.content);
    const peeled = await peel(repo, object);
    return { name, target: peeled.oid, type: "annotated", object, message: tag.message.replace(/\n+$/, "") };
  }
  return { name, target: object, type: "lightweight", object, message: null };
}

export async function listTags(repo: Repo): Promise<TagInfo[]> {
  const out: TagInfo[] = [];
  for (const [ref, oid] of listRefs(repo, "refs/tags")) out.push(await describeTag(repo, ref.slice(10), oid));
  return out;
}

export async function createTag(
  repo: Repo,
  name: string,
  options: { ref?: string; message?: string; author: GitAuthor; force?: boolean },
): Promise<{ name: string; target: string }> {
  checkTagName(name);
  const refName = `refs/tags/${name}`;
  const existing = resolveRefOid(repo, refName);
  if (existing && !options.force) {
    throw new PtermError(
      "AlreadyExists",
      `the tag \`${name}\` already exists; pick another name or pass --force to move it.`,
    );
  }
  const object = await resolveRevision(repo, options.ref ?? "HEAD");
  let pointTo = object;
  if (options.message !== undefined) {
    const message = cleanupMessage(options.message, true);
    if (message === "") throw new PtermError("InvalidArgs", "the tag message is empty; give --message some text.");
    const type = (await repo.objects.read(object)).type;
    pointTo = await repo.objects.write(
      "tag",
      serializeTag({ object, type, tag: name, tagger: signatureNow(options.author), message }),
    );
  }
  await updateRef(repo, refName, pointTo, {
    expected: existing,
    message: `tag: ${name}`,
    who: signatureNow(options.author),
  });
  const target = (await peel(repo, object)).oid;
  return { name, target };
}

export async function deleteTag(repo: Repo, name: string): Promise<string> {
  const refName = `refs/tags/${name}`;
  const oid = resolveRefOid(repo, refName);
  if (!oid) throw new PtermError("NotFound", `there is no tag ${name}; list tags with \`git tag\`.`);
  await deleteRef(repo, refName, oid);
  return oid;
}

// ---- branches ------------------------------------------------------------------------------

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

function refuseIfCheckedOutElsewhere(repo: Repo, ref: string, doing: string): void {
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

// ---- switching -----------------------------------------------------------------------------

export interface SwitchOutcome {
  branch: string | null;
  head: string;
  changed: string[];
  withheld: string[];
}

/** Switches HEAD to a branch (or, detached, to a commit), updating index and work tree safely. */
export async function switchTo(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  target: string,
  options: { detach?: boolean; force?: boolean; createBranch?: string; author: GitAuthor },
): Promise<SwitchOutcome> {
  const head = readHead(repo);
  const who = signatureNow(options.author);
  let branchRef: string | null = null;
  let commit: string;
  if (options.createBranch) {
    checkBranchName(options.createBranch);
    if (resolveRefOid(repo, `refs/heads/${options.createBranch}`)) {
      throw new PtermError(
        "AlreadyExists",
        `a branch named ${options.createBranch} already exists; check it out without --create.`,
      );
    }
    commit = await resolveCommit(repo, target);
    branchRef = `refs/heads/${options.createBranch}`;
  } else {
    const local = options.detach ? null : readRawRef(repo, `refs/heads/${target}`) ? `refs/heads/${target}` : null;
    branchRef = local;
    if (local && local !== head.ref) refuseIfCheckedOutElsewhere(repo, local, "check out");
    commit = local ? resolveRefOid(repo, local)! : await resolveCommit(repo, target);
  }
  const result = await switchTrees(
    repo,
    index,
    policy,
    await treeOf(repo, head.oid),
    await treeOf(repo, commit),
    options.force ? "force" : "safe",
  );
  // git's reflog names a detached HEAD it leaves by its full object name.
  const fromName = head.branch ?? head.oid ?? "(unborn)";
  if (options.createBranch) {
    await updateRef(repo, branchRef!, commit, { expected: null, message: `branch: Created from ${target}`, who });
  }
  if (branchRef) {
    const toName = branchRef.slice(11);
    await setHeadSymbolic(repo, branchRef, who, `checkout: moving from ${fromName} to ${toName}`);
  } else {
    await setHeadDetached(repo, commit, who, `checkout: moving from ${fromName} to ${target}`);
  }
  return {
    branch: branchRef ? branchRef.slice(11) : null,
    head: commit,
    changed: result.changed,
    withheld: result.withheld,
  };
}

export { restorePaths };

// ---- merge ---------------------------------------------------------------------------------

export type MergeOutcome =
  | { outcome: "up-to-date"; head: string; commit_id: null; changed: string[]; conflicts: string[] }
  | { outcome: "fast-forward" | "merge"; head: string; commit_id: string; changed: string[]; conflicts: string[] }
  | { outcome: "conflict"; head: string; commit_id: null; changed: string[]; conflicts: string[] }
  | { outcome: "squashed"; head: string; commit_id: null; changed: string[]; conflicts: string[] };

/**
 * `git merge --squash`: the other side's changes merged into index and work tree (a fast-forward
 * too) without moving HEAD or recording a merge: no MERGE_HEAD, and SQUASH_MSG holds git's
 * "Squashed commit of the following:" with each commit in git's medium format, for the commit
 * that follows (`git commit` without -m takes it).
 */
async function squashInto(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  rev: string,
  head: string,
  theirs: string,
): Promise<MergeOutcome> {
  let changed: string[];
  let conflicts: string[] = [];
  if (await isAncestor(repo, head, theirs)) {
    await requireIndexMatchesHead(repo, index, "merge");
    const result = await switchTrees(
      repo,
      index,
      policy,
      await treeOf(repo, head),
      await treeOf(repo, theirs),
      "safe",
      "merge",
    );
    changed = result.changed;
  } else {
    await requireIndexMatchesHead(repo, index, "merge");
    const base = await mergeBaseTree(repo, head, theirs);
    const merge = await mergeTrees(repo, base.tree, await treeOf(repo, head), await treeOf(repo, theirs), {
      ours: "HEAD",
      theirs: rev,
      base: base.label,
    });
    const applied = await applyMerge(repo, index, policy, merge, "merge");
    changed = applied.changed;
    conflicts = applied.conflicts;
  }
  const listed = await walkLog(repo, theirs, Number.MAX_SAFE_INTEGER, null, await ancestorsOf(repo, head));
  const context = { repo, date: "default" as const, decorations: null, abbrevCommit: false };
  const entries: string[] = [];
  for (const c of listed) {
    entries.push(prettyCommit(context, { kind: "builtin", name: "medium" }, c.id, await readCommit(repo, c.id)));
  }
  writeStateFile(repo, "SQUASH_MSG", `Squashed commit of the following:\n\n${entries.join("\n")}`);
  return { outcome: "squashed", head, commit_id: null, changed, conflicts };
}

export async function mergeInto(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  rev: string,
  options: { noFf: boolean; message?: string; author: GitAuthor; squash?: boolean },
): Promise<MergeOutcome> {
  const head = readHead(repo);
  if (readMergeHeads(repo).length > 0 || index.hasConflicts()) {
    throw new PtermError(
      "Conflict",
      "a merge is already in progress; commit the resolution or run `git merge --abort`.",
    );
  }
  const theirs = await resolveCommit(repo, rev);
  if (!head.oid) {
    throw new PtermError(
      "NotFound",
      "the current branch has no commits yet; commit first (or check out the other branch).",
    );
  }
  if (await isAncestor(repo, theirs, head.oid)) {
    return { outcome: "up-to-date", head: head.oid, commit_id: null, changed: [], conflicts: [] };
  }
  const who = signatureNow(options.author);
  // How git's fmt-merge-msg names what is merged.
  const full = dwimRef(repo, rev) ?? "";
  const theirsName = full.startsWith("refs/heads/")
    ? `branch '${rev}'`
    : full.startsWith("refs/tags/")
    ? `tag '${rev}'`
    : full.startsWith("refs/remotes/")
    ? `remote-tracking branch '${rev}'`
    : `commit '${rev}'`;
  if (options.squash) return await squashInto(repo, index, policy, rev, head.oid, theirs);
  if (!options.noFf && (await isAncestor(repo, head.oid, theirs))) {
    const result = await switchTrees(
      repo,
      index,
      policy,
      await treeOf(repo, head.oid),
      await treeOf(repo, theirs),
      "safe",
      "merge",
    );
    writeStateFile(repo, "ORIG_HEAD", `${head.oid}\n`);
    await advanceHead(repo, theirs, { expected: head.oid, message: `merge ${rev}: Fast-forward`, who });
    return { outcome: "fast-forward", head: theirs, commit_id: theirs, changed: result.changed, conflicts: [] };
  }
  await requireIndexMatchesHead(repo, index, "merge");
  const base = await mergeBaseTree(repo, head.oid, theirs);
  const merge = await mergeTrees(repo, base.tree, await treeOf(repo, head.oid), await treeOf(repo, theirs), {
    ours: "HEAD",
    theirs: rev,
    base: base.label,
  });
  const applied = await applyMerge(repo, index, policy, merge, "merge");
  // git's fmt-merge-msg: " into <branch>" except for main and master (merge.suppressDest), " into HEAD" detached.
  const into = head.branch ? (["main", "master"].includes(head.branch) ? "" : ` into ${head.branch}`) : " into HEAD";
  const message = options.message ?? `Merge ${theirsName}${into}`;
  writeStateFile(repo, "ORIG_HEAD", `${head.oid}\n`);
  if (applied.conflicts.length > 0) {
    writeStateFile(repo, "MERGE_HEAD", `${theirs}\n`);
    writeStateFile(repo, "MERGE_MSG", `${message}\n`);
    writeStateFile(repo, "MERGE_MODE", options.noFf ? "no-ff" : "");
    return {
      outcome: "conflict",
      head: head.oid,
      commit_id: null,
      changed: applied.changed,
      conflicts: applied.conflicts,
    };
  }
  const commitId = await commitIndex(repo, index, {
    message,
    author: options.author,
    allowEmpty: true,
    extraParents: [theirs],
    reflogMessage: `merge ${rev}: Merge made by the 'ort' strategy.`,
  });
  return { outcome: "merge", head: commitId, commit_id: commitId, changed: applied.changed, conflicts: [] };
}

/**
 * `git merge|cherry-pick|revert --abort`: index and work tree back to HEAD for every path the
 * operation staged or left in conflict; other files are left alone, and the state files go.
 */
export async function abortSequence(repo: Repo, index: Index, policy: PathPolicy, kind: Sequence): Promise<string[]> {
  requireSequence(repo, kind, "abort");
  const tree = await treeOf(repo, readHead(repo).oid);
  const staged = await indexVsTree(repo, index, tree);
  const paths = [...new Set([...staged.keys(), ...index.conflicts.keys()])].sort(comparePaths);
  const flat = await flattenTree(repo, tree);
  const writer = new WorktreeWriter(repo);
  for (const path of paths) {
    const target = flat.get(path);
    if (!target) {
      index.remove(path);
      if (!policy.hidden(path)) writer.removeFile(path);
      continue;
    }
    if (policy.hidden(path)) index.set(emptyEntry(path, target.oid, treeModeToMode(target.mode)));
    else index.set(await writeBlob(repo, writer, path, target), true);
  }
  clearSequenceState(repo);
  return paths;
}

/**
 * `git merge|cherry-pick|revert --continue`: the resolved index committed with the message the
 * operation prepared (MERGE_MSG), as git does; a cherry-pick keeps the picked commit's author
 * unless one is given. Conflicts still in the index refuse it.
 */
export async function continueSequence(
  repo: Repo,
  index: Index,
  kind: Sequence,
  author: GitAuthor,
  explicitAuthor: boolean,
): Promise<string> {
  requireSequence(repo, kind, "continue");
  if (index.hasConflicts()) {
    throw new PtermError(
      "Conflict",
      `these files are still in conflict: ${[...index.conflicts.keys()].sort(comparePaths).join(", ")}. Edit ` +
        `them, \`git add\` them, then \`git ${kind} --continue\` again (or \`git ${kind} --abort\`).`,
    );
  }
  try {
    return await commitIndex(repo, index, {
      message: preparedMessage(repo) ?? "",
      author,
      ...(await sequenceCommitOptions(repo, explicitAuthor)),
      allowEmpty: kind === "merge",
    });
  } catch (error) {
    if (!(error instanceof PtermError) || error.code !== "NothingToCommit") throw error;
    // As git: the resolution left HEAD's files, so the pick or revert would be an empty commit.
    throw new PtermError(
      "NothingToCommit",
      `the ${kind} is now empty (the resolution left HEAD's files); \`git ${kind} --skip\` drops it, or ` +
        "`git commit --allow-empty` records it anyway.",
    );
  }
}
