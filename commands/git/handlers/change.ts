/** branch, checkout, reset, rm, mv, stash, tag, revert, merge. */

import { skippedHooks } from "../repo/hooks.ts";
import type { CommandContext, Handler } from "../../../core/context.ts";
import { quoteWord } from "../../../core/grammar.ts";
import { PtermError } from "../../../core/errors.ts";
import type {
  branchFlags,
  checkoutFlags,
  cherryPickFlags,
  cleanFlags,
  mergeFlags,
  mvFlags,
  resetFlags,
  restoreFlags,
  revertFlags,
  rmFlags,
  stashPushFlags,
  stashRefFlags,
  switchFlags,
  tagFlags,
} from "../spec.ts";
import { readCommit } from "../history/log.ts";
import {
  abortSequence,
  cherryPickCommit,
  continueSequence,
  createBranch,
  createTag,
  deleteBranch,
  deleteTag,
  describeTag,
  listBranches,
  listTags,
  mergeInto,
  renameBranch,
  resetPaths,
  resetTo,
  restorePaths,
  revertCommit,
  switchTo,
} from "../porcelain/ops.ts";
import { checkBranchName, readHead, resolveRefOid } from "../repo/refs.ts";
import { listRemoteBranches } from "../remote/tracking.ts";
import { quitSequence, type Sequence, sequenceCommit } from "../merge/sequence.ts";
import { removeConfigValues, setConfigValues } from "../repo/config_edit.ts";
import {
  configuredUpstream,
  guessRemoteBranch,
  type TrackChoice,
  type Upstream,
  upstreamForNewBranch,
  upstreamLabel,
  upstreamNamed,
} from "../porcelain/upstream.ts";
import { dwimRef, resolveCommit } from "../history/revparse.ts";
import { mergeBases } from "../merge/merge.ts";
import { comparePaths, quoteName } from "../odb/bytes.ts";
import { wildmatch } from "../worktree/wildmatch.ts";
import { worktreeStatus } from "../porcelain/status.ts";
import { flattenTree, pathWithin } from "../odb/tree.ts";
import { movePath, removePaths } from "../worktree/rm_mv.ts";
import { listStash, parseStashRef, stashApply, stashClear, stashDrop, stashPush } from "../porcelain/stash.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { normalizeUserPath } from "../worktree/worktree.ts";
import {
  authorOf,
  bounded,
  isPathWord,
  isRevision,
  type Opened,
  openFromFlags,
  plural,
  splitRevsAndPaths,
  userPaths,
} from "./common.ts";

type Pos<N extends string> = readonly { name: N; description: string }[];

/** A `--list` pattern as git's branch and tag lists match it (wildmatch without pathname: `*` spans `/`). */
function matchesPattern(name: string, pattern: string | undefined): boolean {
  return pattern === undefined || wildmatch(pattern, name, { pathname: false });
}

/** `--track` / `--no-track` as one choice. */
function trackChoice(flags: { track?: boolean; "no-track"?: boolean }): TrackChoice {
  if (flags.track && flags["no-track"]) throw new PtermError("InvalidArgs", "give either --track or --no-track.");
  return flags.track ? "track" : flags["no-track"] ? "no-track" : "default";
}

/** Writes `branch.<name>.remote` / `.merge` and returns git's line about it. */
async function recordUpstream(repo: Opened["repo"], name: string, upstream: Upstream): Promise<string> {
  await setConfigValues(repo, "branch", name, [["remote", upstream.remote], ["merge", upstream.merge]]);
  return `branch '${name}' set up to track '${upstreamLabel(upstream)}'.\n`;
}

/** `git branch --set-upstream-to <upstream> [<name>]` and `--unset-upstream [<name>]`. */
async function changeUpstream(
  ctx: AnyContext,
  opened: Opened,
  name: string | undefined,
  current: string | null,
  setTo: string | undefined,
) {
  const { repo, rel } = opened;
  const target = name ?? current;
  if (!target) {
    throw new PtermError("InvalidArgs", "HEAD is detached: name the branch whose upstream to change.");
  }
  const commit = resolveRefOid(repo, `refs/heads/${target}`);
  if (!commit) throw new PtermError("NotFound", `there is no branch ${target}; list branches with \`git branch\`.`);
  let upstream: Upstream | null = null;
  if (setTo !== undefined) {
    upstream = upstreamNamed(repo, setTo);
    ctx.stdout.write(await recordUpstream(repo, target, upstream));
  } else {
    if (!configuredUpstream(repo, target)) {
      throw new PtermError("NotFound", `the branch ${target} has no upstream; nothing to remove.`);
    }
    await removeConfigValues(repo, "branch", target, ["remote", "merge"]);
    ctx.stdout.write(`Removed the upstream of ${target}.\n`);
  }
  return {
    repo_path: rel,
    current,
    action: setTo !== undefined ? "set-upstream" as const : "unset-upstream" as const,
    branches: listBranches(repo),
    name: target,
    commit,
    upstream: upstream && upstreamLabel(upstream),
  };
}

