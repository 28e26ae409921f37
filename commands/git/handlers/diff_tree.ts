/**
 * `diffTree`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { diffTreeFlags } from "../sub/diff_tree.ts";
import { MODE_TREE, type TreeEntry } from "../odb/objects.ts";
import { quoteName, ZERO_OID } from "../odb/bytes.ts";
import type { Repo } from "../repo/repo.ts";
import type { PathPolicy } from "../worktree/worktree.ts";
import { peelTo, resolveRevision } from "../history/revparse.ts";
import { isPathWord, openFromFlags } from "./common.ts";
import { visibleEntries } from "./plumbing_shared.ts";

export interface RawChange {
  readonly path: string;
  readonly status: "A" | "D" | "M" | "T";
  readonly oldMode: string;
  readonly newMode: string;
  readonly oldOid: string;
  readonly newOid: string;
}

const kind = (mode: string) =>
  mode === MODE_TREE ? "tree" : mode === "160000" ? "commit" : mode === "120000" ? "link" : "file";

/**
 * git's raw tree diff: entries compared by name in tree order; a folder is entered with `recursive`
 * (and listed too with `trees`), else shown as one changed entry. A path the policy withholds is skipped.
 */
export async function diffTrees(
  repo: Repo,
  policy: PathPolicy,
  a: string | null,
  b: string | null,
  options: { recursive: boolean; trees: boolean },
  dir = "",
): Promise<RawChange[]> {
  const read = async (tree: string | null): Promise<Map<string, TreeEntry>> =>
    new Map(
      tree ? visibleEntries(policy, dir, await repo.objects.readTyped(tree, "tree"), tree).map((e) => [e.name, e]) : [],
    );
  const left = await read(a);
  const right = await read(b);
  const key = (e: TreeEntry) => e.mode === MODE_TREE ? `${e.name}/` : e.name;
  const names = [...new Set([...left.values(), ...right.values()].map(key))].sort((x, y) => x < y ? -1 : x > y ? 1 : 0);
  const out: RawChange[] = [];
  const side = async (e: TreeEntry, path: string, added: boolean) => {
    if (e.mode === MODE_TREE && options.recursive) {
      if (options.trees) out.push(change(path, added ? null : e, added ? e : null));
      out.push(
        ...await diffTrees(repo, policy, added ? null : e.oid, added ? e.oid : null, options, path),
      );
    } else out.push(change(path, added ? null : e, added ? e : null));
  };
  const seen = new Set<string>();
  for (const k of names) {
    const name = k.endsWith("/") ? k.slice(0, -1) : k;
    const path = dir ? `${dir}/${name}` : name;
    const old = left.get(name);
    const now = right.get(name);
    const oldHere = old && key(old) === k ? old : undefined;
    const nowHere = now && key(now) === k ? now : undefined;
    if (seen.has(k)) continue;
    seen.add(k);
    if (oldHere && nowHere) {
      if (oldHere.oid === nowHere.oid && oldHere.mode === nowHere.mode) continue;
      if (oldHere.mode === MODE_TREE && options.recursive) {
        if (options.trees) out.push(change(path, oldHere, nowHere));
        out.push(...await diffTrees(repo, policy, oldHere.oid, nowHere.oid, options, path));
      } else out.push(change(path, oldHere, nowHere));
      continue;
    }
    if (oldHere && old && now && kind(old.mode) !== kind(now.mode)) {
      // A file that became a folder (or the other way): git lists the deletion, then the addition.
      await side(oldHere, path, false);
      continue;
    }
    if (oldHere) await side(oldHere, path, false);
    if (nowHere) await side(nowHere, path, true);
  }
  return out;
}

function change(path: string, a: TreeEntry | null, b: TreeEntry | null): RawChange {
  const status = !a ? "A" : !b ? "D" : kind(a.mode) !== kind(b.mode) ? "T" : "M";
  return {
    path,
    status,
    oldMode: (a?.mode ?? "0").padStart(6, "0"),
    newMode: (b?.mode ?? "0").padStart(6, "0"),
    oldOid: a?.oid ?? ZERO_OID,
    newOid: b?.oid ?? ZERO_OID,
  };
}

/** The changes under `paths` only (a folder means everything in it), as git's pathspec keeps them. */
function under(changes: RawChange[], paths: readonly string[]): RawChange[] {
  if (paths.length === 0) return changes;
  const specs = paths.map((p) => p.replace(/\/+$/, ""));
  return changes.filter((c) =>
    specs.some((s) => c.path === s || c.path.startsWith(`${s}/`) || s.startsWith(`${c.path}/`))
  );
}

export const diffTree: Handler<typeof diffTreeFlags, readonly [{ name: "revs"; description: string; variadic: true }]> =
  async (ctx) => {
    const { repo, policy, rel } = await openFromFlags(ctx, "read");
    const words = ctx.positionals.revs.filter((w) => w !== "--");
    if (words.length === 0) {
      throw new PtermError(
        "InvalidArgs",
        "git diff-tree needs a commit: `git diff-tree --no-commit-id --name-only -r HEAD`.",
      );
    }
    const first = await resolveRevision(repo, words[0]);
    let second: string | null = null;
    if (words[1] !== undefined) {
      try {
        second = await resolveRevision(repo, words[1]);
      } catch (error) {
        // As git: a word that is no revision must be a path in the work tree (or come after `--`).
        if (!ctx.positionals.revs.includes("--") && !isPathWord(repo, words[1])) throw error;
      }
    }
    const paths = words.slice(second ? 2 : 1);
    const options = { recursive: ctx.flags.recursive ?? false, trees: ctx.flags.trees ?? false };
    let header: string | null = null;
    let changes: RawChange[] = [];
    if (second) {
      const a = await peelTo(repo, first, "tree", words[0]);
      const b = await peelTo(repo, second, "tree", words[1]);
      changes = under(await diffTrees(repo, policy, a, b, options), paths);
    } else {
      const commitOid = await peelTo(repo, first, "commit", words[0]);
      const commit = await repo.objects.readCommit(commitOid);
      // As git: a merge shows nothing without -m or -c; a first commit only with --root.
      if (commit.parents.length === 1 || (commit.parents.length === 0 && ctx.flags.root)) {
        const parentTree = commit.parents.length ? (await repo.objects.readCommit(commit.parents[0])).tree : null;
        changes = under(await diffTrees(repo, policy, parentTree, commit.tree, options), paths);
        if (changes.length && !ctx.flags["no-commit-id"]) header = commitOid;
      }
    }
    const lines = changes.map((c) =>
      ctx.flags["name-only"]
        ? quoteName(c.path, repo.quotePath)
        : ctx.flags["name-status"]
        ? `${c.status}\t${quoteName(c.path, repo.quotePath)}`
        : `:${c.oldMode} ${c.newMode} ${c.oldOid} ${c.newOid} ${c.status}\t${quoteName(c.path, repo.quotePath)}`
    );
    if (header) lines.unshift(header);
    ctx.stdout.write(lines.map((l) => l + "\n").join(""));
    return {
      repo_path: rel,
      commit: header,
      changes: changes.map((c) => ({
        path: c.path,
        status: c.status,
        old_mode: c.oldMode,
        new_mode: c.newMode,
        old_id: c.oldOid,
        new_id: c.newOid,
      })),
    };
  };
