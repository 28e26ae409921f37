/**
 * `git rebase <upstream>` as git's sequencer runs it (the merge backend, git's default): the branch's own
 * commits (not merges, not those whose change the upstream already has) picked one by one onto the new base
 * with a detached HEAD, then the branch moved to the result. A conflict stops with git's own state folder,
 * `.git/rebase-merge/`, written the way git writes it, so that either pterm or the person's git finishes it
 * (`--continue`, `--skip`, `--abort`, `--quit`), and pterm finishes a rebase git stopped.
 */

import { PtermError } from "../../../core/errors.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { comparePaths, EMPTY_TREE_OID } from "../odb/bytes.ts";
import { type Signature, splitMessage } from "../odb/objects.ts";
import { type FileChange, renderDiff } from "../diff/diff.ts";
import { topoOrder } from "../history/graph.ts";
import { ancestorsOf, readCommit, walkLog } from "../history/log.ts";
import { resolveCommit } from "../history/revparse.ts";
import { mergeBases } from "../merge/merge.ts";
import { rebaseStateDir, sequenceInProgress } from "../merge/sequence.ts";
import { type GitAuthor, signatureNow } from "../repo/identity.ts";
import { readHead, readRawRef, resolveRefOid, setHeadDetached, setHeadSymbolic, updateRef } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { switchTrees } from "../worktree/checkout.ts";
import { S_IFGITLINK } from "../worktree/index_file.ts";
import type { Index } from "../worktree/index_file.ts";
import type { PathPolicy } from "../worktree/worktree.ts";
import { clearSequenceState, commitIndex } from "./commit.ts";
import { parseSteps, readRebaseFile as readState, REBASE_DIR as DIR, type Step } from "./rebase_status.ts";
import { cherryPickCommit } from "./pick.ts";
import { type GitText, printedBy, refusal } from "./printed.ts";
import { computeStatus, indexVsTree } from "./status.ts";
import { treeOf, writeStateFile } from "./state.ts";
import { commitChanges, commitSummaryText } from "./summary_text.ts";

/** What a rebase printed, as git prints it (colour off, stderr not a terminal of a known kind). */
export type RebaseText = GitText;

export interface RebaseOutcome {
  outcome: "up-to-date" | "rebased" | "stopped";
  /** The branch rebased (refs/heads/…), or null for a detached HEAD. */
  branch: string | null;
  head: string;
  onto: string;
  /** Each commit picked: its old id and the new one. */
  picked: { from: string; to: string }[];
  /** Commits left out because the upstream has their change (git's patch-id). */
  skipped: string[];
  /** Commits whose change was already in HEAD when picked (git's --empty=drop). */
  dropped: string[];
  /** The commit the rebase stopped at, with the files in conflict. */
  stopped_at: string | null;
  conflicts: string[];
  changed_paths: string[];
  text: RebaseText;
  /** Why the rebase stopped other than on conflicts (a pick refused before changing anything). */
  error?: PtermError;
}

/** The state git keeps in `.git/rebase-merge/` (the files git's sequencer and its status read). */
interface RebaseState {
  /** `refs/heads/<name>`, or `detached HEAD`. */
  headName: string;
  onto: string;
  origHead: string;
  todo: Step[];
  done: Step[];
  /** The action that names reflog entries: `rebase`, or `pull --rebase` for a pull. */
  action: string;
}

/** git's "term_clear_line" on a terminal git knows nothing of (TERM unset or dumb): 80 spaces between carriage returns. */
const CLEAR_LINE = `\r${" ".repeat(80)}\r`;

/** A word as git's sq_quote writes it in author-script: in single quotes, `'` and `!` escaped. */
function sqQuote(value: string): string {
  return `'${value.replace(/['!]/g, (c) => `'\\${c}'`)}'`;
}

function sqUnquote(value: string): string {
  return value.replace(/^'|'$/g, "").replace(/'\\(['!])'/g, "$1");
}

function authorScript(sig: Signature): string {
  const sign = sig.tzOffset < 0 ? "-" : "+";
  const abs = Math.abs(sig.tzOffset);
  const tz = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
  return `GIT_AUTHOR_NAME=${sqQuote(sig.name)}\nGIT_AUTHOR_EMAIL=${sqQuote(sig.email)}\n` +
    `GIT_AUTHOR_DATE=${sqQuote(`@${sig.timestamp} ${tz}`)}\n`;
}

