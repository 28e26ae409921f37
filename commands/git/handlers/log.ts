/**
 * `log`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { logFlags } from "../sub/log.ts";
import { conversionFor } from "../worktree/convert.ts";
import {
  changesBetween,
  type DiffPrefixes,
  diffPrefixes,
  driverFunctionLines,
  lineAlgorithm,
  renderDiff,
  type RenderedDiff,
  renderStat,
} from "../diff/diff.ts";
import { ancestorsOf, describeCommit, type LogCommit, readCommit, walkLog } from "../history/log.ts";
import { lineLog, parseLineRanges, renderLineLogDiff, splitLineRangeArg } from "../history/line_log.ts";
import { listRefs, readHead } from "../repo/refs.ts";
import { parseApproxDate } from "../history/approxidate.ts";
import { compilePattern } from "../history/pattern.ts";
import type { Commit } from "../odb/objects.ts";
import { lookupPath, peelTo, resolveCommit } from "../history/revparse.ts";
import type { Repo } from "../repo/repo.ts";
import { flattenTree } from "../odb/tree.ts";
import type { PathPolicy } from "../worktree/worktree.ts";
import { openFromFlags, splitRevsAndPaths, userPaths } from "./common.ts";
import { encoder } from "../odb/bytes.ts";
import { concatBytes } from "../diff/line_diff.ts";
import { prettyCommit, type PrettyFormat } from "../history/pretty.ts";
import { CommitGraph, topoOrder } from "../history/graph.ts";
import { mergeBases } from "../merge/merge.ts";
import {
  filterChanges,
  functionLineNote,
  notUtf8Warning,
  prettyOptions,
  rangeEnds,
  terminatorFormat,
  type ViewFlags,
  viewOf,
  withRenames,
} from "./history_shared.ts";

/**
 * Where `log --all` starts, in git's order (every ref by name, refs/stash too, then HEAD): commits with equal dates
 * are listed in the order their starting points were given, so the order matters.
 */
export async function allStarts(repo: Repo): Promise<string[]> {
  const refs = [...listRefs(repo, "refs")].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  const starts: string[] = [];
  for (const [, oid] of refs) {
    try {
      starts.push(await peelTo(repo, oid, "commit", oid));
    } catch { /* a tag of a tree or blob leads to no commit */ }
  }
  const head = readHead(repo).oid;
  if (head) starts.push(head);
  return starts;
}

/** The commit filter of --since, --until, --author and --grep, as git applies them; null when none is given. */
export function logFilter(
  repo: Repo,
  policy: PathPolicy,
  paths: string[],
  flags: {
    since?: string;
    until?: string;
    author?: string;
    grep?: string;
    "regexp-ignore-case": boolean;
    "pickaxe-string"?: string;
    "pickaxe-grep"?: string;
    "pickaxe-regex"?: boolean;
  },
): ((commit: Commit, oid: string) => boolean | Promise<boolean>) | undefined {
  const since = flags.since === undefined ? null : parseApproxDate(flags.since);
  const until = flags.until === undefined ? null : parseApproxDate(flags.until);
  const ignoreCase = flags["regexp-ignore-case"];
  const author = flags.author === undefined ? null : compilePattern(flags.author, { ignoreCase });
  const grep = flags.grep === undefined ? null : compilePattern(flags.grep, { ignoreCase });
  const pickaxe = pickaxeOf(repo, policy, paths, flags);
  if (since === null && until === null && !author && !grep && !pickaxe) return undefined;
  return (commit, oid) => {
    // git compares the committer date for --since/--until.
    if (since !== null && commit.committer.timestamp < since) return false;
    if (until !== null && commit.committer.timestamp > until) return false;
    if (author && !author.test(`${commit.author.name} <${commit.author.email}>`)) return false;
    if (grep && !commit.message.split("\n").some((line) => grep.test(line))) return false;
    return pickaxe ? pickaxe(commit, oid) : true;
  };
}

/**
 * git's pickaxe over a commit's diff against its first parent (none for a merge, as git log shows
 * merges no diff): -S counts the occurrences of a string (or, with --pickaxe-regex, of a POSIX
 * extended expression's matches) in each changed file before and after, and keeps the commit when
 * a count changed; -G keeps it when an added or removed line matches (binary files skipped, as
 * git skips them for -G without --text).
 */
