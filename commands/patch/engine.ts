/**
 * One patch run, from text to result: parse, resolve the repository, take the lock, recover
 * what a killed run left, compute every block in the virtual view, then write everything in
 * one transaction and commit — or, for `patch check`, report every problem and write nothing.
 *
 * Git-touching parts go through the library of `commands/git/api.ts` (the `GitApi` below is
 * the subset used); pterm itself never runs the git binary.
 */

import type { Workspace } from "../../core/context.ts";
import { type ErrorCode, PtermError } from "../../core/errors.ts";
import { failure, OpError, parseProblem, type Problem, problemOf } from "./errors.ts";
import { type Block, parsePatch, type Patch } from "./format.ts";
import { type BlockOutcome, booleanParam, runEditBlock } from "./ops.ts";
import {
  discardPending,
  hasPendingRecovery,
  recover,
  type RecoveryReport,
  refuseGitDirectoriesFormed,
  Transaction,
  withPatchLock,
} from "./transaction.ts";
import { type Change, type GitApplyMode, type LineEndings, View } from "./view.ts";
import { parseDiff } from "./diff.ts";
import { defaultRepository } from "../git/repo/locate.ts";
import { quoteWord } from "../../core/grammar.ts";

export interface GitAuthor {
  name: string;
  email: string;
}

type ResetMode = "soft" | "mixed" | "hard";

/** The functions of `commands/git/api.ts` a patch uses. */
export interface GitApi {
  parseAuthor(text: string): GitAuthor;
  isRepository(dir: string): Promise<boolean>;
  operationInProgress(dir: string): Promise<"merge" | "cherry-pick" | "revert" | "rebase" | null>;
  hideWorkspaceState(dir: string): Promise<void>;
  withRepoLock<T>(dir: string, fn: () => Promise<T>): Promise<T>;
  stagePaths(
    dir: string,
    paths: readonly string[],
    opts: { locked: true; root?: string; written?: boolean; blobs?: ReadonlyMap<string, Uint8Array> },
  ): Promise<void>;
  indexModes(dir: string, paths: readonly string[], opts: { locked: true }): Promise<Record<string, number>>;
  gitlinkOid(dir: string, path: string, opts: { locked: true }): Promise<string | null>;
  indexEntry(dir: string, path: string): Promise<{ oid: string; mode: number; matches: boolean | null } | null>;
  indexBlob(dir: string, path: string): Promise<{ bytes: Uint8Array; mode: number } | null>;
  lineEndings(dir: string, options: { fromIndex: boolean }): LineEndings;
  blobByPrefix(dir: string, prefix: string): Promise<Uint8Array | null>;
  threeWayMerge(
    dir: string,
    path: string,
    sides: { base: Uint8Array; ours: Uint8Array; theirs: Uint8Array },
  ): Promise<{ bytes: Uint8Array; conflicted: boolean; warning: string | null }>;
  setConflictStages(
    dir: string,
    conflicts: readonly { path: string; mode: number; base: Uint8Array | null; ours: Uint8Array; theirs: Uint8Array }[],
    opts: { locked: true },
  ): Promise<void>;
  writeIndexEntries(
    dir: string,
    entries: readonly { path: string; bytes: Uint8Array | null; mode: number }[],
    opts: { locked: true },
  ): Promise<void>;
  setSpecialEntries(
    dir: string,
    entries: readonly { path: string; mode: 0o120000 | 0o160000 | 0o100644 | 0o100755; oid?: string | null }[],
    opts: { locked: true },
  ): Promise<void>;
  commitIndex(
    dir: string,
    opts: { message: string; author: GitAuthor; allowEmpty?: boolean; locked: true },
  ): Promise<string>;
  resolveRef(dir: string, ref: string): Promise<string>;
  reset(
    dir: string,
    ref: string,
    mode: ResetMode,
    opts: { locked: true; root?: string; author?: GitAuthor },
  ): Promise<{ head: string; changed_paths: string[] }>;
  revert(
    dir: string,
    ref: string,
    opts: { noCommit: boolean; author: GitAuthor; locked: true; root?: string },
  ): Promise<{ commit_id: string | null; changed_paths: string[]; conflicts: string[] }>;
  tag(
    dir: string,
    name: string,
    opts: { ref?: string; message?: string; author: GitAuthor; force?: boolean; locked: true },
  ): Promise<{ name: string; target: string }>;
  snapshotGitState(dir: string): Promise<unknown>;
  restoreGitState(dir: string, snapshot: never): Promise<void>;
  pathsChangedBy(
    dir: string,
    op: { kind: "reset"; ref: string; mode: ResetMode } | { kind: "revert"; ref: string },
    opts?: { root?: string },
  ): Promise<string[]>;
}

export const DEFAULT_COMMIT_MESSAGE = "chore: apply file ops patch";
export const DEFAULT_AUTHOR = "XGit Bot <bot@xgit.local>";

export interface PatchConfig {
  readonly repos?: Readonly<Record<string, string>>;
  readonly default_repo?: string;
}

export type RunMode = "apply" | "check" | "dry-run";