/** The author git's `rebase --continue` commits with (author-script), or null when it is absent or unreadable. */
function readAuthorScript(repo: Repo): Signature | null {
  const text = readState(repo, "author-script");
  if (text === null) return null;
  const values = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^(GIT_AUTHOR_(?:NAME|EMAIL|DATE))=(.*)$/.exec(line);
    if (match) values.set(match[1], sqUnquote(match[2]));
  }
  const date = /^@(\d+) ([+-])(\d\d)(\d\d)$/.exec(values.get("GIT_AUTHOR_DATE") ?? "");
  if (!values.has("GIT_AUTHOR_NAME") || !values.has("GIT_AUTHOR_EMAIL") || !date) return null;
  return {
    name: values.get("GIT_AUTHOR_NAME")!,
    email: values.get("GIT_AUTHOR_EMAIL")!,
    timestamp: Number(date[1]),
    tzOffset: (date[2] === "-" ? -1 : 1) * (Number(date[3]) * 60 + Number(date[4])),
  };
}

function removeState(repo: Repo, name: string): void {
  try {
    Deno.removeSync(`${repo.gitdir}/${name}`);
  } catch { /* absent */ }
}

/** git's refusal of `--continue`, `--skip`, `--abort` or `--quit` with no rebase in progress. */
export function noRebase(doing: string): PtermError {
  return refusal("NotFound", `there is no rebase to ${doing}: no rebase in progress.`, {
    stdout: "",
    stderr: "fatal: No rebase in progress?\n",
  });
}

function loadRebaseState(repo: Repo, doing: string): RebaseState {
  const dir = rebaseStateDir(repo);
  if (dir === null) throw noRebase(doing);
  if (dir === "rebase-apply") {
    throw new PtermError(
      "UnsupportedFormat",
      "this rebase runs on git's apply backend (.git/rebase-apply, `git rebase --apply` or `git am`), which " +
        `pterm does not run; \`git rebase --${doing}\` with the real git.`,
    );
  }
  const headName = readState(repo, "head-name")?.trim();
  const onto = readState(repo, "onto")?.trim();
  const origHead = readState(repo, "orig-head")?.trim();
  if (!headName || !onto || !origHead) {
    throw new PtermError(
      "CorruptRepository",
      ".git/rebase-merge lacks head-name, onto or orig-head; finish or abort this rebase with the real git.",
    );
  }
  return {
    headName,
    onto,
    origHead,
    todo: parseSteps(readState(repo, "git-rebase-todo")),
    done: parseSteps(readState(repo, "done")),
    action: "rebase",
  };
}

function writeSteps(repo: Repo, state: RebaseState): void {
  const lines = (steps: Step[]) => steps.map((s) => `${s.line}\n`).join("");
  writeStateFile(repo, `${DIR}/git-rebase-todo`, lines(state.todo));
  writeStateFile(repo, `${DIR}/done`, lines(state.done));
  writeStateFile(repo, `${DIR}/msgnum`, `${state.done.length}\n`);
  writeStateFile(repo, `${DIR}/end`, `${state.done.length + state.todo.length}\n`);
}

/** The files of a stop (a pick in conflict) that go once it is resolved, skipped or given up. */
function clearStop(repo: Repo): void {
  for (const name of ["message", "author-script", "stopped-sha", "patch", "amend"]) removeState(repo, `${DIR}/${name}`);
  removeState(repo, "REBASE_HEAD");
  clearSequenceState(repo);
}

/**
 * git's require_clean_work_tree for a rebase: no unstaged change to a tracked file and nothing staged, else its
 * `error: cannot rebase: …` lines (the text is the error's message; nothing was changed).
 */
