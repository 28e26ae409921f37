/**
 * `hashObject`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { hashObjectFlags } from "../sub/hash_object.ts";
import { hiddenPathDenied, lstatWorktree, normalizeUserPath, readWorktreeContent } from "../worktree/worktree.ts";
import { worktreeBlob } from "../worktree/convert.ts";
import { openFromFlags } from "./common.ts";

export const hashObject: Handler<
  typeof hashObjectFlags,
  readonly [{ name: "paths"; description: string; variadic: true }]
> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const words = ctx.positionals.paths;
  if (words.length === 0 && !ctx.flags.stdin) {
    throw new PtermError("InvalidArgs", "git hash-object needs a file (`git hash-object src/app.py`) or --stdin.");
  }
  const hashed: { path: string | null; id: string }[] = [];
  for (const word of words) {
    const path = normalizeUserPath(word);
    const hidden = path === "" ? null : policy.hidden(path);
    if (hidden) throw hiddenPathDenied(path, hidden, "its content is never hashed");
    // Confined as every path pterm reads: a link out of the workspace is refused before anything is read.
    const confined = await ctx.workspace.resolve(rel === "." ? path : `${rel}/${path}`, "read");
    const info = confined.exists ? lstatWorktree(repo, path) : null;
    if (!info || !(info.isFile || info.isSymlink)) {
      throw new PtermError(
        "NotFound",
        `could not open '${word}' for reading: ${
          info ? "it is a folder" : "no such file"
        } (paths are relative to the repository).`,
      );
    }
    const content = ctx.flags["no-filters"]
      ? readWorktreeContent(repo, path, info)
      : await worktreeBlob(repo, path, info);
    hashed.push({ path, id: await repo.objects.hash("blob", content) });
  }
  if (ctx.flags.stdin) {
    hashed.push({ path: null, id: await repo.objects.hash("blob", ctx.stdinBytes ?? new Uint8Array()) });
  }
  ctx.stdout.write(hashed.map((h) => h.id + "\n").join(""));
  return { repo_path: rel, objects: hashed };
};
