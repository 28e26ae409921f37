/**
 * `blame`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { blameFlags } from "../sub/blame.ts";
import { blame as blameLines, NOT_COMMITTED } from "../history/blame.ts";
import { worktreeBlob } from "../worktree/convert.ts";
import { isoTime, readCommit } from "../history/log.ts";
import type { BlamedLine } from "../history/blame.ts";
import type { Repo } from "../repo/repo.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { readHead } from "../repo/refs.ts";
import { lookupPath, resolveCommit } from "../history/revparse.ts";
import { hiddenPathDenied, lstatTracked } from "../worktree/worktree.ts";
import { openFromFlags, splitRevsAndPaths, userPaths } from "./common.ts";
import { displayWidth, encodeName, quoteName } from "../odb/bytes.ts";

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
    let bytes: Uint8Array;
    if (rev === undefined) {
      const info = lstatTracked(repo, path);
      if (!info || info.isDirectory) {
        throw new PtermError(
          "NotFound",
          `${path} is not a file in the work tree; \`git blame HEAD -- ${
            quoteName(path, repo.quotePath)
          }\` blames HEAD's.`,
        );
      }
      // The work tree's file in git's form (autocrlf, eol, ident undone), as git blame compares it.
      bytes = await worktreeBlob(repo, path, info);
      if (!start || !(await lookupPath(repo, (await readCommit(repo, start)).tree, path))) {
        throw new PtermError("NotFound", `no such path ${path} in HEAD: blame works on committed files.`);
      }
    } else {
      const found = await lookupPath(repo, (await readCommit(repo, start!)).tree, path);
      if (!found || found.mode === "40000") throw new PtermError("NotFound", `no such file ${path} in ${rev}.`);
      bytes = (await repo.objects.read(found.oid)).content;
    }
    const blamed = await blameLines(repo, start, path, bytes, rev === undefined);
    const [from, to] = lineRange(ctx.flags.lines, blamed.length);
    const shown = blamed.slice(from - 1, to);
    const details = new Map<string, BlameCommitDetails>();
    // Thousands of lines share a few hundred commits: each author's time is written once.
    const times = new Map<BlamePerson, string>();
    const timeOf = (author: BlamePerson) => {
      let time = times.get(author);
      if (time === undefined) times.set(author, time = isoTime(author));
      return time;
    };
    for (const b of shown) {
      if (!details.has(b.commit)) details.set(b.commit, await commitDetails(repo, b.commit, path));
    }
    if (ctx.flags.porcelain || ctx.flags["line-porcelain"]) {
      ctx.stdout.write(porcelainText(shown, details, ctx.flags["line-porcelain"], repo.quotePath));
    } else {
      ctx.stdout.write(defaultText(repo, shown, details, path, ctx.flags));
    }
    // Every line, as stdout has every line: the envelope bounds the text, not the structured result.
    return {
      repo_path: rel,
      path,
      rev: rev ?? "HEAD",
      lines: shown.map((b) => {
        const { author } = details.get(b.commit)!;
        return {
          line: b.line,
          commit: b.commit,
          boundary: b.boundary,
          author: author.name,
          time: timeOf(author),
          text: b.text,
        };
      }),
    };
  };

interface BlamePerson {
  readonly name: string;
  readonly email: string;
  readonly timestamp: number;
  readonly tzOffset: number;
}

interface BlameCommitDetails {
  readonly author: BlamePerson;
  readonly committer: BlamePerson;
  readonly summary: string;
}

/** A commit's author, committer and subject; the work tree's lines as git's fake commit names them. */
async function commitDetails(repo: Repo, commit: string, path: string): Promise<BlameCommitDetails> {
  if (commit === NOT_COMMITTED) {
    const now = Math.floor(Date.now() / 1000);
    const tzOffset = -new Date().getTimezoneOffset();
    const person = { name: "Not Committed Yet", email: "not.committed.yet", timestamp: now, tzOffset };
    return { author: person, committer: person, summary: `Version of ${path} from ${path}` };
  }
  const c = await readCommit(repo, commit);
  return { author: c.author, committer: c.committer, summary: blameSummary(c.message, commit) };
}

/**
 * blame's `summary`: the message's first line that is not blank, as it is written — only that line, where the %s of
 * log and shortlog joins the whole first paragraph — or `(<commit id>)` when the message has none (git's blame.c).
 */
function blameSummary(message: string, commit: string): string {
  return message.split("\n").find((line) => !/^\s*$/.test(line)) ?? `(${commit})`;
}

/** git's timezone form: `+0200`, `-0530`. */
function gitZone(tzOffset: number): string {
  const abs = Math.abs(tzOffset);
  return `${tzOffset < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}${
    String(abs % 60).padStart(2, "0")
  }`;
}

