/** diff and show: read-only views that render patches. */

import type { CommandContext, Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { diffFlags, showFlags } from "../spec.ts";
import {
  changesBetween,
  type FileChange,
  findRenames,
  renderDiff,
  type RenderedDiff,
  renderStat,
} from "../lib/diff.ts";
import { MAX_SCORE } from "../lib/renames.ts";
import { type Index, modeToTreeMode, readIndexFile, S_IFGITLINK } from "../lib/index_file.ts";
import { describeCommit, readCommit } from "../lib/log.ts";
import { parseTag } from "../lib/objects.ts";
import { describeTag } from "../lib/ops.ts";
import { readHead } from "../lib/refs.ts";
import { peel, peelTo, resolveCommit, resolveRevision } from "../lib/revparse.ts";
import type { Repo } from "../lib/repo.ts";
import { worktreeStatus } from "../lib/status.ts";
import { type FlatEntry, flattenTree, pathWithin } from "../lib/tree.ts";
import { lstatTracked, type PathPolicy, worktreeMode } from "../lib/worktree.ts";
import { bounded, openFromFlags, plural, userPaths } from "./common.ts";

function indexFlat(index: Index): Map<string, FlatEntry> {
  const out = new Map<string, FlatEntry>();
  for (const [path, e] of index.entries) {
    if (!e.intentToAdd) out.set(path, { mode: modeToTreeMode(e.mode), oid: e.oid });
  }
  return out;
}

async function treeOfRev(repo: Repo, rev: string): Promise<string> {
  return (await readCommit(repo, await resolveCommit(repo, rev))).tree;
}

/** The tree to compare against the work tree: HEAD's, or none before the first commit. */
async function headFlat(repo: Repo): Promise<Map<string, FlatEntry>> {
  const head = readHead(repo);
  return head.oid ? await flattenTree(repo, (await readCommit(repo, head.oid)).tree) : new Map();
}

/** Changes from `base` (a flattened tree) to the work tree, for paths tracked in the index or in base. */
async function changesToWorktree(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  base: Map<string, FlatEntry> | null,
): Promise<FileChange[]> {
  const work = await worktreeStatus(repo, index, policy, { untracked: false });
  const out: FileChange[] = [];
  const paths = new Set<string>(base ? [...base.keys(), ...index.entries.keys()] : work.unstaged.keys());
  for (const path of paths) {
    const entry = index.entries.get(path);
    const old = base ? base.get(path) : entry ? { mode: modeToTreeMode(entry.mode), oid: entry.oid } : undefined;
    const change = work.unstaged.get(path);
    let next: FileChange["new"] = null;
    if (entry && change !== "D") {
      if (change === undefined) next = { kind: "blob", mode: modeToTreeMode(entry.mode), oid: entry.oid };
      else {
        const info = lstatTracked(repo, path);
        // A submodule stays a gitlink; its checkout's commit is read by the diff itself.
        const mode = entry.mode === S_IFGITLINK
          ? "160000"
          : info
          ? modeToTreeMode(worktreeMode(repo, info, entry.mode))
          : null;
        next = info && mode ? { kind: "worktree", mode } : null;
      }
    }
    if (!old && !next) continue;
    if (old && next?.kind === "blob" && next.oid === old.oid && next.mode === old.mode) continue;
    out.push({ path, old: old ? { kind: "blob", ...old } : null, new: next });
  }
  return out;
}

function filterChanges(
  changes: FileChange[],
  scope: string[],
  policy: PathPolicy,
): { kept: FileChange[]; withheld: string[] } {
  const kept: FileChange[] = [];
  const withheld: string[] = [];
  for (const c of changes) {
    if (scope.length && !scope.some((s) => pathWithin(c.path, s))) continue;
    if (policy.hidden(c.path)) withheld.push(c.path);
    else kept.push(c);
  }
  return { kept, withheld: withheld.sort() };
}

async function emit(
  // deno-lint-ignore no-explicit-any
  ctx: CommandContext<any, any>,
  rendered: RenderedDiff,
  flags: { stat?: boolean; "name-only"?: boolean },
  prefix = "",
) {
  const stat = renderStat(rendered.files, rendered.additions, rendered.deletions);
  let text: string;
  if (flags["name-only"]) text = rendered.files.map((f) => f.path).join("\n") + (rendered.files.length ? "\n" : "");
  else if (flags.stat) text = stat;
  else text = rendered.patch;
  let artifact: string | null = null;
  const budget = Math.max(1024, ctx.limits.stdout_bytes - prefix.length - 512);
  if (!flags["name-only"] && !flags.stat && text.length > budget) {
    const ref = await ctx.artifacts.save("diff.patch", rendered.patch, {
      mime: "text/x-diff",
      description: "the full patch (git apply can read it)",
    });
    artifact = ref.path;
    text = `${stat}\nThe patch is ${rendered.patch.length} bytes; it is in the artifact ${ref.path}.\n`;
  }
  ctx.stdout.write(prefix + (text || "No differences.\n"));
  const listed = bounded(rendered.files);
  return {
    files: listed.items,
    additions: rendered.additions,
    deletions: rendered.deletions,
    truncated: listed.truncated,
    patch_artifact: artifact,
  };
}

/** Renames are detected unless --no-renames, as with git's default diff.renames=true. */
async function withRenames(
  repo: Repo,
  changes: FileChange[],
  flags: { "find-renames": number; "no-renames"?: boolean },
): Promise<FileChange[]> {
  if (flags["no-renames"]) return changes;
  return await findRenames(repo, changes, Math.round(flags["find-renames"] * MAX_SCORE / 100));
}

export const diff: Handler<
  typeof diffFlags,
  readonly [{ name: "from"; description: string }, { name: "to"; description: string }]
> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const scope = userPaths(ctx.flags.path);
  const staged = ctx.flags.staged || ctx.flags.cached;
  const from = ctx.positionals.from;
  const to = ctx.positionals.to;
  const index = readIndexFile(repo.gitdir);
  let changes: FileChange[];
  let labels: [string, string];
  if (to !== undefined) {
    if (staged) {
      throw new PtermError("InvalidArgs", "--staged compares with the index; do not give two commits with it.");
    }
    changes = changesBetween(
      await flattenTree(repo, await treeOfRev(repo, from!)),
      await flattenTree(repo, await treeOfRev(repo, to)),
    );
    labels = [from!, to];
  } else if (from !== undefined) {
    const base = await flattenTree(repo, await treeOfRev(repo, from));
    changes = staged ? changesBetween(base, indexFlat(index)) : await changesToWorktree(repo, index, policy, base);
    labels = [from, staged ? "index" : "worktree"];
  } else if (staged) {
    changes = changesBetween(await headFlat(repo), indexFlat(index));
    labels = ["HEAD", "index"];
  } else {
    changes = await changesToWorktree(repo, index, policy, null);
    labels = ["index", "worktree"];
  }
  const { kept, withheld } = filterChanges(changes, scope, policy);
  const rendered = await renderDiff(repo, await withRenames(repo, kept, ctx.flags), ctx.flags.context);
  const out = await emit(ctx, rendered, ctx.flags);
  return { repo_path: rel, from: labels[0], to: labels[1], ...out, withheld };
};