export const branch: Handler<typeof branchFlags, Pos<"name" | "start">> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const { repo, rel } = opened;
  let name = ctx.positionals.name as string | undefined;
  let start = ctx.positionals.start as string | undefined;
  const author = authorOf(ctx);
  const head = readHead(repo);
  const current = head.branch && head.ref?.startsWith("refs/heads/") ? head.branch : null;
  const base = { repo_path: rel, current };
  const remove = ctx.flags.delete || ctx.flags["force-delete"];
  const move = ctx.flags.move || ctx.flags["force-move"];
  const force = ctx.flags.force || ctx.flags["force-delete"] || ctx.flags["force-move"];
  if (remove && move) {
    throw new PtermError("InvalidArgs", "give either --delete (-d/-D) or --move (-m/-M), not both.");
  }
  const setUpstream = ctx.flags["set-upstream-to"];
  if (setUpstream !== undefined || ctx.flags["unset-upstream"]) {
    if (setUpstream !== undefined && ctx.flags["unset-upstream"]) {
      throw new PtermError("InvalidArgs", "give either --set-upstream-to or --unset-upstream.");
    }
    if (remove || move || start) {
      throw new PtermError(
        "InvalidArgs",
        "--set-upstream-to / --unset-upstream take at most one branch name: `git branch -u origin/main [<branch>]`.",
      );
    }
    return await changeUpstream(ctx, opened, name, current, setUpstream);
  }
  if (ctx.flags["show-current"]) {
    ctx.stdout.write(current ? `${current}\n` : "");
    return { ...base, action: "show-current", branches: [], name: current, commit: head.oid };
  }
  // `git branch -m new` renames the current branch.
  if (move && name && !start) {
    if (!current) throw new PtermError("InvalidArgs", "HEAD is detached: name the branch to rename: -m <old> <new>.");
    [name, start] = [current, name];
  }
  if (!name || ctx.flags.list || ctx.flags.all) {
    if (remove || move) {
      throw new PtermError("InvalidArgs", "name the branch: `git branch -d <name>` or `git branch -m <old> <new>`.");
    }
    if (start) throw new PtermError("InvalidArgs", "--list takes one pattern.");
    const branches = listBranches(repo).filter((b) => matchesPattern(b.name, name));
    const remotes = ctx.flags.all ? listRemoteBranches(repo).filter((b) => matchesPattern(b.name, name)) : [];
    const lines = [
      ...branches.map((b) =>
        `${b.current ? "*" : " "} ${b.name} ${b.commit.slice(0, 7)}${b.upstream ? ` [${b.upstream}]` : ""}`
      ),
      ...remotes.map((r) => `  remotes/${r.name}${r.points_to ? ` -> ${r.points_to}` : ""} ${r.commit.slice(0, 7)}`),
    ];
    ctx.stdout.write(
      lines.length
        ? lines.join("\n") + "\n"
        : name
        ? `No branch matches ${name}.\n`
        : "No branches yet (the first commit creates the current one).\n",
    );
    return {
      ...base,
      action: "list",
      branches,
      // Only with --all, as git branch -a lists them.
      ...(ctx.flags.all ? { remote_branches: remotes } : {}),
      name: null,
      commit: null,
    };
  }
  if (remove) {
    if (start) throw new PtermError("InvalidArgs", "--delete takes one branch name.");
    const oid = await withRepoLock(repo, () => deleteBranch(repo, name, force));
    ctx.stdout.write(`Deleted branch ${name} (was ${oid.slice(0, 7)}).\n`);
    return { ...base, action: "delete", branches: listBranches(repo), name, commit: oid };
  }
  if (move) {
    const newName = start!;
    const oid = await withRepoLock(repo, () => renameBranch(repo, name, newName, author, force));
    ctx.stdout.write(`Renamed branch ${name} to ${newName}.\n`);
    const after = readHead(repo);
    return {
      ...base,
      current: after.branch,
      action: "rename",
      branches: listBranches(repo),
      name: newName,
      commit: oid,
    };
  }
  // Decided before anything is written: an impossible --track refuses the whole call.
  const upstream = upstreamForNewBranch(repo, name, start ?? "HEAD", trackChoice(ctx.flags));
  const created = await withRepoLock(repo, async () => {
    const oid = await createBranch(repo, name, start ?? "HEAD", author, force);
    return { oid, tracking: upstream ? await recordUpstream(repo, name, upstream) : "" };
  });
  ctx.stdout.write(`Created branch ${name} at ${created.oid.slice(0, 7)}.\n${created.tracking}`);
  return {
    ...base,
    action: "create",
    branches: listBranches(repo),
    name,
    commit: created.oid,
    upstream: upstream && upstreamLabel(upstream),
  };
};

// deno-lint-ignore no-explicit-any
type AnyContext = CommandContext<any, any>;

/** Restores paths from a commit (or the index) into index and work tree: `git checkout [<rev>] -- <path>…`. */
async function restoreFiles(ctx: AnyContext, opened: Opened, target: string | undefined, specs: string[]) {
  const { repo, policy, rel } = opened;
  const result = await withRepoLock(repo, async () => {
    const index = loadIndex(repo);
    const tree = target === undefined ? null : (await readCommit(repo, await resolveCommit(repo, target))).tree;
    return await restorePaths(repo, index, policy, tree, target === undefined, specs);
  });
  ctx.stdout.write(`Restored ${plural(result.changed.length, "file")} from ${target ?? "the index"}.\n`);
  const listed = bounded(result.changed);
  const head = readHead(repo);
  return {
    repo_path: rel,
    action: "restore",
    branch: head.branch,
    head: head.oid,
    changed_paths: listed.items,
    truncated: listed.truncated,
    withheld: result.withheld,
  };
}