export async function requireClean(repo: Repo, index: Index, policy: PathPolicy, doing = "rebase"): Promise<void> {
  const head = readHead(repo);
  const staged = (await indexVsTree(repo, index, await treeOf(repo, head.oid))).size > 0 || index.hasConflicts();
  const report = await computeStatus(repo, index, policy, { untracked: false, submodules: "all" });
  const unstaged = [...report.unstaged.keys()].some((p) => index.entries.get(p)?.mode !== S_IFGITLINK);
  if (!staged && !unstaged) return;
  const lines = unstaged
    ? [`error: cannot ${doing}: You have unstaged changes.`]
    : [`error: cannot ${doing}: Your index contains uncommitted changes.`];
  if (unstaged && staged) lines.push("error: additionally, your index contains uncommitted changes.");
  lines.push("error: Please commit or stash them.");
  throw refusal(
    "UncommittedChanges",
    `the work tree has ${unstaged ? "unstaged" : "staged"} changes to tracked files; nothing was changed.`,
    { stdout: "", stderr: lines.join("\n") + "\n" },
    { hint: "commit the changes (`git commit -am …`) or stash them (`git stash push`), then run the rebase again." },
  );
}

/**
 * A commit's change as one comparable key, as git's patch-id compares commits: its diff with the
 * line numbers of the hunks and all whitespace left out (binary files by their blobs).
 */
async function patchKey(repo: Repo, changes: readonly FileChange[]): Promise<string> {
  const rendered = await renderDiff(repo, changes);
  const lines = rendered.patch.split("\n").filter((line) => !line.startsWith("index "))
    .map((line) => line.startsWith("@@") ? "@@" : line.replace(/\s+/g, ""));
  const blobs = new Map(changes.map((c) => [c.path, c.new?.kind === "blob" ? c.new.oid : null]));
  const binary = rendered.files.filter((f) => f.binary).map((f) => `${f.path}:${blobs.get(f.path)}`);
  return `${lines.join("\n")}\n${binary.join("\n")}`;
}

/**
 * The branch's commits whose change the upstream side has already (git's --cherry-pick): the patches compared
 * only between commits that changed the same paths.
 */
async function alreadyUpstream(repo: Repo, ours: readonly string[], theirs: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  if (ours.length === 0 || theirs.length === 0) return found;
  const pathsOf = (changes: readonly FileChange[]) => changes.map((c) => c.path).join("\0");
  const upstream = new Map<string, FileChange[][]>();
  // A commit that changes nothing has no patch to match: git never counts it as applied already.
  for (const oid of theirs) {
    const changes = await commitChanges(repo, oid);
    if (changes.length === 0) continue;
    const key = pathsOf(changes);
    upstream.set(key, [...(upstream.get(key) ?? []), changes]);
  }
  const keys = new Map<string, Set<string>>();
  for (const oid of ours) {
    const changes = await commitChanges(repo, oid);
    if (changes.length === 0) continue;
    const candidates = upstream.get(pathsOf(changes));
    if (!candidates) continue;
    const pathKey = pathsOf(changes);
    if (!keys.has(pathKey)) {
      keys.set(pathKey, new Set(await Promise.all(candidates.map((c) => patchKey(repo, c)))));
    }
    if (keys.get(pathKey)!.has(await patchKey(repo, changes))) found.add(oid);
  }
  return found;
}

/** `pick <oid> <subject>` as git's todo list writes it, `# empty` after a commit that changes nothing. */
async function stepOf(repo: Repo, oid: string): Promise<Step> {
  const commit = await readCommit(repo, oid);
  const parentTree = commit.parents.length ? await treeOf(repo, commit.parents[0]) : EMPTY_TREE_OID;
  const empty = commit.tree === parentTree ? " # empty" : "";
  return { oid, line: `pick ${oid} ${splitMessage(commit.message).subject}${empty}` };
}

/** git's progress line to stderr for step `n` of `end`. */
const progress = (n: number, end: number) => `Rebasing (${n}/${end})\r`;

/** The outcome of a rebase resumed (continued or skipped) before its remaining picks run. */
function resumedOutcome(repo: Repo, state: RebaseState, text: RebaseText): RebaseOutcome {
  return {
    outcome: "rebased",
    branch: state.headName.startsWith("refs/heads/") ? state.headName : null,
    head: readHead(repo).oid!,
    onto: state.onto,
    picked: [],
    skipped: [],
    dropped: [],
    stopped_at: null,
    conflicts: [],
    changed_paths: [],
    text,
  };
}

/**
 * Picks the todo list's commits one by one onto HEAD, then finishes (the branch moved to the result, HEAD back on
 * it, the state folder gone). A conflict stops with git's state written; a pick refused before it changed
 * anything (an untracked file in the way) stops too, that commit left first in the todo list, as git reschedules it.
 */
