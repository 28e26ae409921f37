/**
 * `revParse`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { revParseFlags } from "../sub/rev_parse.ts";
import { readHead, resolveRefOid } from "../repo/refs.ts";
import { resolveRevision, upstreamSpelled } from "../history/revparse.ts";
import { openFromFlags } from "./common.ts";

export const revParse: Handler<typeof revParseFlags, readonly [{ name: "revs"; description: string; variadic: true }]> =
  async (ctx) => {
    const { repo, rel } = await openFromFlags(ctx, "read");
    const words = ctx.positionals.revs;
    const values: string[] = [];
    if (ctx.flags["show-toplevel"]) values.push(rel);
    if (ctx.flags["git-dir"]) {
      // A gitfile's git folder (a submodule's .git/modules/<name>, a worktree's .git/worktrees/<name>), from the root.
      const root = ctx.workspace.root.endsWith("/") ? ctx.workspace.root : ctx.workspace.root + "/";
      values.push(
        repo.gitdir.startsWith(root) ? repo.gitdir.slice(root.length) : rel === "." ? ".git" : `${rel}/.git`,
      );
    }
    if (ctx.flags["is-inside-work-tree"]) values.push("true");
    if (ctx.flags.verify && words.length !== 1) {
      throw new PtermError("InvalidArgs", "--verify takes exactly one revision.");
    }
    for (const word of words) {
      if (ctx.flags["abbrev-ref"]) {
        const head = readHead(repo);
        if (word === "HEAD") {
          values.push(head.branch ?? "HEAD");
          continue;
        }
        const upstream = upstreamSpelled(repo, word);
        if (upstream) {
          values.push(upstream.replace(/^refs\/(heads|remotes)\//, ""));
          continue;
        }
        const branch = word.replace(/^refs\/heads\//, "");
        if (resolveRefOid(repo, `refs/heads/${branch}`)) {
          values.push(branch);
          continue;
        }
      }
      let oid: string;
      try {
        oid = await resolveRevision(repo, word);
      } catch (error) {
        if (word === "HEAD" && !readHead(repo).oid) {
          throw new PtermError("NotFound", "HEAD names no commit yet: the repository has no commits.");
        }
        throw error;
      }
      values.push(ctx.flags.short ? oid.slice(0, 7) : oid);
    }
    if (values.length === 0) {
      throw new PtermError(
        "InvalidArgs",
        "git rev-parse needs a revision (`git rev-parse HEAD`) or one of --show-toplevel, --abbrev-ref HEAD, --git-dir.",
      );
    }
    ctx.stdout.write(values.join("\n") + "\n");
    return { repo_path: rel, values };
  };