/** Switches HEAD (creating the branch first if asked): the shared body of checkout and switch. */
async function switchHead(
  ctx: AnyContext,
  opened: Opened,
  target: string | undefined,
  options: { create?: string; forceCreate?: string; detach: boolean; force: boolean; track: TrackChoice },
) {
  const { repo, policy, rel } = opened;
  const author = authorOf(ctx);
  if (options.create && options.forceCreate) {
    throw new PtermError("InvalidArgs", "give either the create or the force-create flag, not both.");
  }
  let newBranch = options.create ?? options.forceCreate;
  if (!newBranch && options.track === "track") {
    // `git switch --track origin/fix`: the new branch is named after the remote one, as git does.
    const full = target ? dwimRef(repo, target) : null;
    const remoteBranch = full?.match(/^refs\/remotes\/[^/]+\/(.+)$/)?.[1];
    if (!remoteBranch) {
      throw new PtermError(
        "InvalidArgs",
        "--track without a new branch name needs a remote-tracking branch to name it after (e.g. origin/fix); " +
          "otherwise give the name: `--create <branch>`.",
      );
    }
    newBranch = options.create = remoteBranch;
  }
  if (newBranch && options.detach) throw new PtermError("InvalidArgs", "a new branch cannot be --detach'ed.");
  if (options.forceCreate) checkBranchName(options.forceCreate);
  // Decided before anything changes: an impossible --track refuses the whole call.
  const upstream = newBranch ? upstreamForNewBranch(repo, newBranch, target ?? "HEAD", options.track) : null;
  if (!newBranch && options.track !== "default") {
    throw new PtermError("InvalidArgs", "--track / --no-track go with a new branch (--create <branch>).");
  }
  const outcome = await withRepoLock(repo, async () => {
    const index = loadIndex(repo);
    if (options.forceCreate && resolveRefOid(repo, `refs/heads/${options.forceCreate}`)) {
      // -B / -C: the branch is reset to the start point, then checked out.
      const switched = await switchTo(repo, index, policy, target ?? "HEAD", {
        detach: true,
        force: options.force,
        author,
      });
      await createBranch(repo, options.forceCreate, switched.head, author, true);
      return await switchTo(repo, loadIndex(repo), policy, options.forceCreate, { force: options.force, author });
    }
    return await switchTo(repo, index, policy, target ?? "HEAD", {
      detach: options.detach,
      force: options.force,
      createBranch: newBranch,
      author,
    });
  });
  const action = newBranch ? "create" : outcome.branch ? "switch" : "detach";
  // The branch exists now: its upstream is recorded after it, as git writes it after creating the ref.
  const tracking = upstream && newBranch ? await recordUpstream(repo, newBranch, upstream) : "";
  ctx.stdout.write(
    tracking +
      (outcome.branch
        ? `Switched to ${action === "create" ? "a new " : ""}branch '${outcome.branch}'`
        : `HEAD is now detached at ${outcome.head.slice(0, 7)}`) +
      ` (${plural(outcome.changed.length, "file")} updated).\n`,
  );
  const listed = bounded(outcome.changed);
  return {
    repo_path: rel,
    action,
    branch: outcome.branch,
    head: outcome.head,
    changed_paths: listed.items,
    truncated: listed.truncated,
    withheld: outcome.withheld,
    ...(newBranch ? { upstream: upstream && upstreamLabel(upstream) } : {}),
  };
}

export const checkout: Handler<typeof checkoutFlags, readonly [{ name: "args"; description: string; variadic: true }]> =
  async (ctx) => {
    const opened = await openFromFlags(ctx);
    const words = ctx.positionals.args;
    const track = trackChoice(ctx.flags);
    if (
      words.length === 1 && ctx.flags.path.length === 0 && !ctx.flags.create && !ctx.flags["force-create"] &&
      !ctx.flags.detach && track !== "track" && !(await isRevision(opened.repo, words[0]))
    ) {
      // git's guess: `git checkout fix` with only origin/fix creates fix tracking it.
      const guessed = guessRemoteBranch(opened.repo, words[0]);
      if (guessed) {
        if (isPathWord(opened.repo, words[0])) {
          throw new PtermError(
            "InvalidArgs",
            `\`${words[0]}\` is both a path and the remote-tracking branch ${guessed.slice(13)}; say which: ` +
              `\`git checkout --create ${quoteWord(words[0])} ${guessed.slice(13)}\` for the branch, ` +
              `\`git checkout -- ${quoteWord(words[0])}\` for the path.`,
          );
        }
        const switched = await switchHead(ctx, opened, guessed.slice(13), {
          create: words[0],
          detach: false,
          force: ctx.flags.force,
          track,
        });
        warnSkippedCheckoutHook(ctx, opened.repo);
        return switched;
      }
    }
    const split = await splitRevsAndPaths(ctx, opened.repo, words, 1);
    const target = split.revs[0];
    const specs = userPaths([...ctx.flags.path, ...split.paths]);
    if (specs.length > 0) {
      if (ctx.flags.create || ctx.flags["force-create"] || ctx.flags.detach) {
        throw new PtermError("InvalidArgs", "paths restore files; they cannot be combined with -b, -B or --detach.");
      }
      return await restoreFiles(ctx, opened, target, specs);
    }
    if (!target && !ctx.flags.create && !ctx.flags["force-create"]) {
      throw new PtermError(
        "InvalidArgs",
        "say what to check out: a branch, a tag or a commit (`git checkout main`), -b <new-branch>, or paths " +
          "after `--` to restore.",
      );
    }
    const switched = await switchHead(ctx, opened, target, {
      create: ctx.flags.create,
      forceCreate: ctx.flags["force-create"],
      detach: ctx.flags.detach,
      force: ctx.flags.force,
      track,
    });
    warnSkippedCheckoutHook(ctx, opened.repo);
    return switched;
  };

