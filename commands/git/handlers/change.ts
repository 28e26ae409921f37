/** branch, checkout, reset, rm, mv, stash, tag, revert, merge. */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type {
  branchFlags,
  checkoutFlags,
  mergeFlags,
  mvFlags,
  resetFlags,
  revertFlags,
  rmFlags,
  stashPushFlags,
  stashRefFlags,
  tagFlags,
} from "../spec.ts";
import { readCommit } from "../lib/log.ts";
import {
  abortMerge,
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
} from "../lib/ops.ts";
import { readHead, resolveRefOid } from "../lib/refs.ts";
import { listRemoteBranches } from "../remote/tracking.ts";
import { resolveCommit } from "../lib/revparse.ts";
import { movePath, removePaths } from "../lib/rm_mv.ts";
import { listStash, parseStashRef, stashApply, stashClear, stashDrop, stashPush } from "../lib/stash.ts";
import { loadIndex, withRepoLock } from "../lib/state.ts";
import { normalizeUserPath } from "../lib/worktree.ts";
import { authorOf, bounded, openFromFlags, plural, userPaths } from "./common.ts";

type Pos<N extends string> = readonly { name: N; description: string }[];

export const branch: Handler<typeof branchFlags, Pos<"name" | "start">> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const name = ctx.positionals.name as string | undefined;
  const start = ctx.positionals.start as string | undefined;
  const author = authorOf(ctx);
  const head = readHead(repo);
  const base = { repo_path: rel, current: head.branch && head.ref?.startsWith("refs/heads/") ? head.branch : null };
  if (ctx.flags.delete && ctx.flags.move) {
    throw new PtermError("InvalidArgs", "give either --delete or --move, not both.");
  }
  if (!name) {
    if (ctx.flags.delete || ctx.flags.move) {
      throw new PtermError("InvalidArgs", "name the branch: git branch --repo R --delete <name>.");
    }
    const branches = listBranches(repo);
    ctx.stdout.write(
      branches.length
        ? branches.map((b) => `${b.current ? "*" : " "} ${b.name} ${b.commit.slice(0, 7)}`).join("\n") + "\n"
        : "No branches yet (the first commit creates the current one).\n",
    );
    if (!ctx.flags.all) return { ...base, action: "list", branches, name: null, commit: null };
    const remoteBranches = listRemoteBranches(repo);
    for (const r of remoteBranches) {
      ctx.stdout.write(`  remotes/${r.name}${r.points_to ? ` -> ${r.points_to}` : ""} ${r.commit.slice(0, 7)}\n`);
    }
    return { ...base, action: "list", branches, remote_branches: remoteBranches, name: null, commit: null };
  }
  if (ctx.flags.delete) {
    if (start) throw new PtermError("InvalidArgs", "--delete takes one branch name.");
    const oid = await withRepoLock(repo, () => deleteBranch(repo, name, ctx.flags.force));
    ctx.stdout.write(`Deleted branch ${name} (was ${oid.slice(0, 7)}).\n`);
    return { ...base, action: "delete", branches: listBranches(repo), name, commit: oid };
  }
  if (ctx.flags.move) {
    if (!start) {
      throw new PtermError("InvalidArgs", "--move needs the old and the new name: git branch --repo R --move old new.");
    }
    const oid = await withRepoLock(repo, () => renameBranch(repo, name, start, author, ctx.flags.force));
    ctx.stdout.write(`Renamed branch ${name} to ${start}.\n`);
    const after = readHead(repo);
    return { ...base, current: after.branch, action: "rename", branches: listBranches(repo), name: start, commit: oid };
  }
  const oid = await withRepoLock(repo, () => createBranch(repo, name, start ?? "HEAD", author, ctx.flags.force));
  ctx.stdout.write(`Created branch ${name} at ${oid.slice(0, 7)}.\n`);
  return { ...base, action: "create", branches: listBranches(repo), name, commit: oid };
};