async function runSteps(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  state: RebaseState,
  author: GitAuthor,
  outcome: RebaseOutcome,
): Promise<RebaseOutcome> {
  const { text } = outcome;
  const changed = new Set(outcome.changed_paths);
  while (state.todo.length > 0) {
    const step = state.todo.shift()!;
    state.done.push(step);
    writeSteps(repo, state);
    const end = state.done.length + state.todo.length;
    text.stderr += progress(state.done.length, end);
    const commit = await readCommit(repo, step.oid);
    const subject = splitMessage(commit.message).subject;
    let picked;
    try {
      picked = await cherryPickCommit(repo, index, policy, step.oid, {
        noCommit: false,
        author,
        allowEmpty: true,
        rebase: { reflogMessage: `${state.action} (pick): ${subject}` },
      });
    } catch (error) {
      if (!(error instanceof PtermError)) throw error;
      // As git's sequencer: the pick that could not start is rescheduled (first in the todo list again, and still
      // in done), and the rebase stops there with nothing of it applied.
      state.todo.unshift(step);
      writeStateFile(repo, `${DIR}/git-rebase-todo`, state.todo.map((s) => `${s.line}\n`).join(""));
      writeStopFiles(repo, step.oid, commit);
      // git's own lines about what blocked the pick (its checkout's) come first.
      text.stderr += printedBy(error)?.stderr ?? "";
      text.stderr += "hint: Could not execute the todo command\nhint: \n" + `hint:     ${step.line}\nhint: \n` +
        "hint: It has been rescheduled; To edit the command before continuing, please\n" +
        "hint: edit the todo list first:\nhint: \nhint:     git rebase --edit-todo\nhint:     git rebase --continue\n" +
        `Could not apply ${abbreviate(repo, step.oid)}... ${subject}\n`;
      return { ...outcome, outcome: "stopped", stopped_at: step.oid, head: readHead(repo).oid!, error };
    }
    for (const path of picked.changed_paths) changed.add(path);
    const short = abbreviate(repo, step.oid);
    // git's sequencer shows the merge's messages of a rebase's pick only when the pick conflicted.
    text.stdout += picked.printed?.stdout ?? "";
    if (picked.redundant) {
      text.stderr += `dropping ${step.oid} ${subject} -- patch contents already upstream\n`;
      // As git's sequencer records every pick that succeeded: a dropped commit was rewritten into HEAD as it stands.
      appendRewritten(repo, step.oid, readHead(repo).oid!);
      outcome.dropped.push(step.oid);
      continue;
    }
    if (picked.conflicts.length > 0) {
      writeStopFiles(repo, step.oid, commit);
      const pickedLine = `${short}... ${subject}`;
      text.stderr += `error: could not apply ${pickedLine}\n` +
        "hint: Resolve all conflicts manually, mark them as resolved with\n" +
        'hint: "git add/rm <conflicted_files>", then run "git rebase --continue".\n' +
        'hint: You can instead skip this commit: run "git rebase --skip".\n' +
        'hint: To abort and get back to the state before "git rebase", run "git rebase --abort".\n' +
        `Could not apply ${pickedLine}\n`;
      return {
        ...outcome,
        outcome: "stopped",
        stopped_at: step.oid,
        conflicts: picked.conflicts,
        changed_paths: [...changed].sort(comparePaths),
        head: readHead(repo).oid!,
      };
    }
    appendRewritten(repo, step.oid, picked.commit_id!);
    outcome.picked.push({ from: step.oid, to: picked.commit_id! });
  }
  await finishRebase(repo, state, author, text);
  return { ...outcome, outcome: "rebased", head: readHead(repo).oid!, changed_paths: [...changed].sort(comparePaths) };
}

/** What git's sequencer writes where a pick stops: its message, its author, which commit, REBASE_HEAD. */
function writeStopFiles(repo: Repo, oid: string, commit: { message: string; author: Signature }): void {
  writeStateFile(repo, `${DIR}/message`, `${commit.message}\n`);
  writeStateFile(repo, `${DIR}/author-script`, authorScript(commit.author));
  writeStateFile(repo, `${DIR}/stopped-sha`, `${oid}\n`);
  writeStateFile(repo, "REBASE_HEAD", `${oid}\n`);
}

