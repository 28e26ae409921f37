/**
 * `shortlog`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { shortlogFlags } from "../sub/shortlog.ts";
import { ancestorsOf, type LogCommit, walkLog } from "../history/log.ts";
import { resolveCommit } from "../history/revparse.ts";
import { readHead } from "../repo/refs.ts";
import { openFromFlags, splitRevsAndPaths, userPaths } from "./common.ts";
import { rangeEnds } from "./history_shared.ts";
import { allStarts } from "./log.ts";

/**
 * git shortlog's text: authors sorted by name (byte order), or with -n by count (most first, ties
 * by name); each author's subjects oldest first, indented six spaces, a blank line after; with -s
 * `%6d\t<author>`. The author is the commit's name (with -e, `Name <email>`).
 */
export function shortlogText(
  commits: readonly LogCommit[],
  options: { summary: boolean; numbered: boolean; email: boolean },
): { text: string; authors: { author: string; count: number; subjects: string[] }[] } {
  const groups = new Map<string, string[]>();
  for (const c of commits) {
    const key = options.email ? `${c.author.name} <${c.author.email}>` : c.author.name;
    const list = groups.get(key) ?? [];
    list.push(c.subject === "" ? "<none>" : c.subject);
    groups.set(key, list);
  }
  const byName = [...groups].sort(([a], [b]) => compareBytes(a, b));
  const ordered = options.numbered ? byName.sort(([, a], [, b]) => b.length - a.length) : byName;
  const authors = ordered.map(([author, subjects]) => ({
    author,
    count: subjects.length,
    subjects: subjects.reverse(),
  }));
  const text = authors.map((a) =>
    options.summary
      ? `${String(a.count).padStart(6)}\t${a.author}\n`
      : `${a.author} (${a.count}):\n${a.subjects.map((s) => `      ${s}\n`).join("")}\n`
  ).join("");
  return { text, authors };
}

function hasMailmap(dir: string): boolean {
  try {
    Deno.lstatSync(`${dir}/.mailmap`);
    return true;
  } catch {
    return false;
  }
}

function compareBytes(a: string, b: string): number {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

export const shortlog: Handler<typeof shortlogFlags, readonly [{ name: "args"; description: string; variadic: true }]> =
  async (ctx) => {
    const { repo, rel } = await openFromFlags(ctx, "read");
    if (hasMailmap(repo.dir)) {
      // git shortlog maps names and emails through .mailmap; pterm does not, so it would count differently.
      throw new PtermError(
        "InvalidArgs",
        'this repository has a .mailmap, which git shortlog applies and pterm does not: `git log --format="%an"` ' +
          "lists the names as recorded.",
      );
    }
    const split = await splitRevsAndPaths(ctx, repo, ctx.positionals.args, 1);
    const ref = split.revs[0] ?? "HEAD";
    if (ref === "HEAD" && !readHead(repo).oid) {
      throw new PtermError("NotFound", "there are no commits yet: `git commit` makes the first one.");
    }
    const ends = await rangeEnds(repo, ref);
    const all = ctx.flags.all ? await allStarts(repo) : [];
    const start = all.length && !split.revs.length ? all[0] : await resolveCommit(repo, ends ? ends[1] : ref);
    const hide = ends ? await ancestorsOf(repo, await resolveCommit(repo, ends[0])) : new Set<string>();
    const paths = userPaths([...ctx.flags.path, ...split.paths]);
    const commits = (await walkLog(repo, start, Number.MAX_SAFE_INTEGER, paths.length ? paths : null, hide, {
      starts: all,
    })).filter((c) => !ctx.flags["no-merges"] || c.parents.length < 2);
    const { text, authors } = shortlogText(commits, {
      summary: ctx.flags.summary,
      numbered: ctx.flags.numbered,
      email: ctx.flags.email,
    });
    ctx.stdout.write(text);
    return {
      repo_path: rel,
      authors: authors.map((a) => ({
        author: a.author,
        commits: a.count,
        subjects: ctx.flags.summary ? [] : a.subjects,
      })),
    };
  };
