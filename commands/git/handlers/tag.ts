/**
 * `tag`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { tagFlags } from "../sub/tag.ts";
import { createTag, deleteTag, describeTag, listTags } from "../porcelain/ops.ts";
import { resolveRefOid } from "../repo/refs.ts";
import { withRepoLock } from "../repo/state.ts";
import { authorOf, openFromFlags } from "./common.ts";
import { matchesPattern, type Pos } from "./change_shared.ts";

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
  const author = authorOf(ctx, repo);
  const made = await withRepoLock(
    repo,
    () => createTag(repo, name, { ref: target, message: ctx.flags.message, author, force: ctx.flags.force }),
  );
  const info = await describeTag(repo, name, resolveRefOid(repo, `refs/tags/${name}`)!);
  ctx.stdout.write(`Tagged ${made.target.slice(0, 7)} as ${name}${info.type === "annotated" ? " (annotated)" : ""}.\n`);
  return { repo_path: rel, action: "create", tags: [info], name, target: made.target };
};