export interface PatchRun {
  readonly mode: RunMode;
  readonly command: string;
  readonly text: string;
  readonly workspace: Workspace;
  readonly repoFlag?: string;
  readonly noCommit: boolean;
  /**
   * Why no commit is made when `noCommit` is set: "flag" (--no-commit asked for it) or "format"
   * (a unified or codex patch edits the work tree only, as git apply does, unless asked to commit).
   */
  readonly noCommitReason?: "flag" | "format";
  /** -m/--message and --author: override the header's commitmsg: and author:. */
  readonly message?: string;
  readonly author?: string;
  /** Apply hunks whose result is already in the file instead of refusing them (AlreadyApplied). */
  readonly reapply?: boolean;
  /**
   * Diffs apply as `git apply` applies them (its strictness, paths and messages); with `index`, what
   * the run wrote is staged, never committed (`noCommit` must be set).
   */
  readonly gitApply?: GitApplyMode;
  readonly config: PatchConfig;
  readonly session: { readonly id: string; readonly dir: string };
  readonly runId: string;
  readonly signal: AbortSignal;
  /** Told after each edit block is computed (for callers that show progress). */
  readonly progress?: (report: { progress: number; total: number; message: string }) => void;
  /** The git library; null only where no repository can be involved (unit tests of the engine). */
  readonly git: GitApi | null;
  /** Flush written files to disk (default true). */
  readonly durable?: boolean;
}

export interface BlockResult extends BlockOutcome {
  readonly index: number;
  readonly op: string;
  readonly path: string;
}

export interface PatchResult {
  repo_path: string;
  is_repository: boolean;
  dry_run: boolean;
  blocks: BlockResult[];
  files_changed: { path: string; change: "created" | "modified" | "deleted" | "mode_changed" }[];
  commit_id: string | null;
  commit_message: string | null;
  author: string | null;
  recovered: RecoveryReport[];
  warnings: string[];
  problems?: Problem[];
}

// ---- repository -------------------------------------------------------------------------------

/**
 * The folder a patch runs in (and commits to, if it is a repository): --repo, else the header's
 * `repo:`, else the repository git itself would use (the root if it is one, `patch.default_repo`,
 * the only repository near the root; several are AmbiguousRepository), else the root as a plain folder.
 */
export async function resolveRepo(
  run: Pick<PatchRun, "workspace" | "config" | "repoFlag" | "command">,
  patch: Pick<Patch, "header">,
): Promise<{ rel: string; abs: string }> {
  const { workspace, config } = run;
  const mapped = (name: string, from: string): string => {
    const path = config.repos?.[name];
    if (path !== undefined) return path;
    const known = Object.keys(config.repos ?? {});
    throw new PtermError(
      "MissingConfig",
      `${from} names a repository that pterm.json's \`patch.repos\` does not map (${
        known.length ? `known: ${known.join(", ")}` : "no repositories are configured"
      }); add \`"patch": {"repos": {"${name}": "<path>"}}\` to pterm.json or pass --repo <path>.`,
    );
  };
  let input: string;
  let label: string;
  if (run.repoFlag !== undefined) {
    input = run.repoFlag;
    label = "--repo";
  } else if (patch.header.repo) {
    const name = patch.header.repo.value;
    input = mapped(name, `the header \`repo: ${name}\``);
    label = `repository \`${name}\``;
  } else {
    const name = config.default_repo;
    const configured = name === undefined ? undefined : mapped(name, `patch.default_repo \`${name}\``);
    input = defaultRepository(workspace.root, configured, run.command, {
      configKey: "patch.default_repo",
      plainRoot: true,
    });
    label = input === "." ? "the workspace root" : input === configured ? `repository \`${name}\`` : "the repository";
  }
  const confined = await workspace.resolve(input, "write", { label });
  let isDir = false;
  try {
    isDir = (await Deno.stat(confined.abs)).isDirectory;
  } catch { /* missing */ }
  if (!isDir) {
    throw new PtermError(
      confined.exists ? "InvalidArgs" : "NotFound",
      `${label} \`${input}\` is not ${
        confined.exists ? "a folder" : "there"
      }; give an existing folder relative to the root.`,
    );
  }
  return { rel: confined.rel, abs: confined.abs };
}

/**
 * "Name <email>", also when written without the angle brackets, as the protocol's own example
 * does: `Zhang San zhangsan@example.com`.
 */
export function normalizeAuthor(text: string): string {
  const t = text.trim();
  if (t.includes("<")) return t;
  const m = /^(.*\S)\s+(\S+@\S+)$/.exec(t);
  return m ? `${m[1]} <${m[2]}>` : t;
}

// ---- structure ----------------------------------------------------------------------------------

const GIT_FIRST = new Set(["git.reset", "git.revert"]);

/** Rules about where git blocks may stand; reported like parse problems. */
function structureProblems(blocks: readonly Block[]): Problem[] {
  const problems: Problem[] = [];
  const commit = blocks.find((b) => b.op === "git.commit");
  if (commit && blocks.length > 1) {
    problems.push({
      code: "PatchParseError",
      message: `block ${commit.index} (git.commit), patch line ${commit.line}: git.commit must be the only block of ` +
        "its patch (a patch with edits commits them itself); remove it or send it as a patch of its own",
      block_index: commit.index,
      op: "git.commit",
      path: null,
      patch_line: commit.line,
    });
  }
  let sawEdit: Block | null = null;
  for (const block of blocks) {
    if (GIT_FIRST.has(block.op)) {
      if (sawEdit) {
        problems.push({
          code: "PatchParseError",
          message: `block ${block.index} (${block.op}), patch line ${block.line}: ${block.op} changes the tree the ` +
            `edits apply to, so it must come before them; move it above block ${sawEdit.index} (${sawEdit.op})`,
          block_index: block.index,
          op: block.op,
          path: null,
          patch_line: block.line,
        });
      }
    } else if (!block.op.startsWith("git.") || block.op === "git.diff") sawEdit ??= block;
  }
  return problems;
}

// ---- git blocks -------------------------------------------------------------------------------

function gitParam(block: Block, key: string): string | undefined {
  const value = block.params.get(key)?.value;
  if (value !== undefined && value !== "") return value;
  // The quoted header value has no file meaning for git blocks; `=== git.tag: "v1.0" ===` names the tag.
  const headerValue = block.path === "." ? "" : block.path;
  if (headerValue && ((block.op === "git.tag" && key === "name") || (block.op !== "git.tag" && key === "ref"))) {
    return headerValue;
  }
  return undefined;
}