export const switchHandler: Handler<typeof switchFlags, Pos<"branch">> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const target = ctx.positionals.branch as string | undefined;
  const creating = ctx.flags.create ?? ctx.flags["force-create"];
  const track = trackChoice(ctx.flags);
  if (!creating && !target) {
    throw new PtermError("InvalidArgs", "name the branch: `git switch <branch>` (or `git switch -c <new-branch>`).");
  }
  const guessed = !creating && !ctx.flags.detach && track !== "track" && target &&
      !resolveRefOid(opened.repo, `refs/heads/${target}`)
    ? guessRemoteBranch(opened.repo, target)
    : null;
  if (guessed) {
    // git's guess: `git switch fix` with only origin/fix creates fix tracking it.
    const switched = await switchHead(ctx, opened, guessed.slice(13), {
      create: target,
      detach: false,
      force: ctx.flags.force,
      track,
    });
    warnSkippedCheckoutHook(ctx, opened.repo);
    return switched;
  }
  if (
    !creating && !ctx.flags.detach && track !== "track" && target &&
    !resolveRefOid(opened.repo, `refs/heads/${target}`)
  ) {
    // git switch takes branches only; a commit needs --detach, a new name needs -c.
    const known = await isRevision(opened.repo, target);
    throw new PtermError(
      "NotFound",
      known
        ? `\`${target}\` is not a branch: \`git switch --detach ${quoteWord(target)}\` goes to it as a detached HEAD.`
        : `there is no branch \`${target}\`: create it with \`git switch -c ${quoteWord(target)}\`.`,
    );
  }
  const switched = await switchHead(ctx, opened, target, {
    create: ctx.flags.create,
    forceCreate: ctx.flags["force-create"],
    detach: ctx.flags.detach,
    force: ctx.flags.force,
    track,
  });
  warnSkippedCheckoutHook(ctx, opened.repo);
  return switched;
};

/** git runs `post-checkout` after a switch; pterm runs no programs, and says so. */
function warnSkippedCheckoutHook(ctx: AnyContext, repo: Opened["repo"]): void {
  const hooks = skippedHooks(repo, ["post-checkout"]);
  if (hooks) ctx.stderr.write(`[Warning] ${hooks}\n`);
}

export const restore: Handler<typeof restoreFlags> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const { repo, policy, rel } = opened;
  const specs = userPaths(ctx.flags.path);
  if (specs.length === 0) {
    throw new PtermError(
      "InvalidArgs",
      "name what to restore: `git restore <path>…` (`git restore .` for everything).",
    );
  }
  const staged = ctx.flags.staged;
  const worktree = ctx.flags.worktree || !staged;
  const source = ctx.flags.source;
  const result = await withRepoLock(repo, async () => {
    let unstaged: string[] = [];
    if (staged) {
      // As git: every pathspec must name something the index or the source commit has.
      const index = loadIndex(repo);
      const head = readHead(repo).oid;
      const from = source ?? head;
      const tree = from
        ? await flattenTree(repo, (await readCommit(repo, await resolveCommit(repo, from))).tree)
        : null;
      for (const spec of specs) {
        const known = (path: string) => spec === "" || pathWithin(path, spec);
        const hit = [...index.entries.keys(), ...index.conflicts.keys()].some(known) ||
          [...(tree?.keys() ?? [])].some(known);
        if (!hit) {
          throw new PtermError(
            "NotFound",
            `pathspec \`${spec}\` did not match any file known to git; nothing was restored.`,
          );
        }
      }
      unstaged = await resetPaths(repo, index, source ?? null, specs);
    }
    let restored: { changed: string[]; withheld: string[] } = { changed: [], withheld: [] };
    if (worktree) {
      // The work tree comes from --source, else (with --staged) HEAD, else the index, as git restore does.
      const from = source ?? (staged ? "HEAD" : undefined);
      const tree = from === undefined ? null : (await readCommit(repo, await resolveCommit(repo, from))).tree;
      const index = loadIndex(repo);
      restored = await restorePaths(repo, index, policy, tree, from === undefined, specs, !staged && !!from);
    }
    return { unstaged, ...restored };
  });
  ctx.stdout.write(
    [
      staged ? `Unstaged ${plural(result.unstaged.length, "path")}.` : "",
      worktree ? `Restored ${plural(result.changed.length, "file")} in the work tree.` : "",
    ].filter(Boolean).join(" ") + "\n",
  );
  const changed = bounded([...new Set([...result.unstaged, ...result.changed])].sort());
  return {
    repo_path: rel,
    staged,
    worktree,
    source: source ?? null,
    changed_paths: changed.items,
    truncated: changed.truncated,
    withheld: result.withheld,
  };
};