export const show: Handler<typeof showFlags, readonly [{ name: "rev"; description: string }]> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const rev = ctx.positionals.rev ?? "HEAD";
  const object = await resolveRevision(repo, rev);
  const peeled = await peel(repo, object);
  let tag = null;
  if ((await repo.objects.read(object)).type === "tag") {
    const parsed = parseTag((await repo.objects.read(object)).content);
    tag = await describeTag(repo, parsed.tag, object);
  }
  if (peeled.type !== "commit") {
    throw new PtermError("InvalidArgs", `\`${rev}\` is a ${peeled.type}; git show in pterm shows commits and tags.`);
  }
  const id = await peelTo(repo, object, "commit", rev);
  const commit = await readCommit(repo, id);
  const parentTree = commit.parents.length ? (await readCommit(repo, commit.parents[0])).tree : null;
  const changes = changesBetween(await flattenTree(repo, parentTree), await flattenTree(repo, commit.tree));
  const { kept, withheld } = filterChanges(changes, userPaths(ctx.flags.path), policy);
  const rendered = await renderDiff(repo, await withRenames(repo, kept, ctx.flags));
  const described = describeCommit(id, commit);
  const header = [
    ...(tag?.type === "annotated" ? [`tag ${tag.name}`, "", tag.message ?? "", ""] : []),
    `commit ${id}`,
    ...(commit.parents.length > 1 ? [`Merge: ${commit.parents.map((p) => p.slice(0, 7)).join(" ")}`] : []),
    `Author: ${commit.author.name} <${commit.author.email}>`,
    `Date:   ${described.author.time}`,
    "",
    ...commit.message.replace(/\n+$/, "").split("\n").map((l) => `    ${l}`),
    "",
    ...(commit.parents.length > 1 ? ["(merge commit: the diff is against the first parent)", ""] : []),
    "",
  ].join("\n");
  const out = await emit(ctx, rendered, ctx.flags, header);
  if (withheld.length) ctx.stderr.write(`${plural(withheld.length, "secret path")} withheld from the diff.\n`);
  return { repo_path: rel, commit: described, tag, ...out, withheld };
};