function requiredGitParam(block: Block, key: string, example: string): string {
  const value = gitParam(block, key);
  if (value === undefined) {
    throw new OpError("PatchParseError", `${block.op} needs ${key}=<${key}> (e.g. ${example})`, {
      expected: `${key}=`,
    }, block.line);
  }
  return value;
}

function resetMode(block: Block): ResetMode {
  const p = block.params.get("mode");
  const mode = (p?.value ?? "hard").toLowerCase();
  if (mode !== "hard" && mode !== "mixed" && mode !== "soft") {
    throw new OpError(
      "PatchParseError",
      `mode=${p!.value} must be hard, mixed or soft`,
      { parameter: "mode" },
      p!.line,
    );
  }
  return mode;
}

/** git's ref-name rules (`git check-ref-format`) as they apply to a tag name. */
function validTagName(name: string): boolean {
  if (name === "" || name === "@" || /\.\.|\/\/|@\{|\.lock$|^[./-]|[./]$/.test(name)) return false;
  for (const ch of name) {
    const code = ch.charCodeAt(0);
    if (code <= 0x20 || code === 0x7f || "~^:?*[\\".includes(ch)) return false;
  }
  return true;
}

/** Checks a git block's parameters (and refs) without changing anything. */
async function checkGitBlock(block: Block, git: GitApi, repo: string): Promise<void> {
  switch (block.op) {
    case "git.reset":
      resetMode(block);
      await resolveRefOrFail(git, repo, requiredGitParam(block, "ref", "ref=HEAD~1"), block);
      return;
    case "git.revert":
      booleanParam(block, "no-commit", false);
      await resolveRefOrFail(git, repo, requiredGitParam(block, "ref", "ref=HEAD"), block);
      return;
    case "git.tag": {
      const name = requiredGitParam(block, "name", "name=v1.2.0");
      if (!validTagName(name)) {
        throw new OpError("PatchParseError", `\`${name}\` is not a valid tag name`, { parameter: "name" }, block.line);
      }
      booleanParam(block, "force", false);
      if (booleanParam(block, "push", false)) {
        throw new OpError(
          "PatchApplyError",
          "push=true is not supported: a patch changes the local repository only; push with `git push` afterwards",
          { parameter: "push" },
          block.params.get("push")!.line,
        );
      }
      const ref = block.params.get("ref")?.value;
      if (ref) await resolveRefOrFail(git, repo, ref, block);
      return;
    }
    case "git.commit":
      return;
  }
}

async function resolveRefOrFail(git: GitApi, repo: string, ref: string, block: Block): Promise<string> {
  try {
    return await git.resolveRef(repo, ref);
  } catch (error) {
    if (error instanceof PtermError && error.code === "NotFound") {
      throw new OpError("NotFound", `ref \`${ref}\` does not name a commit in this repository`, { ref }, block.line);
    }
    throw error;
  }
}

// ---- the run ------------------------------------------------------------------------------------

function parsedOrFail(run: PatchRun): { patch: Patch; problems: Problem[] } {
  if (run.text.trim() === "") {
    throw new PtermError(
      "PatchParseError",
      `${run.command} got an empty patch; send the patch text on stdin (or --file <path>), ending with \`=== PATCH EOF ===\`.`,
    );
  }
  const { patch, problems } = parsePatch(run.text);
  return { patch, problems: [...problems.map(parseProblem), ...structureProblems(patch.blocks)] };
}

/** Every path a patch's blocks name: XGit blocks' own, and both sides of each file a git.diff block changes. */
function pathsNamed(patch: Patch): string[] {
  const paths: string[] = [];
  for (const block of patch.blocks) {
    if (block.op === "git.diff") {
      for (const file of parseDiff(block.body, block.bodyLine)) {
        if (file.oldPath) paths.push(file.oldPath);
        if (file.newPath) paths.push(file.newPath);
      }
    } else if (block.path) {
      paths.push(block.path);
    }
  }
  return paths;
}

/**
 * A patch run in the repository pterm chose by itself (no --repo, no header, no default_repo) whose
 * paths begin with that repository's own folder was written from the workspace root: applied as it
 * stands, `proj/a.txt` would become `proj/proj/a.txt`. Nothing is written; the message gives both
 * lines that do what was meant.
 */
function refuseRootRelativePaths(run: PatchRun, patch: Patch, repo: { rel: string; abs: string }): void {
  if (run.repoFlag !== undefined || patch.header.repo || run.config.default_repo !== undefined) return;
  if (repo.rel === ".") return;
  const prefix = `${repo.rel}/`;
  const written = pathsNamed(patch).filter((path) => path.startsWith(prefix));
  if (written.length === 0) return;
  // A repository that really holds a folder of its own name takes such paths as they stand.
  const first = repo.rel.split("/")[0];
  try {
    Deno.lstatSync(`${repo.abs}/${first}`);
    return;
  } catch { /* no such folder inside the repository: the paths were written from the root */ }
  const example = written[0];
  throw new PtermError(
    "AmbiguousRepository",
    `${run.command}: no --repo given, so the patch runs in the repository \`${repo.rel}\` (the only one near the ` +
      `root), but its paths are written from the workspace root (\`${example}\`), which would put them under ` +
      `\`${repo.rel}/${example}\`. Nothing was written. Run \`${run.command} --repo .\` to apply the paths as ` +
      `written (or write them relative to the repository, ${example.slice(prefix.length)}, and pass ` +
      `--repo ${quoteWord(repo.rel)}).`,
  );
}

export async function runPatch(run: PatchRun): Promise<PatchResult> {
  const { patch, problems } = parsedOrFail(run);
  if (run.mode === "apply" && problems.length > 0) throw failure(run.command, problems);
  const repo = await resolveRepo(run, patch);
  refuseRootRelativePaths(run, patch, repo);
  const root = run.workspace.root;
  const exclusive = run.mode === "apply";
  return await withPatchLock(root, exclusive, run.signal, async () => {
    const result: PatchResult = {
      repo_path: repo.rel,
      is_repository: false,
      dry_run: run.mode === "dry-run",
      blocks: [],
      files_changed: [],
      commit_id: null,
      commit_message: null,
      author: null,
      recovered: [],
      warnings: [],
    };
    const git = run.git;
    if (run.mode === "apply") {
      result.recovered = await recover(root, git ? restorerFor(git) : null, git ? gitStateReader(git) : null);
    } else {
      const pending = await hasPendingRecovery(root);
      if (pending.length) {
        result.warnings.push(
          `a killed patch run (${
            pending.join(", ")
          }) left changes that the next \`patch apply\` will roll back first; ` +
            "this check sees the tree as it is now.",
        );
      }
    }
    result.is_repository = git !== null && await git.isRepository(repo.abs);
    if (result.is_repository && repo.rel === "." && run.mode === "apply") await git!.hideWorkspaceState(repo.abs);
    const commitMessage = run.message || patch.header.commitmsg?.value || DEFAULT_COMMIT_MESSAGE;
    const authorText = normalizeAuthor(run.author || patch.header.author?.value || DEFAULT_AUTHOR);
    let author: GitAuthor | null = null;
    if (result.is_repository && git) {
      try {
        author = git.parseAuthor(authorText);
      } catch (error) {
        if (!(error instanceof PtermError)) throw error;
        const line = patch.header.author?.line ?? null;
        problems.push({
          code: "PatchParseError",
          message: `${line ? `line ${line}: ` : ""}author \`${authorText}\` is not \`Name <email>\` (${error.message})`,
          block_index: null,
          op: null,
          path: null,
          patch_line: line,
          details: { expected: "Name <email>", found: authorText },
        });
        if (run.mode === "apply") throw failure(run.command, problems);
      }
    }
    if (!result.is_repository) {
      for (const block of patch.blocks) {
        if (!block.op.startsWith("git.") || block.op === "git.diff") continue;
        problems.push({
          code: "NotARepository",
          message: `block ${block.index} (${block.op}), patch line ${block.line}: \`${repo.rel}\` is not a git ` +
            "repository, so git blocks cannot run there; use --repo (or the header repo:) to name a repository",
          block_index: block.index,
          op: block.op,
          path: null,
          patch_line: block.line,
        });
      }
      if (run.mode === "apply" && problems.length) throw failure(run.command, problems);
    }
    if (run.repoFlag !== undefined && patch.header.repo) {
      result.warnings.push(
        `--repo ${run.repoFlag} was used; the header's \`repo: ${patch.header.repo.value}\` was not.`,
      );
    }
    if (result.is_repository && author && !(run.noCommit && run.noCommitReason === "format")) {
      result.commit_message = commitMessage;
      result.author = `${author.name} <${author.email}>`;
    }
    const done = run.mode !== "apply"
      ? await precheck(run, patch, repo, result, problems)
      : result.is_repository && git
      ? await applyInRepo(run, git, patch, repo, result, author!)
      : await applyPlain(run, patch, repo, result);
    done.warnings.push(...relaxedMatchWarnings(done.blocks));
    return done;
  });
}

/**
 * A hunk placed other than exactly — its context lines only similar to the file's (fuzzy), or
 * equal but for whitespace — is named: the edit went where the patch did not say word for word,
 * and whoever sent it should look at the result.
 */
function relaxedMatchWarnings(blocks: readonly BlockResult[]): string[] {
  const warnings: string[] = [];
  for (const block of blocks) {
    for (const hunk of block.hunks ?? []) {
      if (hunk.strategy !== "fuzzy" && hunk.strategy !== "whitespace") continue;
      const how = hunk.strategy === "fuzzy"
        ? "fuzzily: its context lines are only similar to the file's (removed lines matched)"
        : "with whitespace differences in its lines";
      warnings.push(
        `block ${block.index}: hunk ${hunk.hunk} of \`${hunk.file}\` was placed at line ${hunk.at_line} ${how}; ` +
          "check the result (`git diff`).",
      );
    }
  }
  return warnings;
}

/** The files as the patch sees them, with the run's choice about hunks already applied. */
function viewFor(run: PatchRun, repo: { rel: string; abs: string }): View {
  const view = new View(run.workspace, repo.rel, repo.abs);
  view.reapply = run.reapply === true;
  view.gitApply = run.gitApply ?? null;
  if (run.gitApply && run.git) {
    const git = run.git;
    view.indexEntry = (rel) => git.indexEntry(repo.abs, rel);
    view.blobByPrefix = (prefix) => git.blobByPrefix(repo.abs, prefix);
    view.threeWayMerge = (rel, sides) => git.threeWayMerge(repo.abs, rel, sides);
    // git apply patches a work-tree file in git's form (with --index: its index blob) and writes the
    // result back in the work tree's.
    if (!run.gitApply.cached) view.lineEndings = git.lineEndings(repo.abs, { fromIndex: run.gitApply.index });
    // `git apply --cached`: the files are the index's, not the work tree's.
    if (run.gitApply.cached) {
      view.source = async (rel) => {
        const blob = await git.indexBlob(repo.abs, rel);
        return blob && { bytes: blob.bytes, mode: blob.mode === 0o100755 ? 0o755 : 0o644 };
      };
    }
  }
  return view;
}

/** `git apply --3way`'s unresolved merges: their paths' index entries become conflict stages. */
async function recordConflicts(git: GitApi, repoAbs: string, view: View): Promise<void> {
  if (view.threeWayConflicts.size === 0) return;
  const conflicts = [...view.threeWayConflicts].map(([path, c]) => ({ path, ...c }));
  await git.setConflictStages(repoAbs, conflicts, { locked: true });
}

/** The repository's git state now, in the JSON form a journal keeps it, to compare with the journal's. */
function gitStateReader(git: GitApi) {
  return async (repoAbs: string) => {
    if (!(await git.isRepository(repoAbs))) return null;
    return toJsonSafe(await git.snapshotGitState(repoAbs));
  };
}

/**
 * `patch recover`: finishes what killed runs left, as `patch apply` does first — or, with
 * `discard`, drops their journals and leaves the tree as it is (after a `StaleJournal`).
 */
export async function recoverPending(
  run: Pick<PatchRun, "workspace" | "signal" | "git">,
  discard: boolean,
): Promise<RecoveryReport[]> {
  const root = run.workspace.root;
  const git = run.git;
  return await withPatchLock(root, true, run.signal, async () => {
    if (discard) return await discardPending(root);
    return await recover(root, git ? restorerFor(git) : null, git ? gitStateReader(git) : null);
  });
}

function restorerFor(git: GitApi) {
  return async (repoAbs: string, state: unknown) => {
    await git.withRepoLock(repoAbs, () => git.restoreGitState(repoAbs, fromJsonSafe(state) as never));
  };
}

/** check and --dry-run: every block against the view, every problem collected, nothing written. */
async function precheck(
  run: PatchRun,
  patch: Patch,
  repo: { rel: string; abs: string },
  result: PatchResult,
  problems: Problem[],
): Promise<PatchResult> {
  const view = viewFor(run, repo);
  const git = run.git;
  if (result.is_repository && git && !run.noCommit) {
    const stopped = await operationStopped(git, repo);
    if (stopped !== null) {
      problems.push({ code: "Conflict", message: stopped, block_index: null, op: null, path: null, patch_line: null });
    }
  }
  // A check reads submodule pointers from the index as the apply does (nothing is locked: it only reads).
  if (result.is_repository && git) {
    view.indexGitlink = async (rel) => {
      const entry = await git.indexEntry(repo.abs, rel);
      return entry !== null && entry.mode === 0o160000 ? entry.oid : null;
    };
  }
  let treeMoves = false;
  for (const block of patch.blocks) {
    if (run.signal.aborted) throw run.signal.reason;
    try {
      if (block.op.startsWith("git.") && block.op !== "git.diff") {
        if (result.is_repository && run.git) await checkGitBlock(block, run.git, repo.abs);
        if (GIT_FIRST.has(block.op)) treeMoves = true;
        result.blocks.push({ index: block.index, op: block.op, path: block.path, ...gitPlanned(block) });
        continue;
      }
      const outcome = await runEditBlock(block, view);
      result.blocks.push({ index: block.index, op: block.op, path: block.path, ...outcome });
    } catch (error) {
      problems.push(problemOf(block, error));
    }
  }
  if (treeMoves) {
    result.warnings.push(
      "git.reset/git.revert are not run by a check, so the edits after them were checked against the current tree.",
    );
  }
  problems.sort((a, b) => (a.patch_line ?? 0) - (b.patch_line ?? 0));
  const changes = await view.changes();
  if (problems.length === 0) {
    refuseGitDirectoriesFormed(
      run.workspace.root,
      changes,
      (await view.emptiedDirs()).map((d) => view.absOf(d)),
    );
  }
  result.files_changed = filesChanged(changes);
  if (problems.length > 0) {
    throw failure(run.command, problems, { ...result, problems });
  }
  return { ...result, problems: [] };
}

function gitPlanned(block: Block): BlockOutcome {
  const status = block.op === "git.reset"
    ? "reset"
    : block.op === "git.revert"
    ? "reverted"
    : block.op === "git.tag"
    ? "tagged"
    : "committed";
  return { status, lines_added: 0, lines_removed: 0 };
}

function filesChanged(changes: readonly Change[]): PatchResult["files_changed"] {
  return changes.map((c) => {
    const change = c.after === null
      ? "deleted" as const
      : c.before === null
      ? "created" as const
      : c.before.mode !== c.after.mode && c.before.bytes.length === c.after.bytes.length &&
          c.before.bytes.every((b, i) => b === c.after!.bytes[i])
      ? "mode_changed" as const
      : "modified" as const;
    return { path: c.rel, change };
  });
}

/** Runs the edit blocks in order against the view; the first failure stops the patch. */
async function computeEdits(run: PatchRun, patch: Patch, view: View, result: PatchResult): Promise<void> {
  for (const block of patch.blocks) {
    if (block.op.startsWith("git.") && block.op !== "git.diff") continue;
    if (run.signal.aborted) throw run.signal.reason;
    try {
      const outcome = await runEditBlock(block, view);
      result.blocks.push({ index: block.index, op: block.op, path: block.path, ...outcome });
      run.progress?.({ progress: result.blocks.length, total: patch.blocks.length, message: "blocks applied" });
    } catch (error) {
      throw failure(run.command, [problemOf(block, error)], { repo_path: result.repo_path });
    }
  }
}

function transactionOptions(run: PatchRun, repoAbs: string, gitState: unknown, git: GitApi | null) {
  return {
    root: run.workspace.root,
    sessionDir: run.session.dir,
    session: run.session.id,
    runId: run.runId,
    repoAbs,
    gitState,
    restoreGit: git ? (abs: string, state: unknown) => git.restoreGitState(abs, fromJsonSafe(state) as never) : null,
    signal: run.signal,
    durable: run.durable,
  };
}

/** A target that is not a repository: write the files, no commit. */
async function applyPlain(
  run: PatchRun,
  patch: Patch,
  repo: { rel: string; abs: string },
  result: PatchResult,
): Promise<PatchResult> {
  const view = viewFor(run, repo);
  await computeEdits(run, patch, view, result);
  const gitlink = [...view.specialEntries].find(([, e]) => e.mode === 0o160000);
  if (gitlink) {
    throw new PtermError(
      "NotARepository",
      `the diff moves the submodule pointer \`${gitlink[0]}\`, which only a git repository has; nothing was ` +
        "written. Apply it with --repo <the repository>.",
    );
  }
  const tx = await Transaction.begin(transactionOptions(run, repo.abs, null, null));
  const changes = await view.changes();
  try {
    await tx.write(changes, (await view.emptiedDirs()).map((d) => view.absOf(d)));
  } catch (error) {
    await tx.rollback();
    throw error;
  }
  result.files_changed = filesChanged(changes);
  await tx.finish();
  return result;
}

function isCode(error: unknown, code: ErrorCode): boolean {
  return error instanceof PtermError && error.code === code;
}

/**
 * A repository: git.reset/revert first, then the edits, one commit, then the tags — all inside
 * git's repository lock, all or nothing. The git library writes the index when the lock is
 * released, so the journal is marked committed only after that: a kill before it rolls the
 * whole run back (files and git state), a kill after it keeps the commit.
 */
async function applyInRepo(
  run: PatchRun,
  git: GitApi,
  patch: Patch,
  repo: { rel: string; abs: string },
  result: PatchResult,
  author: GitAuthor,
): Promise<PatchResult> {
  const commitOnly = patch.blocks.length === 1 && patch.blocks[0].op === "git.commit";
  if (commitOnly && run.noCommit) {
    throw new PtermError("InvalidArgs", "a patch holding only git.commit with --no-commit would do nothing; drop one.");
  }
  if (!run.noCommit) await refuseDuringOperation(git, repo);
  const root = run.workspace.root;
  const held: { tx: Transaction | null } = { tx: null };
  try {
    await git.withRepoLock(repo.abs, async () => {
      const snapshot = await git.snapshotGitState(repo.abs);
      const tx = await Transaction.begin({
        ...transactionOptions(run, repo.abs, toJsonSafe(snapshot), git),
        repoLock: joinRepo(repo.abs, ".git/index.lock"),
      });
      held.tx = tx;
      try {
        await runGitAndEdits(run, git, patch, repo, result, author, tx, commitOnly, root);
      } catch (error) {
        // Still inside the lock: put files and git state back (the pending index is discarded too).
        await tx.rollback();
        throw error;
      }
    });
  } catch (error) {
    // A failure as the lock was released (writing the index): roll back, taking the lock again.
    await held.tx?.rollback(restorerFor(git));
    throw error;
  }
  await held.tx!.markCommitted();
  await held.tx!.finish();
  result.blocks.sort((a, b) => a.index - b.index);
  return result;
}

const CONTINUE: Record<"merge" | "cherry-pick" | "revert" | "rebase", string> = {
  merge: "git merge --continue",
  "cherry-pick": "git cherry-pick --continue",
  revert: "git revert --continue",
  rebase: "git rebase --continue",
};

/**
 * A commit made while a merge, cherry-pick, revert or rebase is stopped would conclude it (a merge as a
 * two-parent commit) under the patch's message, losing the one git prepared: a patch that commits
 * refuses there and names the lines that finish or abandon the operation, or --no-commit, which
 * edits the work tree and leaves the conclusion to git.
 */
async function refuseDuringOperation(git: GitApi, repo: { rel: string; abs: string }): Promise<void> {
  const message = await operationStopped(git, repo);
  if (message !== null) throw new PtermError("Conflict", `${message} Nothing was written.`);
}

/** Why a committing patch may not run now (a merge, cherry-pick, revert or rebase is stopped), or null. */
async function operationStopped(git: GitApi, repo: { rel: string; abs: string }): Promise<string | null> {
  const kind = await git.operationInProgress(repo.abs);
  if (kind === null) return null;
  const flag = repo.rel === "." ? "" : ` --repo ${quoteWord(repo.rel)}`;
  return `a ${kind} is in progress in \`${repo.rel}\`; a patch that commits would conclude it with the patch's ` +
    `message instead of git's. Resolve the files with \`patch apply${flag} --no-commit\` (it only edits the work ` +
    `tree), then \`git add <paths>${flag}\` and \`${CONTINUE[kind]}${flag}\`; or give the ${kind} up with ` +
    `\`git ${kind} --abort${flag}\` and apply the patch after.`;
}

async function runGitAndEdits(
  run: PatchRun,
  git: GitApi,
  patch: Patch,
  repo: { rel: string; abs: string },
  result: PatchResult,
  author: GitAuthor,
  tx: Transaction,
  commitOnly: boolean,
  root: string,
): Promise<void> {
  /** Failures inside a git block name that block, like edit failures do. */
  const inBlock = async <T>(block: Block, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof PtermError && error.result?.problems) throw error;
      throw failure(run.command, [problemOf(block, error)], { repo_path: result.repo_path });
    }
  };

  let revertLeftChanges = false;
  const revertedPaths: string[] = [];
  for (const block of patch.blocks.filter((b) => GIT_FIRST.has(b.op))) {
    await inBlock(block, async () => {
      await checkGitBlock(block, git, repo.abs);
      const ref = requiredGitParam(block, "ref", "ref=HEAD~1");
      if (block.op === "git.reset") {
        const mode = resetMode(block);
        const paths = await git.pathsChangedBy(repo.abs, { kind: "reset", ref, mode }, { root });
        await tx.protect(await confinedPaths(run, repo, paths));
        const done = await git.reset(repo.abs, ref, mode, { locked: true, root, author });
        result.blocks.push({
          index: block.index,
          op: block.op,
          path: block.path,
          status: "reset",
          lines_added: 0,
          lines_removed: 0,
          files: done.changed_paths,
          git: { head: done.head },
        });
        return;
      }
      const noCommit = run.noCommit || booleanParam(block, "no-commit", false);
      const paths = await git.pathsChangedBy(repo.abs, { kind: "revert", ref }, { root });
      await tx.protect(await confinedPaths(run, repo, paths));
      const done = await git.revert(repo.abs, ref, { noCommit, author, locked: true, root });
      if (done.conflicts.length > 0) {
        throw new OpError(
          "Conflict",
          `reverting \`${ref}\` conflicts in ${done.conflicts.join(", ")}; nothing was changed. Revert another ` +
            "commit, or edit the files with blocks instead",
          { conflicts: done.conflicts },
          block.line,
        );
      }
      if (noCommit) {
        revertLeftChanges = true;
        revertedPaths.push(...done.changed_paths);
      }
      result.blocks.push({
        index: block.index,
        op: block.op,
        path: block.path,
        status: "reverted",
        lines_added: 0,
        lines_removed: 0,
        files: done.changed_paths,
        git: { commit_id: done.commit_id },
      });
    });
  }

  const view = viewFor(run, repo);
  // A renamed submodule has no file to read: its diff's source is found in the index.
  view.indexGitlink = (rel) => git.gitlinkOid(repo.abs, rel, { locked: true });
  await computeEdits(run, patch, view, result);
  const changes = await view.changes();
  if (run.gitApply?.cached) {
    // `git apply --cached`: the result goes into the index only; the work tree is not touched.
    await linksFromSources(git, repo.abs, view);
    await git.writeIndexEntries(
      repo.abs,
      changes.map((c) => ({
        path: c.rel,
        bytes: c.after?.bytes ?? null,
        mode: c.after && c.after.mode & 0o100 ? 0o100755 : 0o100644,
      })),
      { locked: true },
    );
    const special = [...view.specialEntries].map(([path, e]) => ({ path, mode: e.mode, oid: e.oid }));
    if (special.length > 0) await git.setSpecialEntries(repo.abs, special, { locked: true });
    await recordConflicts(git, repo.abs, view);
    result.files_changed = filesChanged(changes);
    return;
  }
  // A new submodule pointer gets an empty folder, as git apply makes one; a removed one loses its
  // folder if that is empty (git apply removes it too), so the path is free for a file again.
  const submodules = [...view.specialEntries].filter(([, e]) => e.mode === 0o160000);
  const submoduleFolders = submodules.filter(([, e]) => e.oid !== null).map(([rel]) => view.absOf(rel));
  const goneFolders = submodules.filter(([rel, e]) => e.oid === null && isEmptyFolder(view.absOf(rel)))
    .map(([rel]) => view.absOf(rel));
  const emptied = [...(await view.emptiedDirs()).map((d) => view.absOf(d)), ...goneFolders];
  await tx.write(changes, emptied, submoduleFolders);
  result.files_changed = filesChanged(changes);

  if (run.noCommit && run.gitApply?.index) {
    // `git apply --index`: the result is staged as well as written, and not committed.
    const blobs = new Map(changes.flatMap((c) => (c.blob ? [[c.rel, c.blob] as const] : [])));
    await stageChanges(git, repo.abs, view, [...new Set(changes.map((c) => c.rel))], root, result.warnings, blobs);
    await recordConflicts(git, repo.abs, view);
  } else if (run.noCommit) {
    if (run.noCommitReason !== "format") {
      result.warnings.push("--no-commit: the changes are in the work tree, not staged and not committed.");
    }
    // What a file cannot say (a link's mode, a submodule's commit) lives only in the index, which
    // --no-commit leaves alone: say what was not recorded.
    for (const [path, entry] of view.specialEntries) {
      if (entry.mode === 0o120000) {
        result.warnings.push(
          `\`${path}\` is a symbolic link in the diff; it was written as a plain file holding its target and not ` +
            "staged, so a later `git add` stages it as a regular file — apply without --no-commit to keep it a link.",
        );
      } else if (entry.mode === 0o160000) {
        result.warnings.push(
          `\`${path}\` is a submodule pointer in the diff; with --no-commit its new commit id was not recorded ` +
            "(it lives only in the index) — apply without --no-commit to record it.",
        );
      }
    }
  } else {
    const message = result.commit_message!;
    if (commitOnly) {
      const only = patch.blocks[0];
      await inBlock(only, async () => {
        await git.stagePaths(repo.abs, ["."], { locked: true, root });
        result.commit_id = await git.commitIndex(repo.abs, { message, author, locked: true });
      });
      result.blocks.push({
        index: only.index,
        op: "git.commit",
        path: only.path,
        status: "committed",
        lines_added: 0,
        lines_removed: 0,
        git: { commit_id: result.commit_id },
      });
    } else if (changes.length > 0 || revertLeftChanges || view.specialEntries.size > 0) {
      const paths = [...new Set([...changes.map((c) => c.rel), ...revertedPaths])];
      await stageChanges(git, repo.abs, view, paths, root, result.warnings);
      try {
        result.commit_id = await git.commitIndex(repo.abs, { message, author, locked: true });
      } catch (error) {
        // The edits only put back what HEAD already has: the files changed, the commit has nothing to record.
        if (!isCode(error, "NothingToCommit")) throw error;
      }
    }
  }

  for (const block of patch.blocks.filter((b) => b.op === "git.tag")) {
    await inBlock(block, async () => {
      await checkGitBlock(block, git, repo.abs);
      const name = requiredGitParam(block, "name", "name=v1.2.0");
      const done = await git.tag(repo.abs, name, {
        ref: block.params.get("ref")?.value || undefined,
        message: block.params.get("message")?.value || undefined,
        author,
        force: booleanParam(block, "force", false),
        locked: true,
      }).catch((error) => {
        if (!isCode(error, "AlreadyExists")) throw error;
        throw new OpError(
          "AlreadyExists",
          `the tag \`${name}\` already exists; pick another name, or add force=true to the block to move it`,
          { tag: name },
          block.line,
        );
      });
      result.blocks.push({
        index: block.index,
        op: block.op,
        path: block.path,
        status: "tagged",
        lines_added: 0,
        lines_removed: 0,
        git: { tag: done.name, target: done.target },
      });
    });
  }
}