function appendRewritten(repo: Repo, from: string, to: string): void {
  writeStateFile(repo, `${DIR}/rewritten-list`, (readState(repo, "rewritten-list") ?? "") + `${from} ${to}\n`);
}

/** The end of a rebase: the branch moved to HEAD, HEAD back on the branch, the state folder gone. */
async function finishRebase(repo: Repo, state: RebaseState, author: GitAuthor, text: RebaseText): Promise<void> {
  const who = signatureNow(author);
  const final = readHead(repo).oid!;
  if (state.headName.startsWith("refs/heads/")) {
    await updateRef(repo, state.headName, final, {
      expected: state.origHead,
      message: `${state.action} (finish): ${state.headName} onto ${state.onto}`,
      who,
    });
    await setHeadSymbolic(repo, state.headName, who, `${state.action} (finish): returning to ${state.headName}`);
  }
  clearStop(repo);
  Deno.removeSync(`${repo.gitdir}/${DIR}`, { recursive: true });
  text.stderr += `${CLEAR_LINE}Successfully rebased and updated ${state.headName}.\n`;
}

export interface RebaseRequest {
  /** The upstream as spelled (`main`, `origin/main`, an id). */
  readonly upstream: string;
  /** `--onto <newbase>`: where the commits go (default the upstream). */
  readonly onto?: string;
  /** `<branch>`: the branch to rebase (checked out first), default the current one. */
  readonly branch?: string;
  readonly author: GitAuthor;
  /** The action reflog entries are named after (`rebase`, or `pull --rebase`). */
  readonly action?: string;
  /** advice.skippedCherryPicks: git's hints after the skipped commits' warnings. */
  readonly adviceSkipped?: boolean;
}