export function pickaxeOf(
  repo: Repo,
  policy: PathPolicy,
  paths: string[],
  flags: {
    "pickaxe-string"?: string;
    "pickaxe-grep"?: string;
    "pickaxe-regex"?: boolean;
    "regexp-ignore-case": boolean;
  },
): ((commit: Commit, oid: string) => Promise<boolean>) | null {
  const text = flags["pickaxe-string"];
  const lineRegex = flags["pickaxe-grep"];
  if (text === undefined && lineRegex === undefined) return null;
  if (text !== undefined && lineRegex !== undefined) {
    throw new PtermError("InvalidArgs", "give -S or -G, not both (as git).");
  }
  if (text === "" || lineRegex === "") throw new PtermError("InvalidArgs", "-S and -G need something to look for.");
  const ignoreCase = flags["regexp-ignore-case"];
  const decoder = new TextDecoder();
  const counter = text === undefined ? null : flags["pickaxe-regex"]
    ? (() => {
      const pattern = compilePattern(text, { syntax: "extended", ignoreCase });
      const global = new RegExp(pattern.source, pattern.flags + "g");
      return (s: string) => [...s.matchAll(global)].filter((m) => m[0] !== "").length;
    })()
    : (s: string) => {
      const hay = ignoreCase ? s.toLowerCase() : s;
      const needle = ignoreCase ? text.toLowerCase() : text;
      let count = 0;
      for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) count++;
      return count;
    };
  const grepLine = lineRegex === undefined ? null : compilePattern(lineRegex, { syntax: "extended", ignoreCase });
  return async (commit) => {
    if (commit.parents.length > 1) return false;
    const parentTree = commit.parents.length ? (await readCommit(repo, commit.parents[0])).tree : null;
    const changes = changesBetween(await flattenTree(repo, parentTree), await flattenTree(repo, commit.tree));
    // Renames are paired first, as git's diffcore runs rename detection before the pickaxe.
    const kept = await withRenames(repo, filterChanges(changes, paths, policy).kept, { "find-renames": 50 });
    const blob = async (side: { kind: string; oid?: string; mode: string } | null) =>
      side && side.kind === "blob" && !side.mode.startsWith("160")
        ? await repo.objects.readTyped(side.oid!, "blob")
        : new Uint8Array();
    if (counter) {
      for (const change of kept) {
        // -S searches binary files too (git skips them for -G only).
        const before = await blob(change.old);
        const after = await blob(change.new);
        if (counter(decoder.decode(before)) !== counter(decoder.decode(after))) return true;
      }
      return false;
    }
    const rendered = await renderDiff(repo, kept, { algorithm: lineAlgorithm(repo, {}) });
    let inHunk = false;
    for (const line of rendered.patch.split("\n")) {
      if (line.startsWith("diff --git ")) inHunk = false;
      else if (line.startsWith("@@")) inHunk = true;
      else if (inHunk && (line.startsWith("+") || line.startsWith("-")) && grepLine!.test(line.slice(1))) return true;
    }
    return false;
  };
}

/** Formats whose commits are separated by a newline (git's !use_terminator). */
export function separatorFormat(format: PrettyFormat): boolean {
  return format.kind === "template" ? !format.terminator : format.name !== "oneline" && format.name !== "reference";
}

/** A commit's diff against its first parent (renames found), as log -p/--stat shows it. */
export async function commitDiff(
  repo: Repo,
  id: string,
  paths: string[],
  policy: PathPolicy,
  algorithm: ReturnType<typeof lineAlgorithm> | undefined,
  prefixes?: DiffPrefixes,
): Promise<RenderedDiff> {
  const commit = await readCommit(repo, id);
  const parentTree = commit.parents.length ? (await readCommit(repo, commit.parents[0])).tree : null;
  const changes = changesBetween(await flattenTree(repo, parentTree), await flattenTree(repo, commit.tree));
  const { kept } = filterChanges(changes, paths, policy);
  return await renderDiff(repo, await withRenames(repo, kept, { "find-renames": 50 }), { algorithm, prefixes });
}

/** What a diff prints under a formatted commit: names, the stat, or the patch text (empty: nothing changed). */
export function diffBody(rendered: RenderedDiff, flags: ViewFlags & { patch?: boolean }): string {
  if (rendered.files.length === 0) return "";
  if (flags["name-only"] || flags["name-status"]) return viewOf(rendered, flags) ?? "";
  return flags.stat && !flags.patch ? renderStat(rendered) : rendered.patch;
}