/**
 * A rename or copy of a link, with no mode in its diff, is a link too: the source's index mode is
 * read before the index changes (staging drops a renamed source from it).
 */
async function linksFromSources(git: GitApi, dir: string, view: View): Promise<void> {
  if (view.modeSources.size === 0) return;
  const modes = await git.indexModes(dir, [...view.modeSources.values()], { locked: true });
  for (const [to, from] of view.modeSources) {
    if (modes[from] === 0o120000 && !view.specialEntries.has(to)) {
      view.specialEntries.set(to, { mode: 0o120000, oid: null });
    }
  }
}

/** Stages what the patch wrote, with the index modes its diffs state (links, submodule pointers). */
async function stageChanges(
  git: GitApi,
  dir: string,
  view: View,
  paths: readonly string[],
  root: string,
  warnings: string[],
  blobs: ReadonlyMap<string, Uint8Array> = new Map(),
): Promise<void> {
  await linksFromSources(git, dir, view);
  await stageWritten(git, dir, paths, root, warnings, blobs);
  if (view.specialEntries.size > 0) {
    const entries = [...view.specialEntries].map(([path, e]) => ({ path, mode: e.mode, oid: e.oid }));
    await git.setSpecialEntries(dir, entries, { locked: true });
  }
}

/**
 * Stages what the patch wrote (a path in `blobs` with that content, as git apply records its result).
 * A path git will not stage (a .gitignore'd file, as `git add -A` skips it) stays written but
 * uncommitted, and a warning says so and why.
 */