export const reset: Handler<typeof resetFlags, readonly [{ name: "args"; description: string; variadic: true }]> =
  async (
    ctx,
  ) => {
    const { repo, policy, rel } = await openFromFlags(ctx);
    const modes = (["soft", "mixed", "hard"] as const).filter((m) => ctx.flags[m]);
    if (modes.length > 1) throw new PtermError("InvalidArgs", "give only one of --soft, --mixed, --hard.");
    const split = await splitRevsAndPaths(ctx, repo, ctx.positionals.args, 1);
    const rev = split.revs[0];
    const specs = userPaths([...ctx.flags.path, ...split.paths]);
    if (specs.length > 0) {
      if (modes.length && modes[0] !== "mixed") {
        throw new PtermError(
          "InvalidArgs",
          `--${modes[0]} cannot be combined with --path (paths only reset the index).`,
        );
      }
      const changed = await withRepoLock(repo, () => resetPaths(repo, loadIndex(repo), rev ?? null, specs));
      ctx.stdout.write(changed.length ? `Unstaged ${plural(changed.length, "path")}.\n` : "Nothing to unstage.\n");
      const listed = bounded(changed);
      return {
        repo_path: rel,
        mode: "paths",
        head: readHead(repo).oid,
        changed_paths: listed.items,
        truncated: listed.truncated,
      };
    }
    const mode = modes[0] ?? "mixed";
    const author = authorOf(ctx);
    const result = await withRepoLock(repo, () => resetTo(repo, loadIndex(repo), policy, rev ?? "HEAD", mode, author));
    ctx.stdout.write(
      `HEAD is now at ${result.head.slice(0, 7)} (${mode}; ${plural(result.changed_paths.length, "path")} changed).\n`,
    );
    const listed = bounded(result.changed_paths);
    return { repo_path: rel, mode, head: result.head, changed_paths: listed.items, truncated: listed.truncated };
  };

export const rm: Handler<typeof rmFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const specs = userPaths(ctx.flags.path);
  if (specs.length === 0) throw new PtermError("InvalidArgs", "git rm needs at least one --path.");
  const removed = await withRepoLock(repo, () =>
    removePaths(repo, loadIndex(repo), policy, specs, {
      cached: ctx.flags.cached,
      recursive: ctx.flags.recursive,
      force: ctx.flags.force,
    }));
  ctx.stdout.write(removed.map((p) => `rm '${p}'`).join("\n") + "\n");
  return { repo_path: rel, removed, cached: ctx.flags.cached };
};

export const mv: Handler<typeof mvFlags, Pos<"source" | "destination">> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const source = normalizeUserPath(ctx.positionals.source as string);
  const destination = normalizeUserPath(ctx.positionals.destination as string);
  const moved = await withRepoLock(
    repo,
    () => Promise.resolve(movePath(repo, loadIndex(repo), policy, source, destination, ctx.flags.force)),
  );
  ctx.stdout.write(
    moved.length === 1 ? `Renamed ${moved[0].from} to ${moved[0].to}.\n` : `Moved ${moved.length} files.\n`,
  );
  return { repo_path: rel, moved };
};

export const stashPushHandler: Handler<typeof stashPushFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const author = authorOf(ctx);
  const result = await withRepoLock(
    repo,
    () => stashPush(repo, loadIndex(repo), policy, author, ctx.flags.message, ctx.flags["include-untracked"]),
  );
  if (!result) {
    ctx.stdout.write("No local changes to save.\n");
    return { repo_path: rel, stash: null, commit_id: null, message: null, changed_paths: [] };
  }
  ctx.stdout.write(`Saved working directory and index state ${result.message}\n`);
  return {
    repo_path: rel,
    stash: "stash@{0}",
    commit_id: result.commit_id,
    message: result.message,
    changed_paths: result.changed,
  };
};

function applyHandler(pop: boolean): Handler<typeof stashRefFlags, Pos<"stash">> {
  return async (ctx) => {
    const { repo, policy, rel } = await openFromFlags(ctx);
    const n = parseStashRef(ctx.positionals.stash as string | undefined);
    const result = await withRepoLock(repo, async () => {
      const applied = await stashApply(repo, loadIndex(repo), policy, n);
      let dropped = false;
      if (pop && applied.conflicts.length === 0) {
        await stashDrop(repo, n);
        dropped = true;
      }
      return { ...applied, dropped };
    });
    const fields = {
      repo_path: rel,
      stash: `stash@{${n}}`,
      commit_id: result.commit_id,
      changed_paths: result.changed,
      conflicts: result.conflicts,
      dropped: result.dropped,
    };
    if (result.conflicts.length > 0) {
      throw new PtermError(
        "Conflict",
        `applying stash@{${n}} conflicted in ${result.conflicts.join(", ")}; the files contain conflict markers. ` +
          "Edit them, `git add` them; the stash entry is kept.",
        { result: fields },
      );
    }
    ctx.stdout.write(
      `Applied stash@{${n}} (${plural(result.changed.length, "file")})${result.dropped ? " and dropped it" : ""}.\n`,
    );
    return fields;
  };
}

export const stashPop = applyHandler(true);
export const stashApplyHandler = applyHandler(false);

export const stashList: Handler<typeof stashRefFlags> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx, "read");
  const entries = listStash(repo);
  ctx.stdout.write(
    entries.length ? entries.map((e) => `${e.ref}: ${e.message}`).join("\n") + "\n" : "The stash is empty.\n",
  );
  return { repo_path: rel, entries };
};