/** `git rebase [--onto <newbase>] <upstream> [<branch>]` (inside the repository lock). */
export async function startRebase(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  request: RebaseRequest,
): Promise<RebaseOutcome> {
  const inProgress = rebaseStateDir(repo);
  if (inProgress) {
    throw refusal(
      "Conflict",
      `a rebase is in progress already (.git/${inProgress}): finish it with \`git rebase --continue\`, drop its ` +
        "current commit with `git rebase --skip`, or give it up with `git rebase --abort`.",
      {
        stdout: "",
        stderr: `fatal: It seems that there is already a ${inProgress} directory, and\n` +
          "I wonder if you are in the middle of another rebase.  If that is the\n" +
          "case, please try\n\tgit rebase (--continue | --abort | --skip)\nIf that is not the case, please\n" +
          `\trm -fr ".git/${inProgress}"\nand run me again.  I am stopping in case you still have something\n` +
          "valuable there.\n\n",
      },
    );
  }
  const other = sequenceInProgress(repo);
  if (other) {
    throw new PtermError(
      "Conflict",
      `a ${other} is in progress: conclude it (\`git ${other} --continue\`) or give it up ` +
        `(\`git ${other} --abort\`) before rebasing.`,
    );
  }
  const action = request.action ?? "rebase";
  const current = readHead(repo);
  let headName: string;
  let headOid: string;
  if (request.branch !== undefined) {
    const ref = readRawRef(repo, `refs/heads/${request.branch}`) ? `refs/heads/${request.branch}` : null;
    headName = ref ?? "detached HEAD";
    headOid = ref ? resolveRefOid(repo, ref)! : await resolveCommit(repo, request.branch);
  } else {
    if (!current.oid) throw new PtermError("NotFound", "there are no commits yet, so there is nothing to rebase.");
    headName = current.ref ?? "detached HEAD";
    headOid = current.oid;
  }
  const upstream = await resolveCommit(repo, request.upstream);
  const onto = request.onto !== undefined ? await resolveCommit(repo, request.onto) : upstream;
  await requireClean(repo, index, policy);
  const who = signatureNow(request.author);
  const text: RebaseText = { stdout: "", stderr: "" };
  const branchLabel = headName.startsWith("refs/heads/") ? headName.slice(11) : "HEAD";
  const base: RebaseOutcome = {
    outcome: "rebased",
    branch: headName.startsWith("refs/heads/") ? headName : null,
    head: headOid,
    onto,
    picked: [],
    skipped: [],
    dropped: [],
    stopped_at: null,
    conflicts: [],
    changed_paths: [],
    text,
  };
  // git's can_fast_forward: the branch forks from the new base exactly where the upstream meets it.
  const ontoBases = await mergeBases(repo, onto, headOid);
  const upstreamBases = await mergeBases(repo, upstream, headOid);
  if (ontoBases.length === 1 && ontoBases[0] === onto && upstreamBases.length === 1 && upstreamBases[0] === onto) {
    if (request.branch !== undefined && (headName !== current.ref || current.oid !== headOid)) {
      const switched = await switchTrees(
        repo,
        index,
        policy,
        await treeOf(repo, current.oid),
        await treeOf(repo, headOid),
        "safe",
        "rebase",
      );
      base.changed_paths = switched.changed;
      if (headName.startsWith("refs/heads/")) {
        await setHeadSymbolic(repo, headName, who, `${action}: checkout ${request.branch}`);
      } else await setHeadDetached(repo, headOid, who, `${action}: checkout ${request.branch}`);
    }
    text.stdout += `Current branch ${branchLabel === "HEAD" ? "HEAD" : branchLabel} is up to date.\n`;
    return { ...base, outcome: "up-to-date" };
  }
  // The branch's own commits, oldest first (git's --reverse --topo-order of upstream...branch, right side).
  const walked: { id: string; parents: string[]; treesame: boolean }[] = [];
  await walkLog(repo, headOid, Infinity, null, await ancestorsOf(repo, upstream), { walked });
  const ours = topoOrder(walked).reverse().filter((c) => c.parents.length <= 1);
  // Commits whose change the upstream has already (git's --cherry-pick over upstream...branch).
  const theirs: string[] = [];
  if (ours.length > 0) {
    const theirWalk: { id: string; parents: string[]; treesame: boolean }[] = [];
    await walkLog(repo, upstream, Infinity, null, await ancestorsOf(repo, headOid), { walked: theirWalk });
    theirs.push(...theirWalk.filter((c) => c.parents.length <= 1).map((c) => c.id));
  }
  const applied = await alreadyUpstream(repo, ours.map((c) => c.id), theirs);
  const todo: Step[] = [];
  for (const commit of ours) {
    if (applied.has(commit.id)) {
      base.skipped.push(commit.id);
      text.stderr += `warning: skipped previously applied commit ${abbreviate(repo, commit.id)}\n`;
      continue;
    }
    todo.push(await stepOf(repo, commit.id));
  }
  if (base.skipped.length > 0 && request.adviceSkipped !== false) {
    text.stderr += "hint: use --reapply-cherry-picks to include skipped commits\n" +
      'hint: Disable this message with "git config advice.skippedCherryPicks false"\n';
  }
  // git's skip_unnecessary_picks: commits already on the new base are not picked again, HEAD starts at them.
  let start = onto;
  const done: Step[] = [];
  while (todo.length > 0 && (await readCommit(repo, todo[0].oid)).parents[0] === start) {
    start = todo[0].oid;
    done.push(todo.shift()!);
  }
  const state: RebaseState = { headName, onto, origHead: headOid, todo, done, action };
  Deno.mkdirSync(`${repo.gitdir}/${DIR}`);
  writeStateFile(repo, `${DIR}/head-name`, `${headName}\n`);
  writeStateFile(repo, `${DIR}/onto`, `${onto}\n`);
  writeStateFile(repo, `${DIR}/orig-head`, `${headOid}\n`);
  writeStateFile(repo, `${DIR}/interactive`, "");
  writeStateFile(repo, `${DIR}/drop_redundant_commits`, "");
  writeStateFile(repo, `${DIR}/no-reschedule-failed-exec`, "");
  writeStateFile(repo, `${DIR}/git-rebase-todo.backup`, [...done, ...todo].map((s) => `${s.line}\n`).join(""));
  writeSteps(repo, state);
  writeStateFile(repo, "ORIG_HEAD", `${headOid}\n`);
  try {
    const switched = await switchTrees(
      repo,
      index,
      policy,
      await treeOf(repo, current.oid),
      await treeOf(repo, start),
      "safe",
      "rebase",
    );
    base.changed_paths = switched.changed;
  } catch (error) {
    // Nothing changed: the rebase did not start, and leaves nothing behind.
    Deno.removeSync(`${repo.gitdir}/${DIR}`, { recursive: true });
    throw error;
  }
  await setHeadDetached(repo, start, who, `${action} (start): checkout ${request.onto ?? request.upstream}`);
  return await runSteps(repo, index, policy, state, request.author, base);
}