export const log: Handler<typeof logFlags, readonly [{ name: "args"; description: string; variadic: true }]> = async (
  ctx,
) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const split = await splitRevsAndPaths(ctx, repo, ctx.positionals.args, 1);
  if (split.revs.length && ctx.flags.ref !== undefined) {
    throw new PtermError("InvalidArgs", `give the revision once: --ref ${ctx.flags.ref} or \`${split.revs[0]}\`.`);
  }
  const ref = split.revs[0] ?? ctx.flags.ref ?? "HEAD";
  if (ref === "HEAD" && !readHead(repo).oid) {
    ctx.stdout.write("No commits yet.\n");
    return { repo_path: rel, commits: [] };
  }
  // `a...b` in log is git's symmetric difference: what either side has and the other lacks (both
  // walked, their merge bases' history hidden); in diff it is the merge base against b (rangeEnds).
  const symmetric = ref.includes(":") ? null : ref.match(/^(.*?)\.\.\.(.*)$/);
  const ends = symmetric ? null : await rangeEnds(repo, ref);
  const explicit = split.revs.length > 0 || ctx.flags.ref !== undefined;
  const all = ctx.flags.all ? await allStarts(repo) : [];
  let start: string;
  let hide = new Set<string>();
  if (symmetric) {
    // Both sides walked, the left one first (git's order for commits of the same date).
    start = await resolveCommit(repo, symmetric[1] || "HEAD");
    const right = await resolveCommit(repo, symmetric[2] || "HEAD");
    all.push(right);
    for (const base of await mergeBases(repo, start, right)) {
      for (const oid of await ancestorsOf(repo, base)) hide.add(oid);
    }
  } else {
    // `--all` alone starts from the refs in git's order; a revision given with it comes first.
    start = all.length && !explicit ? all[0] : await resolveCommit(repo, ends ? ends[1] : ref);
    if (ends) hide = await ancestorsOf(repo, await resolveCommit(repo, ends[0]));
  }
  const paths = userPaths([...ctx.flags.path, ...split.paths]);
  if (ctx.flags["line-range"].length) {
    return await lineLevelLog(ctx, repo, policy, rel, { start, hide, paths, symmetric: symmetric !== null });
  }
  const keep = logFilter(repo, policy, paths, ctx.flags);
  const graph = ctx.flags.graph ? graphRefusal(keep !== undefined) : null;
  // Without -n git lists the whole history; the envelope's own bounds (head, tail, artifact) bound the text.
  const max = ctx.flags.max ?? Number.MAX_SAFE_INTEGER;
  const walk: { id: string; parents: string[]; treesame: boolean }[] = [];
  const listed = await walkLog(repo, start, graph ? Number.MAX_SAFE_INTEGER : max, paths.length ? paths : null, hide, {
    starts: all,
    keep,
    walked: walk,
  });
  // --graph implies git's --topo-order (no parent before all its children), over every commit walked;
  // the graph then joins each listed commit to its nearest listed ancestors (git's parent rewriting).
  const commits = graph ? graphOrder(listed, walk).slice(0, max) : listed;
  const names = ctx.flags["name-only"] || ctx.flags["name-status"];
  const withDiff = ctx.flags.stat || ctx.flags.patch || names;
  const algorithm = withDiff ? lineAlgorithm(repo, ctx.flags) : undefined;
  const prefixes = ctx.flags.patch && !names ? diffPrefixes(repo) : undefined;
  const pretty = await prettyOptions(repo, ctx.flags);
  const { format } = pretty;
  const lanes = graph ? new CommitGraph((oid) => !hide.has(oid)) : null;
  const userFormat = format.kind === "template" || format.name === "reference";
  const oneline = format.kind === "builtin" && format.name === "oneline";
  const terminated = terminatorFormat(format);
  // Each commit's text, then (with --stat/-p) its diff; a patch is kept as git's bytes (see below).
  const parts: (string | RenderedDiff)[] = [];
  const notUtf8 = new Set<string>();
  const otherFunctionLines = new Map<string, string>();
  let missingNewline = false;
  for (const [i, c] of commits.entries()) {
    // git's log-tree show_log: the separator before each commit but the first (separator formats,
    // with the graph's padding when the last entry ended its line), the graph down to the commit's
    // row, the `commit` line of the built-in formats, then the message beside the graph's rows.
    lanes?.update(c);
    if (i > 0 && !terminated) parts.push((lanes && !missingNewline ? lanes.paddingLine() : "") + "\n");
    if (lanes) parts.push(lanes.showCommit());
    // With --graph the parents are git's rewritten ones (%p, `Merge:`), as git shows them.
    const commit = graph ? { ...await readCommit(repo, c.id), parents: c.parents } : await readCommit(repo, c.id);
    const entry = prettyCommit(pretty, format, c.id, commit);
    let message = entry;
    if (!userFormat && !oneline) {
      const firstLine = entry.indexOf("\n") + 1;
      parts.push(entry.slice(0, firstLine) + (lanes ? lanes.nextLine().text : ""));
      message = entry.slice(firstLine);
    }
    missingNewline = !message.endsWith("\n");
    parts.push(lanes ? lanes.showMessage(message) : message);
    if (terminated) parts.push((lanes && !missingNewline ? lanes.paddingLine() : "") + "\n");
    // git log -p/--stat shows no diff for a merge (diff-merges is off by default).
    if (!withDiff || c.parents.length > 1) continue;
    const rendered = await commitDiff(repo, c.id, paths, policy, algorithm, prefixes);
    const body = diffBody(rendered, ctx.flags);
    if (body === "") continue;
    // Every line of the diff carries the graph's padding row (git's diff output prefix).
    const prefix = lanes ? lanes.paddingLine() : "";
    if (!oneline) parts.push(prefix + (ctx.flags.stat && ctx.flags.patch && !names ? "---\n" : "\n"));
    if (lanes) {
      const text = ctx.flags.patch && !names
        ? (ctx.flags.stat ? `${renderStat(rendered)}\n` : "") + rendered.patch
        : body;
      parts.push(
        text.split("\n").map((line, n, all) => n === all.length - 1 && line === "" ? "" : prefix + line)
          .join("\n"),
      );
      continue;
    }
    if (ctx.flags.patch && !names) {
      if (ctx.flags.stat) parts.push(`${renderStat(rendered)}\n`);
      parts.push(rendered);
      for (const path of rendered.notUtf8) notUtf8.add(path);
      for (const [path, driver] of rendered.otherFunctionLines) otherFunctionLines.set(path, driver);
    } else parts.push(body);
  }
  const text = parts.map((part) => typeof part === "string" ? part : part.patch).join("");
  // stdout is git's text, bounded by the envelope (head, tail); a log with patches longer than stdout
  // holds, or with a patch whose bytes are not UTF-8 (stdout cannot show them as they are), is also
  // saved with the patches as git's bytes, which `git apply` and `patch apply` read.
  const budget = Math.max(1024, ctx.limits.stdout_bytes - 512);
  if (notUtf8.size || (withDiff && text.length > budget)) {
    const bytes = concatBytes(parts.map((part) => typeof part === "string" ? encoder.encode(part) : part.patchBytes));
    const saved = await ctx.artifacts.save("log.txt", bytes, {
      mime: "text/plain",
      description: "the full log (patches as git's bytes)",
    });
    if (notUtf8.size) ctx.stderr.write(notUtf8Warning([...notUtf8].sort(), saved.path, repo.quotePath));
  }
  ctx.stdout.write(text);
  if (otherFunctionLines.size) ctx.stderr.write(functionLineNote(otherFunctionLines, repo.quotePath));
  return { repo_path: rel, commits };
};