export const stashDropHandler: Handler<typeof stashRefFlags, Pos<"stash">> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const n = parseStashRef(ctx.positionals.stash as string | undefined);
  const oid = await withRepoLock(repo, () => stashDrop(repo, n));
  ctx.stdout.write(`Dropped stash@{${n}} (${oid.slice(0, 7)}).\n`);
  return { repo_path: rel, stash: `stash@{${n}}`, commit_id: oid };
};

export const stashClearHandler: Handler<typeof stashRefFlags> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const cleared = await withRepoLock(repo, () => stashClear(repo));
  ctx.stdout.write(`Cleared ${plural(cleared, "stash entry")}.\n`.replace("entrys", "entries"));
  return { repo_path: rel, cleared };
};

export const tag: Handler<typeof tagFlags, Pos<"name" | "target">> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const name = ctx.positionals.name as string | undefined;
  const target = ctx.positionals.target as string | undefined;
  if (ctx.flags.annotate && !ctx.flags.message) {
    throw new PtermError(
      "InvalidArgs",
      `an annotated tag needs its message here (pterm opens no editor): \`git tag -a ${name ?? "<name>"} -m "…"\`.`,
    );
  }
  if (!name || ctx.flags.list) {
    if (target) throw new PtermError("InvalidArgs", "--list takes one pattern.");
    if (ctx.flags.delete) {
      throw new PtermError("InvalidArgs", "name the tag to delete: git tag --repo R --delete <name>.");
    }
    const tags = (await listTags(repo)).filter((t) => matchesPattern(t.name, name));
    ctx.stdout.write(
      tags.length
        ? tags.map((t) => `${t.name} ${t.target.slice(0, 7)}${t.type === "annotated" ? " (annotated)" : ""}`).join(
          "\n",
        ) + "\n"
        : "No tags.\n",
    );
    return { repo_path: rel, action: "list", tags, name: null, target: null };
  }
  if (ctx.flags.delete) {
    const oid = await withRepoLock(repo, () => deleteTag(repo, name));
    ctx.stdout.write(`Deleted tag '${name}' (was ${oid.slice(0, 7)}).\n`);
    return { repo_path: rel, action: "delete", tags: await listTags(repo), name, target: null };
  }
  const author = authorOf(ctx);
  const made = await withRepoLock(
    repo,
    () => createTag(repo, name, { ref: target, message: ctx.flags.message, author, force: ctx.flags.force }),
  );
  const info = await describeTag(repo, name, resolveRefOid(repo, `refs/tags/${name}`)!);
  ctx.stdout.write(`Tagged ${made.target.slice(0, 7)} as ${name}${info.type === "annotated" ? " (annotated)" : ""}.\n`);
  return { repo_path: rel, action: "create", tags: [info], name, target: made.target };
};

export const revert: Handler<typeof revertFlags> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const { repo, policy, rel } = opened;
  const author = authorOf(ctx);
  const ref = ctx.flags.ref;
  const action = sequenceAction(ctx.flags);
  if (action) {
    if (ref !== undefined || ctx.flags["no-commit"]) {
      throw new PtermError("InvalidArgs", `--${action} takes no commit and no --no-commit.`);
    }
    const done = await finishSequence(ctx, opened, "revert", action);
    return {
      repo_path: rel,
      action,
      reverted: done.applied!,
      commit_id: done.commit_id,
      changed_paths: done.changed_paths,
      conflicts: [],
    };
  }
  if (!ref) {
    throw new PtermError(
      "InvalidArgs",
      "say which commit to revert: `git revert <commit>` (e.g. HEAD), or --continue, --abort, --quit, --skip.",
    );
  }
  const result = await withRepoLock(
    repo,
    () => revertCommit(repo, loadIndex(repo), policy, ref, { noCommit: ctx.flags["no-commit"], author }),
  );
  const fields = {
    repo_path: rel,
    reverted: result.reverted,
    commit_id: result.commit_id,
    changed_paths: result.changed_paths,
    conflicts: result.conflicts,
  };
  if (result.conflicts.length > 0) {
    throw new PtermError(
      "Conflict",
      `reverting ${result.reverted.slice(0, 7)} conflicted in ${
        result.conflicts.join(", ")
      }; the files contain conflict markers. ` +
        "Edit them, `git add` them and `git revert --continue` (or `git revert --abort` to give up).",
      { result: fields },
    );
  }
  ctx.stdout.write(
    result.commit_id
      ? `Reverted ${result.reverted.slice(0, 7)} as ${result.commit_id.slice(0, 7)}.\n`
      : `Applied the revert of ${result.reverted.slice(0, 7)} to index and work tree (not committed).\n`,
  );
  return fields;
};