/** git's blame date (its ISO 8601 form): `2023-11-15 05:13:20 +0200`, in the signature's own zone. */
function blameDate(person: BlamePerson): string {
  const local = new Date((person.timestamp + person.tzOffset * 60) * 1000).toISOString();
  return `${local.slice(0, 10)} ${local.slice(11, 19)} ${gitZone(person.tzOffset)}`;
}

/** Runs of lines git's blame keeps as one entry: same commit and path, consecutive in both versions. */
function entries(lines: readonly BlamedLine[]): BlamedLine[][] {
  const out: BlamedLine[][] = [];
  for (const line of lines) {
    const last = out[out.length - 1]?.at(-1);
    if (
      last && last.commit === line.commit && last.path === line.path && last.origLine + 1 === line.origLine &&
      last.line + 1 === line.line
    ) out[out.length - 1].push(line);
    else out.push([line]);
  }
  return out;
}

/** git blame's default text (builtin/blame.c emit_other). */
function defaultText(
  repo: Repo,
  lines: readonly BlamedLine[],
  details: ReadonlyMap<string, BlameCommitDetails>,
  path: string,
  flags: { long: boolean; suppress: boolean; "show-email": boolean },
): string {
  if (lines.length === 0) return "";
  const who = (d: BlameCommitDetails) => flags["show-email"] ? `<${d.author.email}>` : d.author.name;
  const showName = lines.some((l) => l.path !== path);
  // git pads the name (as it is, never quoted) to the longest one in bytes (printf's `%-*.*s`).
  const byteLength = (name: string) => encodeName(name).length;
  const longestFile = Math.max(...lines.map((l) => byteLength(l.path)));
  const longestAuthor = Math.max(...lines.map((l) => displayWidth(who(details.get(l.commit)!))));
  const digits = String(Math.max(...lines.map((l) => l.line))).length;
  // The longest abbreviation any blamed commit needs, plus one for the boundary's `^`.
  const abbrev = flags.long
    ? 40
    : Math.max(...[...new Set(lines.map((l) => l.commit))].map((c) => abbreviate(repo, c).length)) + 1;
  // What a line says of its commit's author is the same on each of the commit's lines: written once per commit.
  const authorParts = new Map<string, string>();
  const authorPart = (commit: string) => {
    let part = authorParts.get(commit);
    if (part === undefined) {
      const d = details.get(commit)!;
      const name = who(d);
      authorParts.set(
        commit,
        part = ` (${name}${" ".repeat(longestAuthor - displayWidth(name))} ${blameDate(d.author)}`,
      );
    }
    return part;
  };
  return lines.map((l) => {
    let out = l.boundary ? "^" + l.commit.slice(0, abbrev - 1) : l.commit.slice(0, abbrev);
    if (showName) out += " " + l.path + " ".repeat(longestFile - byteLength(l.path));
    if (!flags.suppress) out += authorPart(l.commit);
    return `${out} ${String(l.line).padStart(digits)}) ${l.text}\n`;
  }).join("");
}

/** `--porcelain` and `--line-porcelain` (builtin/blame.c emit_porcelain). */
function porcelainText(
  lines: readonly BlamedLine[],
  details: ReadonlyMap<string, BlameCommitDetails>,
  everyLine: boolean,
  quotePath: boolean,
): string {
  const pathsOf = new Map<string, Set<string>>();
  for (const l of lines) pathsOf.set(l.commit, (pathsOf.get(l.commit) ?? new Set()).add(l.path));
  const shown = new Set<string>();
  const detailLines = (l: BlamedLine, repeat: boolean): string => {
    let out = "";
    let wrote = false;
    if (repeat || !shown.has(l.commit)) {
      shown.add(l.commit);
      wrote = true;
      const d = details.get(l.commit)!;
      for (const [role, p] of [["author", d.author], ["committer", d.committer]] as const) {
        out += `${role} ${p.name}\n${role}-mail <${p.email}>\n${role}-time ${p.timestamp}\n${role}-tz ${
          gitZone(p.tzOffset)
        }\n`;
      }
      out += `summary ${d.summary}\n`;
      if (l.boundary) out += "boundary\n";
    }
    if (wrote || pathsOf.get(l.commit)!.size > 1) {
      if (l.previous) out += `previous ${l.previous.commit} ${quoteName(l.previous.path, quotePath)}\n`;
      out += `filename ${quoteName(l.path, quotePath)}\n`;
    }
    return out;
  };
  let out = "";
  for (const entry of entries(lines)) {
    entry.forEach((l, i) => {
      out += i === 0
        ? `${l.commit} ${l.origLine} ${l.line} ${entry.length}\n`
        : `${l.commit} ${l.origLine} ${l.line}\n`;
      if (i === 0 || everyLine) out += detailLines(l, everyLine);
      out += `\t${l.text}\n`;
    });
  }
  return out;
}
