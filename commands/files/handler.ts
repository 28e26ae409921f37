/**
 * The read-only file commands' handlers: each turns its declaration's flags into the shared
 * readers in run/ (lines, listing, grep, count). Nothing here writes.
 */

import type { CommandContext } from "../../core/context.ts";
import { PtermError } from "../../core/errors.ts";
import { quoteWord } from "../../core/grammar.ts";
import { find as findFiles, glob as globFiles, ls as listFolders } from "./run/listing.ts";
import { grep as searchFiles, type GrepOptions } from "./run/grep.ts";
import { parseCount, parseLines, printLines } from "./run/lines.ts";
import { pwd as printRoot, wc as countFiles } from "./run/count.ts";
import { sedSelection } from "./spellings.ts";

type Ctx = CommandContext<Record<string, unknown>, Record<string, unknown>>;
type Result = Promise<Record<string, unknown>>;

const list = (
  value: unknown,
): string[] => (Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)]);
const flag = (ctx: Ctx, name: string) => ctx.flags[name] === true;

export const read = (ctx: Ctx): Result =>
  printLines(ctx, "read", [String(ctx.positionals.path)], parseLines("read", ctx.flags.lines as string | undefined), {
    numbers: flag(ctx, "numbers"),
  });

export const cat = (ctx: Ctx): Result =>
  printLines(ctx, "cat", list(ctx.positionals.files), { kind: "range", from: 1, to: Infinity }, {
    numbers: flag(ctx, "number"),
    stream: "text",
  });

export const head = (ctx: Ctx): Result => {
  const { sign, count } = parseCount("head", String(ctx.flags.lines), list(ctx.positionals.files));
  return printLines(
    ctx,
    "head",
    list(ctx.positionals.files),
    sign === "-" ? { kind: "allBut", count } : { kind: "range", from: 1, to: count },
    { headers: true },
  );
};

export const tail = (ctx: Ctx): Result => {
  const { sign, count } = parseCount("tail", String(ctx.flags.lines), list(ctx.positionals.files));
  return printLines(
    ctx,
    "tail",
    list(ctx.positionals.files),
    sign === "+" ? { kind: "range", from: Math.max(1, count), to: Infinity } : { kind: "last", count },
    { headers: true },
  );
};

export const sed = (ctx: Ctx): Result => {
  const selection = sedSelection(String(ctx.positionals.script));
  if (selection === null || !flag(ctx, "quiet")) {
    // The spellings rewriter refuses these before the handler runs; this keeps the handler honest alone.
    throw new PtermError("InvalidArgs", "sed: only `sed -n 'A,Bp' <file>` reads here; run `read <file> --lines A:B`.");
  }
  return printLines(ctx, "sed", list(ctx.positionals.files), selection, { stream: "lines" });
};

export const ls = (ctx: Ctx): Result =>
  listFolders(ctx, list(ctx.positionals.paths), {
    all: flag(ctx, "all"),
    almostAll: flag(ctx, "almost-all"),
    long: flag(ctx, "long"),
    human: flag(ctx, "human-readable"),
    time: flag(ctx, "time"),
    reverse: flag(ctx, "reverse"),
    directory: flag(ctx, "directory"),
  });

export const find = (ctx: Ctx): Result =>
  findFiles(ctx, list(ctx.positionals.starts), {
    name: ctx.flags.name as string | undefined,
    iname: ctx.flags.iname as string | undefined,
    path: ctx.flags.path as string | undefined,
    type: ctx.flags.type as string | undefined,
    maxdepth: ctx.flags.maxdepth as number | undefined,
    mindepth: ctx.flags.mindepth as number | undefined,
  });

export const glob = (ctx: Ctx): Result => globFiles(ctx, list(ctx.positionals.patterns));

