/**
 * `tag`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { tagFlags } from "../sub/tag.ts";
import { createTag, deleteTag, describeTag, listTags } from "../porcelain/tags.ts";
import { resolveRefOid } from "../repo/refs.ts";
import { withRepoLock } from "../repo/state.ts";
import { authorOf, openFromFlags, refuseUnfollowedLayout } from "./common.ts";
import { matchesPattern, type Pos } from "./change_shared.ts";
import { parseTag } from "../odb/objects.ts";
import type { Repo } from "../repo/repo.ts";
import { abbreviate } from "../odb/abbrev.ts";

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
  // `-n` lists, as git takes it: `git tag -n1 'v*'` is a pattern, never a new tag.
  if (!name || ctx.flags.list || ctx.flags.lines !== undefined) {
    if (target) throw new PtermError("InvalidArgs", "--list takes one pattern.");
    if (ctx.flags.delete) {
      throw new PtermError("InvalidArgs", "name the tag to delete: git tag --repo R --delete <name>.");
    }
    refuseUnfollowedLayout(repo, "tag", (ctx.flags.lines ?? 0) === 0);
    const tags = (await listTags(repo)).filter((t) => matchesPattern(t.name, name))
      .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const lines = ctx.flags.lines ?? 0;
    let text = "";
    for (const t of tags) {
      // git tag -n: `%(align:15)%(refname:lstrip=2)%(end) %(contents:lines=N)`.
      text += lines > 0
        ? `${t.name.padEnd(15)} ${annotationLines(await contentsOf(repo, t.object), lines)}\n`
        : `${t.name}\n`;
    }
    ctx.stdout.write(text);
    return { repo_path: rel, action: "list", tags, name: null, target: null };
  }
  if (ctx.flags.delete) {
    const oid = await withRepoLock(repo, () => deleteTag(repo, name));
    ctx.stdout.write(`Deleted tag '${name}' (was ${abbreviate(repo, oid)})\n`);
    return { repo_path: rel, action: "delete", tags: await listTags(repo), name, target: null };
  }
  const author = authorOf(ctx, repo);
  const made = await withRepoLock(
    repo,
    () => createTag(repo, name, { ref: target, message: ctx.flags.message, author, force: ctx.flags.force }),
  );
  const info = await describeTag(repo, name, resolveRefOid(repo, `refs/tags/${name}`)!);
  // git tag prints nothing when it makes a tag.
  return { repo_path: rel, action: "create", tags: [info], name, target: made.target };
};

/**
 * The message ref-filter's %(contents) reads: an annotated tag's annotation, a commit's message
 * (a lightweight tag), nothing for other objects; leading blank lines skipped, a trailing
 * signature left out.
 */
async function contentsOf(repo: Repo, oid: string): Promise<string> {
  const object = await repo.objects.read(oid);
  let message: string;
  if (object.type === "tag") message = parseTag(object.content).message;
  else if (object.type === "commit") message = (await repo.objects.readCommit(oid)).message;
  else return "";
  message = message.replace(/^\n+/, "");
  const signature = message.search(/^-----BEGIN (PGP|SSH) SIGNATURE-----$/m);
  return signature >= 0 ? message.slice(0, signature) : message;
}

/** The first `count` lines, later ones indented by four spaces (ref-filter's append_lines). */
function annotationLines(contents: string, count: number): string {
  const out: string[] = [];
  let at = 0;
  for (let i = 0; i < count && at < contents.length; i++) {
    const eol = contents.indexOf("\n", at);
    out.push(eol < 0 ? contents.slice(at) : contents.slice(at, eol));
    if (eol < 0) break;
    at = eol + 1;
  }
  return out.join("\n    ");
}