export const merge: Handler<typeof mergeFlags> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const { repo, policy, rel } = opened;
  const author = authorOf(ctx);
  const action = sequenceAction(ctx.flags);
  if (action) {
    if (ctx.flags.branch) throw new PtermError("InvalidArgs", `--${action} takes no branch.`);
    const done = await finishSequence(ctx, opened, "merge", action);
    return {
      repo_path: rel,
      outcome: action === "continue" ? "merge" as const : action === "quit" ? "quit" as const : "aborted" as const,
      commit_id: done.commit_id,
      head: readHead(repo).oid,
      changed_paths: done.changed_paths,
      conflicts: [],
    };
  }
  if (!ctx.flags.branch) throw new PtermError("InvalidArgs", "say what to merge: `git merge <branch>`.");
  const branchName = ctx.flags.branch;
  if (ctx.flags.squash && (ctx.flags["no-ff"] || ctx.flags.message !== undefined)) {
    throw new PtermError(
      "InvalidArgs",
      "--squash makes no commit, so it takes no --no-ff or -m: give the message to the `git commit` that follows.",
    );
  }
  if (ctx.flags["ff-only"]) {
    if (ctx.flags["no-ff"]) throw new PtermError("InvalidArgs", "--ff-only and --no-ff contradict each other.");
    const head = readHead(repo).oid;
    const theirs = await resolveCommit(repo, branchName);
    if (
      head && head !== theirs && !(await mergeBases(repo, head, theirs)).includes(head) &&
      !(await mergeBases(repo, head, theirs)).includes(theirs)
    ) {
      throw new PtermError(
        "Rejected",
        `not possible to fast-forward to ${branchName}: the branches have diverged. Nothing was changed. ` +
          `\`git merge ${quoteWord(branchName)}\` makes a merge commit.`,
      );
    }
  }
  const outcome = await withRepoLock(
    repo,
    () =>
      mergeInto(repo, loadIndex(repo), policy, branchName, {
        noFf: ctx.flags["no-ff"],
        message: ctx.flags.message,
        author,
        squash: ctx.flags.squash,
      }),
  );
  const fields = {
    repo_path: rel,
    commit_id: outcome.commit_id,
    head: outcome.head,
    changed_paths: outcome.changed,
    conflicts: outcome.conflicts,
  };
  if (outcome.outcome === "squashed") {
    if (outcome.conflicts.length > 0) {
      throw new PtermError(
        "Conflict",
        `squashing ${branchName} conflicted in ${outcome.conflicts.join(", ")}; those files contain conflict ` +
          "markers. Edit them, `git add` them and `git commit` (the message is prepared), or `git reset --hard` " +
          "to give up (HEAD did not move).",
        { result: { ...fields, outcome: "squashed" } },
      );
    }
    ctx.stdout.write(
      `Squash commit -- not updating HEAD (${plural(outcome.changed.length, "file")} changed, staged). ` +
        "`git commit` records them with the prepared message (or -m).\n",
    );
    return { ...fields, outcome: outcome.outcome };
  }
  if (outcome.outcome === "conflict") {
    throw new PtermError(
      "Conflict",
      `merging ${branchName} conflicted in ${outcome.conflicts.join(", ")}; those files contain conflict markers. ` +
        "Edit them, `git add` them and `git commit`, or `git merge --abort`.",
      { result: { ...fields, outcome: "conflict" } },
    );
  }
  const text = outcome.outcome === "up-to-date"
    ? "Already up to date."
    : outcome.outcome === "fast-forward"
    ? `Fast-forward to ${outcome.head.slice(0, 7)}`
    : `Merge made: ${outcome.commit_id!.slice(0, 7)}`;
  ctx.stdout.write(`${text} (${plural(outcome.changed.length, "file")} changed).\n`);
  const hooks = outcome.outcome === "up-to-date" ? null : skippedHooks(
    repo,
    outcome.outcome === "fast-forward"
      ? ["post-merge"]
      : ["pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge"],
  );
  if (hooks) ctx.stderr.write(`[Warning] ${hooks}\n`);
  return { ...fields, outcome: outcome.outcome };
};

/** Which of --continue, --abort, --quit, --skip was given (at most one), or null. */
function sequenceAction(
  flags: { continue?: boolean; abort?: boolean; quit?: boolean; skip?: boolean },
): "continue" | "abort" | "quit" | "skip" | null {
  const given = (["continue", "abort", "quit", "skip"] as const).filter((name) => flags[name]);
  if (given.length > 1) throw new PtermError("InvalidArgs", `give one of ${given.map((g) => `--${g}`).join(", ")}.`);
  return given[0] ?? null;
}

/**
 * `git cherry-pick|revert|merge --continue|--abort|--quit|--skip` on the operation that stopped.
 * --skip drops the one commit being applied: pterm applies one at a time, so it is --abort.
 */
async function finishSequence(
  ctx: AnyContext,
  opened: Opened,
  kind: Sequence,
  action: "continue" | "abort" | "quit" | "skip",
) {
  const { repo, policy } = opened;
  const applied = kind === "merge" ? null : sequenceCommit(repo, kind);
  const title = kind === "merge" ? "Merge" : kind === "revert" ? "Revert" : "Cherry-pick";
  if (action === "quit") {
    quitSequence(repo, kind);
    ctx.stdout.write(`${title} forgotten; index and work tree are as they were.\n`);
    return { applied, commit_id: null, changed_paths: [] as string[] };
  }
  if (action === "continue") {
    const id = await withRepoLock(
      repo,
      () => continueSequence(repo, loadIndex(repo), kind, authorOf(ctx), ctx.flags.author !== undefined),
    );
    const made = await readCommit(repo, id);
    ctx.stdout.write(
      `[${readHead(repo).branch ?? "detached HEAD"} ${id.slice(0, 7)}] ${made.message.split("\n")[0]}\n`,
    );
    return { applied, commit_id: id, changed_paths: [] as string[] };
  }
  const changed = await withRepoLock(repo, () => abortSequence(repo, loadIndex(repo), policy, kind));
  ctx.stdout.write(
    `${title} ${action === "skip" ? "skipped" : "aborted"}; ${plural(changed.length, "path")} restored.\n`,
  );
  return { applied, commit_id: null, changed_paths: changed };
}