/** The pattern(s) and paths of a grep-like line: `-e` patterns make every word a path. */
function patternsAndPaths(ctx: Ctx): { patterns: string[]; paths: string[] } {
  const given = list(ctx.flags.regexp);
  const words = list(ctx.positionals.args);
  if (given.length) return { patterns: given, paths: words };
  if (words.length === 0) {
    throw new PtermError("InvalidArgs", `${ctx.command}: missing <pattern>; e.g. \`${ctx.command} -n TODO .\`.`, {
      helpFor: ctx.command,
    });
  }
  return { patterns: [words[0]], paths: words.slice(1) };
}

function context(ctx: Ctx): { before: number; after: number } {
  const both = ctx.flags.context as number | undefined;
  return {
    before: (ctx.flags["before-context"] as number | undefined) ?? both ?? 0,
    after: (ctx.flags["after-context"] as number | undefined) ?? both ?? 0,
  };
}

export const grep = (ctx: Ctx): Result => {
  const { patterns, paths } = patternsAndPaths(ctx);
  const recursive = flag(ctx, "recursive") || flag(ctx, "dereference-recursive");
  if (paths.length === 0 && !recursive) {
    throw new PtermError(
      "InvalidArgs",
      `grep: name the file or folder to search (pterm has no pipe to read); e.g. \`grep -rn ${
        quoteWord(patterns[0])
      } .\`.`,
      { helpFor: "grep" },
    );
  }
  const syntax = flag(ctx, "fixed-strings")
    ? "fixed"
    : flag(ctx, "perl-regexp")
    ? "javascript"
    : flag(ctx, "extended-regexp")
    ? "extended"
    : "basic";
  const options: GrepOptions = {
    patterns,
    paths,
    syntax,
    recursive,
    ignoreCase: flag(ctx, "ignore-case"),
    word: flag(ctx, "word-regexp"),
    line: flag(ctx, "line-regexp"),
    lineNumbers: flag(ctx, "line-number"),
    filesWithMatches: flag(ctx, "files-with-matches"),
    filesWithoutMatch: flag(ctx, "files-without-match"),
    count: flag(ctx, "count"),
    invert: flag(ctx, "invert-match"),
    onlyMatching: flag(ctx, "only-matching"),
    quiet: flag(ctx, "quiet"),
    withFilename: flag(ctx, "with-filename") ? true : flag(ctx, "no-filename") ? false : undefined,
    ...context(ctx),
    maxCount: ctx.flags["max-count"] as number | undefined,
    include: list(ctx.flags.include),
    exclude: list(ctx.flags.exclude),
    excludeDir: list(ctx.flags["exclude-dir"]),
  };
  return searchFiles(ctx, "grep", options);
};

export const search = (ctx: Ctx): Result => {
  const { patterns, paths } = patternsAndPaths(ctx);
  return searchFiles(ctx, "search", {
    patterns,
    paths,
    syntax: flag(ctx, "fixed-strings") ? "fixed" : "javascript",
    recursive: true,
    ignoreCase: flag(ctx, "ignore-case"),
    word: flag(ctx, "word-regexp"),
    line: false,
    lineNumbers: !flag(ctx, "no-line-number"),
    filesWithMatches: flag(ctx, "files-with-matches"),
    filesWithoutMatch: false,
    count: flag(ctx, "count"),
    invert: flag(ctx, "invert-match"),
    onlyMatching: flag(ctx, "only-matching"),
    quiet: false,
    ...context(ctx),
    maxCount: ctx.flags["max-count"] as number | undefined,
    include: [],
    exclude: [],
    excludeDir: [],
    ripgrep: { globs: list(ctx.flags.glob), hidden: flag(ctx, "hidden"), noIgnore: flag(ctx, "no-ignore") },
  });
};

export const wc = (ctx: Ctx): Result =>
  countFiles(ctx, list(ctx.positionals.files), {
    lines: flag(ctx, "lines"),
    words: flag(ctx, "words"),
    bytes: flag(ctx, "bytes"),
    chars: flag(ctx, "chars"),
  });

export const pwd = (ctx: Ctx): Result => printRoot(ctx);
