/**
 * `blame`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { blameFlags } from "../sub/blame.ts";
import { blame as blameLines, NOT_COMMITTED } from "../history/blame.ts";
import { worktreeBlob } from "../worktree/convert.ts";
import { describeCommit, readCommit } from "../history/log.ts";
import { readHead } from "../repo/refs.ts";
import { lookupPath, resolveCommit } from "../history/revparse.ts";
import { hiddenPathDenied, lstatTracked } from "../worktree/worktree.ts";
import { bounded, openFromFlags, splitRevsAndPaths, userPaths } from "./common.ts";
import { quoteName } from "../odb/bytes.ts";

/** `-L` as git reads it: `a,b`, `a,+n`, `a,` (to the end), `,b` (from the start); 1-based, inclusive. */
export function lineRange(spec: string | undefined, total: number): [number, number] {
  if (spec === undefined) return [1, total];
  const match = spec.match(/^(\d*),(\+?)(\d*)$/) ?? spec.match(/^(\d+)()()$/);
  if (!match) throw new PtermError("InvalidArgs", `-L ${spec}: write -L <start>,<end> (e.g. 10,20 or 10,+5).`);
  const start = match[1] ? Number(match[1]) : 1;
  const end = match[3] === "" ? total : match[2] ? start + Number(match[3]) - 1 : Number(match[3]);
  if (start < 1 || start > Math.max(total, 1) || end < start) {
    throw new PtermError("InvalidArgs", `-L ${spec}: the file has ${total} lines.`);
  }
  return [start, Math.min(end, total)];
}

export const blame: Handler<typeof blameFlags, readonly [{ name: "args"; description: string; variadic: true }]> =
  async (ctx) => {
    const { repo, policy, rel } = await openFromFlags(ctx, "read");
    const split = await splitRevsAndPaths(ctx, repo, ctx.positionals.args, 1);
    const paths = userPaths([...ctx.flags.path, ...split.paths]);
    if (paths.length !== 1 || paths[0] === "") {
      throw new PtermError(
        "InvalidArgs",
        "git blame takes one file: `git blame <file>` (or `git blame <rev> -- <file>`).",
      );
    }
    const path = paths[0];
    const hidden = policy.hidden(path);
    if (hidden) throw hiddenPathDenied(path, hidden, "its content is never shown");
    const rev = split.revs[0];
    const head = readHead(repo).oid;
    const start = rev === undefined ? head : await resolveCommit(repo, rev);
    let text: string;
    if (rev === undefined) {
      const info = lstatTracked(repo, path);
      if (!info || info.isDirectory) {
        throw new PtermError(
          "NotFound",
          `${path} is not a file in the work tree; \`git blame HEAD -- ${quoteName(path)}\` blames HEAD's.`,
        );
      }
      // The work tree's file in git's form (autocrlf, eol, ident undone), as git blame compares it.
      text = new TextDecoder().decode(await worktreeBlob(repo, path, info));
      if (!start || !(await lookupPath(repo, (await readCommit(repo, start)).tree, path))) {
        throw new PtermError("NotFound", `no such path ${path} in HEAD: blame works on committed files.`);
      }
    } else {
      const found = await lookupPath(repo, (await readCommit(repo, start!)).tree, path);
      if (!found || found.mode === "40000") throw new PtermError("NotFound", `no such file ${path} in ${rev}.`);
      text = new TextDecoder().decode((await repo.objects.read(found.oid)).content);
    }
    const blamed = await blameLines(repo, start, path, text, rev === undefined);
    const [from, to] = lineRange(ctx.flags.lines, blamed.length);
    const authors = new Map<string, { author: string; email: string; time: string | null }>();
    for (const b of blamed.slice(from - 1, to)) {
      if (authors.has(b.commit)) continue;
      if (b.commit === NOT_COMMITTED) {
        authors.set(b.commit, { author: "Not Committed Yet", email: "not.committed.yet", time: null });
        continue;
      }
      const c = describeCommit(b.commit, await readCommit(repo, b.commit));
      authors.set(b.commit, { author: c.author.name, email: c.author.email, time: c.author.time });
    }
    const rows = blamed.slice(from - 1, to).map((b) => ({ ...b, ...authors.get(b.commit)! }));
    const width = String(to).length;
    ctx.stdout.write(
      rows.map((r) => {
        const id = ctx.flags.long ? r.commit : r.commit.slice(0, r.boundary ? 7 : 8);
        const who = ctx.flags["show-email"] ? `<${r.email}>` : r.author;
        const meta = ctx.flags.suppress ? "" : `${who} ${r.time ? r.time.replace("T", " ").replace(/Z$/, "") : ""} `;
        return `${r.boundary ? "^" : ""}${id} (${meta}${String(r.line).padStart(width)}) ${r.text}`;
      }).join("\n") + (rows.length ? "\n" : ""),
    );
    const listed = bounded(rows, 5000);
    return {
      repo_path: rel,
      path,
      rev: rev ?? "HEAD",
      lines: listed.items.map((r) => ({
        line: r.line,
        commit: r.commit,
        boundary: r.boundary,
        author: r.author,
        time: r.time,
        text: r.text,
      })),
      truncated: listed.truncated,
    };
  };