type LogContext = Parameters<typeof log>[0];

/**
 * `git log -L`: the commits that changed the tracked lines, walking back from the one revision,
 * each formatted as log formats it and followed by git's diff of just those lines.
 */
async function lineLevelLog(
  ctx: LogContext,
  repo: Repo,
  policy: PathPolicy,
  rel: string,
  walk: { start: string; hide: Set<string>; paths: string[]; symmetric: boolean },
) {
  const flags = ctx.flags;
  // Each -L is read first (git parses them before it looks at the rest of the line).
  for (const arg of flags["line-range"]) splitLineRangeArg(arg);
  if (walk.paths.length) {
    throw new PtermError(
      "InvalidArgs",
      "-L<range>:<file> cannot be used with pathspec (as git): the file is named in -L, e.g. " +
        "`git log -L 1,5:src/util.py`.",
    );
  }
  const refused = [
    ["--all", flags.all],
    ["a...b", walk.symmetric],
    ["--graph", flags.graph],
    ["--stat", flags.stat],
    ["--name-only", flags["name-only"]],
    ["--name-status", flags["name-status"]],
    ["--since", flags.since !== undefined],
    ["-S", flags["pickaxe-string"] !== undefined],
    ["-G", flags["pickaxe-grep"] !== undefined],
  ].filter(([, given]) => given).map(([name]) => name);
  if (refused.length) {
    throw new PtermError(
      "InvalidArgs",
      `-L with ${refused.join(", ")} is not available in pterm; -L takes one revision (or a..b), -n, --author, ` +
        "--grep, --until and the --format/--oneline forms: `git log -L 1,5:src/util.py --oneline`.",
    );
  }
  const startCommit = await readCommit(repo, walk.start);
  const tracked = await parseLineRanges(flags["line-range"], async (path) => {
    if (policy.hidden(path)) {
      throw new PtermError("InvalidArgs", `-L ${path}: that path is withheld from agents in pterm.`);
    }
    const found = await lookupPath(repo, startCommit.tree, path);
    return found && found.mode !== "40000" ? await repo.objects.readTyped(found.oid, "blob") : null;
  }, async (path) => driverFunctionLines(repo, (await conversionFor(repo).plan(path)).diff));
  const walked: { id: string; parents: string[]; treesame: boolean }[] = [];
  await walkLog(repo, walk.start, Number.MAX_SAFE_INTEGER, null, walk.hide, { walked });
  const keep = logFilter(repo, policy, [], flags);
  const entries = await lineLog(repo, walk.start, tracked, walked, flags.max ?? Number.MAX_SAFE_INTEGER, keep);
  const pretty = await prettyOptions(repo, flags);
  const { format } = pretty;
  const terminated = terminatorFormat(format);
  const parts: Uint8Array[] = [];
  for (const [i, entry] of entries.entries()) {
    for (const file of entry.files) {
      if (policy.hidden(file.oldPath) || policy.hidden(file.newPath)) {
        throw new PtermError("InvalidArgs", `-L: the file's history passes through a path withheld from agents.`);
      }
    }
    const header = (i > 0 && !terminated ? "\n" : "") + prettyCommit(pretty, format, entry.id, entry.commit) +
      (terminated ? "\n" : "");
    parts.push(encoder.encode(header), renderLineLogDiff(entry.files));
  }
  ctx.stdout.write(new TextDecoder().decode(concatBytes(parts)));
  return { repo_path: rel, commits: entries.map((e) => describeCommit(e.id, e.commit)) };
}