/** `git rebase --continue`: the resolved pick committed (with its own message and author), then the rest picked. */
export async function continueRebase(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  author: GitAuthor,
): Promise<RebaseOutcome> {
  const state = loadRebaseState(repo, "continue");
  const text: RebaseText = { stdout: "", stderr: "" };
  if (index.hasConflicts()) {
    const paths = [...index.conflicts.keys()].sort(comparePaths);
    throw refusal(
      "Conflict",
      `these files are still in conflict: ${paths.join(", ")}; nothing was committed.`,
      {
        stdout: `${paths.map((p) => `${p}: needs merge`).join("\n")}\nYou must edit all merge conflicts and then\n` +
          "mark them as resolved using git add\n",
        stderr: "",
      },
      {
        hint: "edit the files to the content you want, `git add` them, then `git rebase --continue` again " +
          "(or `git rebase --skip` to drop this commit, `git rebase --abort` to give the rebase up).",
        result: { conflicts: paths },
      },
    );
  }
  const head = readHead(repo);
  const stopped = readState(repo, "stopped-sha")?.trim() ?? null;
  const outcome = resumedOutcome(repo, state, text);
  const staged = await indexVsTree(repo, index, await treeOf(repo, head.oid));
  if (staged.size > 0) {
    const original = stopped && /^[0-9a-f]{40}$/.test(stopped) ? await readCommit(repo, stopped) : null;
    const message = readState(repo, "message") ?? original?.message ?? null;
    if (message === null) {
      throw new PtermError(
        "CorruptRepository",
        "the rebase stopped without its message (.git/rebase-merge/message); commit the staged changes with " +
          '`git commit -m "…"`, then `git rebase --continue`.',
      );
    }
    const subject = splitMessage(message).subject;
    const id = await commitIndex(repo, index, {
      message,
      author,
      authorSignature: readAuthorScript(repo) ?? original?.author,
      extraParents: [],
      reflogMessage: `${state.action} (continue): ${subject}`,
      allowEmpty: false,
    });
    text.stdout += await commitSummaryText(repo, id, { showDate: false, initial: false });
    if (stopped) {
      appendRewritten(repo, stopped, id);
      outcome.picked.push({ from: stopped, to: id });
    }
  }
  clearStop(repo);
  return await runSteps(repo, index, policy, state, author, outcome);
}

/** `git rebase --skip`: the stopped pick dropped (index and work tree back to HEAD), then the rest picked. */
export async function skipRebase(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  author: GitAuthor,
): Promise<RebaseOutcome> {
  const state = loadRebaseState(repo, "skip");
  const tree = await treeOf(repo, readHead(repo).oid);
  const reset = await switchTrees(repo, index, policy, tree, tree, "hard", "rebase --skip");
  clearStop(repo);
  const outcome = resumedOutcome(repo, state, { stdout: "", stderr: "" });
  outcome.changed_paths = reset.changed;
  return await runSteps(repo, index, policy, state, author, outcome);
}

/** `git rebase --abort`: index, work tree and HEAD back to where the rebase started, on the branch. */
export async function abortRebase(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  author: GitAuthor,
): Promise<{ head: string; branch: string | null; changed_paths: string[] }> {
  const state = loadRebaseState(repo, "abort");
  const who = signatureNow(author);
  const reset = await switchTrees(
    repo,
    index,
    policy,
    await treeOf(repo, readHead(repo).oid),
    await treeOf(repo, state.origHead),
    "hard",
    "rebase --abort",
  );
  const message = `${state.action} (abort): returning to ${state.headName}`;
  if (state.headName.startsWith("refs/heads/")) await setHeadSymbolic(repo, state.headName, who, message);
  else await setHeadDetached(repo, state.origHead, who, message);
  clearStop(repo);
  Deno.removeSync(`${repo.gitdir}/${DIR}`, { recursive: true });
  return {
    head: state.origHead,
    branch: state.headName.startsWith("refs/heads/") ? state.headName : null,
    changed_paths: reset.changed,
  };
}