export const checkout: Handler<typeof checkoutFlags, Pos<"target">> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const target = ctx.positionals.target as string | undefined;
  const specs = userPaths(ctx.flags.path);
  const author = authorOf(ctx);
  if (specs.length > 0) {
    if (ctx.flags.create || ctx.flags.detach) {
      throw new PtermError("InvalidArgs", "--path restores files; it cannot be combined with --create or --detach.");
    }
    const result = await withRepoLock(repo, async () => {
      const index = loadIndex(repo);
      const tree = target === undefined ? null : (await readCommit(repo, await resolveCommit(repo, target))).tree;
      return await restorePaths(repo, index, policy, tree, target === undefined, specs);
    });
    ctx.stdout.write(
      `Restored ${plural(result.changed.length, "file")} from ${target ?? "the index"}.\n`,
    );
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
  if (!target && !ctx.flags.create) {
    throw new PtermError("InvalidArgs", "say what to check out: a branch, a tag or a commit (or --create <branch>).");
  }
  const outcome = await withRepoLock(repo, async () =>
    await switchTo(repo, loadIndex(repo), policy, target ?? "HEAD", {
      detach: ctx.flags.detach,
      force: ctx.flags.force,
      createBranch: ctx.flags.create,
      author,
    }));
  const action = ctx.flags.create ? "create" : outcome.branch ? "switch" : "detach";
  ctx.stdout.write(
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
  };
};

export const reset: Handler<typeof resetFlags, Pos<"rev">> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const modes = (["soft", "mixed", "hard"] as const).filter((m) => ctx.flags[m]);
  if (modes.length > 1) throw new PtermError("InvalidArgs", "give only one of --soft, --mixed, --hard.");
  const rev = ctx.positionals.rev as string | undefined;
  const specs = userPaths(ctx.flags.path);
  if (specs.length > 0) {
    if (modes.length && modes[0] !== "mixed") {
      throw new PtermError("InvalidArgs", `--${modes[0]} cannot be combined with --path (paths only reset the index).`);
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
  const result = await withRepoLock(repo, () => stashPush(repo, loadIndex(repo), policy, author, ctx.flags.message));
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
  if (!name) {
    if (ctx.flags.delete) {
      throw new PtermError("InvalidArgs", "name the tag to delete: git tag --repo R --delete <name>.");
    }
    const tags = await listTags(repo);
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
  const { repo, policy, rel } = await openFromFlags(ctx);
  const author = authorOf(ctx);
  const result = await withRepoLock(
    repo,
    () => revertCommit(repo, loadIndex(repo), policy, ctx.flags.ref, { noCommit: ctx.flags["no-commit"], author }),
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
        "Edit them, `git add` them and `git commit` (or `git reset --hard` to give up).",
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
  const { repo, policy, rel } = await openFromFlags(ctx);
  const author = authorOf(ctx);
  if (ctx.flags.abort) {
    if (ctx.flags.branch) throw new PtermError("InvalidArgs", "--abort takes no --branch.");
    const changed = await withRepoLock(repo, () => abortMerge(repo, loadIndex(repo), policy));
    ctx.stdout.write(`Merge aborted; ${plural(changed.length, "path")} restored.\n`);
    return {
      repo_path: rel,
      outcome: "aborted",
      commit_id: null,
      head: readHead(repo).oid,
      changed_paths: changed,
      conflicts: [],
    };
  }
  if (!ctx.flags.branch) throw new PtermError("InvalidArgs", "say what to merge: --branch <name>.");
  const branchName = ctx.flags.branch;
  const outcome = await withRepoLock(
    repo,
    () =>
      mergeInto(repo, loadIndex(repo), policy, branchName, {
        noFf: ctx.flags["no-ff"],
        message: ctx.flags.message,
        author,
      }),
  );
  const fields = {
    repo_path: rel,
    commit_id: outcome.commit_id,
    head: outcome.head,
    changed_paths: outcome.changed,
    conflicts: outcome.conflicts,
  };
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
  return { ...fields, outcome: outcome.outcome };
};