async function stageWritten(
  git: GitApi,
  dir: string,
  paths: readonly string[],
  root: string,
  warnings: string[],
  blobs: ReadonlyMap<string, Uint8Array>,
): Promise<void> {
  try {
    await git.stagePaths(dir, paths, { locked: true, root, written: true, blobs });
    return;
  } catch (error) {
    if (!isCode(error, "InvalidArgs")) throw error;
  }
  for (const path of paths) {
    try {
      await git.stagePaths(dir, [path], { locked: true, root, written: true, blobs });
    } catch (error) {
      if (!isCode(error, "InvalidArgs")) throw error;
      warnings.push(`\`${path}\` was written but not committed: git will not stage it (${(error as Error).message})`);
    }
  }
}

/** Paths git reports, confined like any other before the patch touches them. */
async function confinedPaths(run: PatchRun, repo: { rel: string; abs: string }, paths: readonly string[]) {
  const out: string[] = [];
  for (const p of paths) {
    await run.workspace.resolve(repo.rel === "." ? p : `${repo.rel}/${p}`, "write", { label: "a path git changes" });
    out.push(joinRepo(repo.abs, p));
  }
  return out;
}

function isEmptyFolder(abs: string): boolean {
  try {
    return Deno.lstatSync(abs).isDirectory && [...Deno.readDirSync(abs)].length === 0;
  } catch {
    return false;
  }
}