export const cherryPick: Handler<typeof cherryPickFlags, Pos<"commit">> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const { repo, policy, rel } = opened;
  const author = authorOf(ctx);
  const rev = ctx.positionals.commit as string | undefined;
  const action = sequenceAction(ctx.flags);
  if (action) {
    if (rev !== undefined || ctx.flags["no-commit"]) {
      throw new PtermError("InvalidArgs", `--${action} takes no commit and no --no-commit.`);
    }
    const done = await finishSequence(ctx, opened, "cherry-pick", action);
    return {
      repo_path: rel,
      action,
      picked: done.applied!,
      commit_id: done.commit_id,
      changed_paths: done.changed_paths,
      conflicts: [],
    };
  }
  if (rev === undefined) {
    throw new PtermError(
      "InvalidArgs",
      "say which commit to pick: `git cherry-pick <commit>` (or --continue, --abort, --quit, --skip).",
    );
  }
  const result = await withRepoLock(
    repo,
    () =>
      cherryPickCommit(repo, loadIndex(repo), policy, rev, {
        noCommit: ctx.flags["no-commit"],
        author,
        recordOrigin: ctx.flags.x,
      }),
  );
  const fields = { repo_path: rel, ...result };
  if (result.conflicts.length > 0) {
    throw new PtermError(
      "Conflict",
      `picking ${result.picked.slice(0, 7)} conflicted in ${result.conflicts.join(", ")}; those files contain ` +
        "conflict markers. Edit them, `git add` them and `git cherry-pick --continue`, or " +
        "`git cherry-pick --abort` to give up.",
      { result: fields },
    );
  }
  ctx.stdout.write(
    result.commit_id
      ? `Picked ${result.picked.slice(0, 7)} as ${result.commit_id.slice(0, 7)}.\n`
      : `Applied the change of ${result.picked.slice(0, 7)} to index and work tree (not committed).\n`,
  );
  return fields;
};

export const clean: Handler<typeof cleanFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const dryRun = ctx.flags["dry-run"];
  if (!ctx.flags.force && !dryRun) {
    throw new PtermError(
      "InvalidArgs",
      "git clean deletes untracked files, so it needs -f (as git's clean.requireForce): `git clean -n` lists " +
        "them first, `git clean -f` deletes them (`-fd` folders too).",
    );
  }
  const scope = userPaths(ctx.flags.path);
  const result = await withRepoLock(repo, async () => {
    const index = loadIndex(repo);
    const report = await worktreeStatus(repo, index, policy, { untracked: true, submodules: "all" });
    // Folders that hold a tracked file: without -d, git clean leaves wholly untracked folders alone.
    const trackedDirs = new Set<string>([""]);
    for (const path of index.entries.keys()) {
      for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) trackedDirs.add(path.slice(0, i));
    }
    const parent = (path: string) => path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
    const removed: string[] = [];
    const withheld: string[] = [];
    const skipped: string[] = [];
    const emptied = new Set<string>();
    for (const path of [...(report.untracked ?? [])].sort(comparePaths)) {
      if (scope.length && !scope.some((s) => s === "" || pathWithin(path, s))) continue;
      if (!ctx.flags.directories && !trackedDirs.has(parent(path))) continue;
      if (policy.hidden(path)) {
        withheld.push(path);
        continue;
      }
      // A folder among the untracked entries is a repository of its own: git clean skips it (unless -ff).
      const info = await Deno.lstat(`${repo.dir}/${path}`).catch(() => null);
      if (!info) continue;
      if (info.isDirectory) {
        skipped.push(path);
        continue;
      }
      if (!dryRun) {
        try {
          await Deno.remove(`${repo.dir}/${path}`);
        } catch (error) {
          throw new PtermError(
            "WriteFailed",
            `could not delete ${quoteName(path)} (${(error as Error).name}); ${plural(removed.length, "file")} ` +
              "were deleted before it and the rest are left as they were. Run `git clean -n` to see what remains.",
          );
        }
      }
      removed.push(path);
      for (let dir = parent(path); dir && !trackedDirs.has(dir); dir = parent(dir)) emptied.add(dir);
    }
    if (!dryRun && ctx.flags.directories) {
      // Deepest first; a folder that still holds something (an ignored or secret file) stays, as in git.
      for (const dir of [...emptied].sort((a, b) => b.length - a.length)) {
        await Deno.remove(`${repo.dir}/${dir}`).catch(() => {});
      }
    }
    return { removed, withheld, skipped };
  });
  const verb = dryRun ? "Would remove" : "Removing";
  ctx.stdout.write(
    result.removed.length
      ? result.removed.map((p) => `${verb} ${quoteName(p)}`).join("\n") + "\n"
      : "Nothing to clean.\n",
  );
  if (result.withheld.length) {
    ctx.stderr.write(`${plural(result.withheld.length, "secret path")} left in place (pterm never touches them).\n`);
  }
  for (const path of result.skipped) ctx.stderr.write(`Skipping repository ${quoteName(path)}\n`);
  const listed = bounded(result.removed);
  return {
    repo_path: rel,
    dry_run: dryRun,
    removed: listed.items,
    withheld: result.withheld,
    skipped: result.skipped,
    truncated: listed.truncated,
  };
};
