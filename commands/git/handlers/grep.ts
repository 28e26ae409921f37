/**
 * `grep`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { grepFlags } from "../sub/grep.ts";
import { readIndexFile, S_IFGITLINK } from "../worktree/index_file.ts";
import { compilePattern } from "../history/pattern.ts";
import { worktreeStatus } from "../porcelain/status.ts";
import { pathWithin } from "../odb/tree.ts";
import { lstatTracked } from "../worktree/worktree.ts";
import { openFromFlags, userPaths } from "./common.ts";
import { quoteName } from "../odb/bytes.ts";

export const MAX_GREP_MATCHES = 5000;

export const grep: Handler<typeof grepFlags, readonly [{ name: "args"; description: string; variadic: true }]> = async (
  ctx,
) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const words = [...ctx.positionals.args];
  const pattern = ctx.flags.regexp ?? words.shift();
  if (pattern === undefined) {
    throw new PtermError("InvalidArgs", 'git grep needs a pattern: `git grep -n "text"` (paths may follow).');
  }
  if (ctx.flags["extended-regexp"] && ctx.flags["fixed-strings"]) {
    throw new PtermError("InvalidArgs", "give -E (extended) or -F (fixed strings), not both.");
  }
  const matcher = compilePattern(pattern, {
    syntax: ctx.flags["fixed-strings"] ? "fixed" : ctx.flags["extended-regexp"] ? "extended" : "basic",
    ignoreCase: ctx.flags["ignore-case"],
    word: ctx.flags["word-regexp"],
  });
  const scope = userPaths([...ctx.flags.path, ...words]);
  const inScope = (path: string) => scope.length === 0 || scope.some((s) => s === "" || pathWithin(path, s));
  const index = readIndexFile(repo.gitdir);
  const candidates = new Map<string, string | null>();
  for (const [path, entry] of index.entries) {
    if (entry.mode === S_IFGITLINK || !inScope(path) || policy.hidden(path)) continue;
    candidates.set(path, ctx.flags.cached ? entry.oid : null);
  }
  // A path with a conflict in progress has no stage-0 entry; in the work tree git searches its file
  // (markers and all), once. The index's stages are not searched (--cached), as in git.
  if (!ctx.flags.cached) {
    for (const path of index.conflicts.keys()) {
      if (inScope(path) && !policy.hidden(path)) candidates.set(path, null);
    }
  }
  if (ctx.flags.untracked && !ctx.flags.cached) {
    const report = await worktreeStatus(repo, index, policy, { untracked: true, submodules: "all" });
    for (const path of report.untracked ?? []) if (inScope(path) && !policy.hidden(path)) candidates.set(path, null);
  }
  const decoder = new TextDecoder();
  const lines: string[] = [];
  const matches: { path: string; line: number; text: string }[] = [];
  const files: { path: string; count: number }[] = [];
  for (const path of [...candidates.keys()].sort()) {
    if (ctx.signal.aborted) break;
    const oid = candidates.get(path)!;
    let bytes: Uint8Array;
    if (oid) bytes = (await repo.objects.read(oid)).content;
    else {
      // Never through a symlinked folder (Deno's permission check would not see where it leads); a link
      // itself is searched as its target text, as git greps the blob it stages.
      const info = lstatTracked(repo, path);
      // Deleted in the work tree, or a FIFO/socket/device there: nothing to search, as git grep.
      if (!info || !(info.isFile || info.isSymlink)) continue;
      bytes = info.isSymlink
        ? new TextEncoder().encode(Deno.readLinkSync(`${repo.dir}/${path}`))
        : await Deno.readFile(`${repo.dir}/${path}`);
    }
    const texts = decoder.decode(bytes).split("\n");
    if (texts[texts.length - 1] === "") texts.pop();
    let count = 0;
    const binary = bytes.subarray(0, 8000).includes(0);
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i].replace(/\r$/, "");
      if (matcher.test(text) === ctx.flags["invert-match"]) continue;
      count++;
      if (binary) break;
      if (matches.length < MAX_GREP_MATCHES) matches.push({ path, line: i + 1, text });
      if (!ctx.flags["files-with-matches"] && !ctx.flags.count) {
        const name = ctx.flags["no-filename"] ? "" : `${quoteName(path, repo.quotePath)}:`;
        lines.push(`${name}${ctx.flags["line-number"] ? `${i + 1}:` : ""}${text}`);
      }
    }
    if (count === 0) continue;
    files.push({ path, count });
    if (binary && !ctx.flags["files-with-matches"] && !ctx.flags.count) {
      lines.push(`Binary file ${quoteName(path, repo.quotePath)} matches`);
    }
    if (ctx.flags["files-with-matches"]) lines.push(quoteName(path, repo.quotePath));
    if (ctx.flags.count) {
      lines.push(ctx.flags["no-filename"] ? `${count}` : `${quoteName(path, repo.quotePath)}:${count}`);
    }
  }
  const result = {
    repo_path: rel,
    pattern,
    matched: files.length > 0,
    files,
    matches,
    truncated: matches.length >= MAX_GREP_MATCHES,
  };
  // As git grep: nothing selected prints nothing and fails (exit 1), so `&&` chains and scripts see it.
  if (files.length === 0) {
    throw new PtermError("NoMatch", `git grep: no tracked file has a line matching \`${pattern}\`.`, { result });
  }
  ctx.stdout.write(lines.join("\n") + "\n");
  return result;
};