function joinRepo(repoAbs: string, rel: string): string {
  return rel === "." || rel === "" ? repoAbs : `${repoAbs}/${rel.replace(/^\/+/, "")}`;
}

// ---- git state in the journal -------------------------------------------------------------------

/** Snapshots go into the JSON journal: bytes, maps and sets are tagged so they come back as they were. */
export function toJsonSafe(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value === undefined ? { $undefined: true } : value;
  if (value instanceof Uint8Array) return { $bytes: encodeBase64(value) };
  if (value instanceof Map) return { $map: [...value].map(([k, v]) => [toJsonSafe(k), toJsonSafe(v)]) };
  if (value instanceof Set) return { $set: [...value].map(toJsonSafe) };
  if (Array.isArray(value)) return value.map(toJsonSafe);
  return { $object: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSafe(v)])) };
}

export function fromJsonSafe(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(fromJsonSafe);
  const tagged = value as Record<string, unknown>;
  if ("$undefined" in tagged) return undefined;
  if ("$bytes" in tagged) return decodeBase64(tagged.$bytes as string);
  if ("$map" in tagged) {
    return new Map((tagged.$map as [unknown, unknown][]).map(([k, v]) => [fromJsonSafe(k), fromJsonSafe(v)]));
  }
  if ("$set" in tagged) return new Set((tagged.$set as unknown[]).map(fromJsonSafe));
  if ("$object" in tagged) {
    return Object.fromEntries(
      Object.entries(tagged.$object as Record<string, unknown>).map(([k, v]) => [k, fromJsonSafe(v)]),
    );
  }
  return value;
}

function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function decodeBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
