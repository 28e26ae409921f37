/**
 * `lsTree`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import type { lsTreeFlags } from "../sub/ls_tree.ts";
import { MODE_TREE } from "../odb/objects.ts";
import { quoteName } from "../odb/bytes.ts";
import { peelTo, resolveRevision } from "../history/revparse.ts";
import { openFromFlags } from "./common.ts";
import { refuseHiddenRevPath, treeLine, visibleEntries } from "./plumbing_shared.ts";

/**
 * git's pathspec of ls-tree: an entry is listed when it is a given path or lies under one (`dir/`
 * names only what dir holds), and a folder is entered when a given path goes on below it.
 */
function selects(specs: readonly string[], path: string): boolean {
  return specs.length === 0 ||
    specs.some((s) => path === s || path.startsWith(s.endsWith("/") ? s : `${s}/`) || s.startsWith(`${path}/`));
}

export const lsTree: Handler<
  typeof lsTreeFlags,
  readonly [
    { name: "tree"; description: string; required: true },
    { name: "paths"; description: string; variadic: true },
  ]
> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const rev = ctx.positionals.tree;
  refuseHiddenRevPath(policy, rev);
  const base = rev.includes(":") ? rev.slice(rev.indexOf(":") + 1).replace(/^\/+|\/+$/g, "") : "";
  const root = await peelTo(repo, await resolveRevision(repo, rev), "tree", rev);
  const specs = ctx.positionals.paths.map((p) => p.replace(/^\.\//, "").replace(/\/{2,}/g, "/")).filter((p) =>
    p !== "" && p !== "."
  );
  const { flags } = ctx;
  const showTrees = flags.trees || (flags["dirs-only"] && flags.recursive);
  const lines: string[] = [];
  const entries: { path: string; mode: string; oid: string }[] = [];
  const visit = async (tree: string, dir: string): Promise<void> => {
    const policyDir = [base, dir].filter(Boolean).join("/");
    for (const e of visibleEntries(policy, policyDir, await repo.objects.readTyped(tree, "tree"), tree)) {
      const path = dir ? `${dir}/${e.name}` : e.name;
      if (!selects(specs, path)) continue;
      if (e.mode === MODE_TREE) {
        const enter = flags.recursive || specs.some((s) => s.length > path.length && s.startsWith(`${path}/`));
        if (enter) {
          if (showTrees) await list(e, path);
          await visit(e.oid, path);
          continue;
        }
      } else if (flags["dirs-only"]) continue;
      await list(e, path);
    }
  };
  const list = async (e: { mode: string; oid: string }, path: string) => {
    entries.push({ path, mode: e.mode.padStart(6, "0"), oid: e.oid });
    if (flags["name-only"]) lines.push(quoteName(path, repo.quotePath));
    else if (flags.long) {
      const size = e.mode === MODE_TREE || e.mode === "160000"
        ? "-"
        : String((await repo.objects.read(e.oid)).content.length);
      lines.push(treeLine(e, path, repo.quotePath, size));
    } else lines.push(treeLine(e, path, repo.quotePath));
  };
  await visit(root, "");
  ctx.stdout.write(lines.map((l) => l + "\n").join(""));
  return { repo_path: rel, entries };
};