/**
 * --graph with commit filters: git rewrites parents past the commits a filter leaves out in ways
 * pterm does not follow, so it refuses rather than draw lanes git would not.
 */
function graphRefusal(filtered: boolean): true {
  if (filtered) {
    throw new PtermError(
      "InvalidArgs",
      "--graph with --author, --grep, --since, --until, -S or -G is not available: run `git log --graph --oneline` " +
        "without them (paths are fine).",
    );
  }
  return true;
}

/**
 * The listed commits in git's graph order: the topological sort of every commit walked (with the
 * parents history simplification left them), keeping the listed ones, each parent rewritten as git's
 * rewrite_one does — past commits that did not touch the paths to the one they follow, dropped at a
 * root without them — and duplicates removed.
 */
function graphOrder(
  listed: readonly LogCommit[],
  walk: readonly { id: string; parents: string[]; treesame: boolean }[],
): LogCommit[] {
  const byId = new Map(listed.map((c) => [c.id, c]));
  const walkedById = new Map(walk.map((w) => [w.id, w]));
  const rewrite = (parent: string): string | null => {
    let at = parent;
    for (;;) {
      const step = walkedById.get(at);
      if (!step || !step.treesame) return at;
      if (!step.parents.length) return null;
      at = step.parents[0];
    }
  };
  const out: LogCommit[] = [];
  for (const w of topoOrder(walk)) {
    const commit = byId.get(w.id);
    if (!commit) continue;
    const parents = [...new Set(w.parents.map(rewrite).filter((p): p is string => p !== null))];
    out.push({ ...commit, parents });
  }
  return out;
}
