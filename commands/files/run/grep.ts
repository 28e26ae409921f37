/**
 * `grep` (GNU grep's output and exit status) and `search` (ripgrep's defaults: recursive, line
 * numbers, hidden and ignored files skipped, binary files skipped when walking): one matcher,
 * one printer, two ways of choosing files.
 */

import type { CommandContext } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import { quoteWord } from "../../../core/grammar.ts";
import { join } from "../../../core/fs/path.ts";
import { type Entry, listFolder, loadText, named } from "../visible.ts";
import { nameMatcher } from "./glob.ts";
import { IgnoreStack } from "./ignore.ts";
import { compile, type MatchOptions } from "./regex.ts";

export interface GrepOptions extends MatchOptions {
  readonly patterns: readonly string[];
  readonly paths: readonly string[];
  readonly recursive: boolean;
  readonly lineNumbers: boolean;
  readonly filesWithMatches: boolean;
  readonly filesWithoutMatch: boolean;
  readonly count: boolean;
  readonly invert: boolean;
  readonly onlyMatching: boolean;
  readonly quiet: boolean;
  readonly withFilename?: boolean;
  readonly before: number;
  readonly after: number;
  readonly maxCount?: number;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  readonly excludeDir: readonly string[];
  /** ripgrep's ways: `--glob`s, ignore files, hidden files, silent binary skips, no zero counts. */
  readonly ripgrep?: { readonly globs: readonly string[]; readonly hidden: boolean; readonly noIgnore: boolean };
}

interface Target {
  /** How the file is named in output. */
  readonly shown: string;
  readonly abs: string;
  /** Met by the walk rather than named on the line. */
  readonly walked: boolean;
}

/** Joins a named folder and a path below it the way grep and ripgrep print it. */
function shownBelow(operand: string | null, below: string): string {
  if (operand === null) return below;
  return operand.endsWith("/") ? operand + below : `${operand}/${below}`;
}

function* walkFiles(ctx: CommandContext, operand: string | null, options: GrepOptions): Generator<Target> {
  const root = ctx.workspace.root;
  const start = named(root, operand ?? ".", options.ripgrep ? "search" : "grep");
  const includes = options.include.map((g) => nameMatcher(g));
  const excludes = options.exclude.map((g) => nameMatcher(g));
  const excludeDirs = options.excludeDir.map((g) => nameMatcher(g));
  const rg = options.ripgrep;
  const globs = (rg?.globs ?? []).map((g) => ({
    negated: g.startsWith("!"),
    match: nameMatcher(g.replace(/^!/, "").replace(/^\*\*\//, "")),
  }));
  const read = (abs: string) => {
    try {
      return Deno.readTextFileSync(abs);
    } catch {
      return null;
    }
  };
  function* visit(rel: string, abs: string, stack: IgnoreStack): Generator<Target> {
    const here = rg && !rg.noIgnore ? stack.enter(rel, abs, read) : stack;
    for (const entry of listFolder(root, rel, abs) as Entry[]) {
      // Both tools leave symlinks alone while walking (grep -r, rg without -L).
      if (entry.info.isSymlink) continue;
      const below = start.rel === "." ? entry.rel : entry.rel.slice(start.rel.length + 1);
      if (rg) {
        if (!rg.hidden && entry.name.startsWith(".")) continue;
        if (!rg.noIgnore && here.ignored(entry.rel, entry.info.isDirectory)) continue;
      }
      if (entry.info.isDirectory) {
        if (excludeDirs.some((m) => m(entry.name))) continue;
        yield* visit(entry.rel, entry.abs, here);
        continue;
      }
      if (!entry.info.isFile) continue;
      if (includes.length && !includes.some((m) => m(entry.name))) continue;
      if (excludes.some((m) => m(entry.name))) continue;
      if (globs.length) {
        const positive = globs.filter((g) => !g.negated);
        if (positive.length && !positive.some((g) => g.match(entry.name))) continue;
        if (globs.some((g) => g.negated && g.match(entry.name))) continue;
      }
      yield { shown: shownBelow(operand, below), abs: entry.abs, walked: true };
    }
  }
  // As ripgrep does, the ignore files of the folders above the start apply too (up to the root).
  let stack = new IgnoreStack();
  if (rg && !rg.noIgnore && start.rel !== ".") {
    const parts = start.rel.split("/");
    for (let depth = 0; depth < parts.length; depth++) {
      const rel = depth === 0 ? "." : parts.slice(0, depth).join("/");
      stack = stack.enter(rel, depth === 0 ? root : join(root, ...parts.slice(0, depth)), read);
    }
  }
  yield* visit(start.rel, start.abs, stack);
}

/** Runs the search; writes what the tool prints, returns the counts, throws NoMatch when nothing was selected. */
export function grep(ctx: CommandContext, command: string, options: GrepOptions): Promise<Record<string, unknown>> {
  const rg = options.ripgrep;
  let regex: RegExp;
  try {
    regex = compile(options.patterns, options);
  } catch (error) {
    throw new PtermError(
      "InvalidArgs",
      `${command}: invalid regular expression ${options.patterns.map(quoteWord).join(" ")} (${
        (error as Error).message
      }); for a literal text add -F: \`${
        [command, "-F", ...options.patterns.flatMap((p) => ["-e", quoteWord(p)]), ...options.paths.map(quoteWord)].join(
          " ",
        )
      }\`.`,
      { helpFor: command },
    );
  }
  const problems: PtermError[] = [];
  const operands: (string | null)[] = options.paths.length ? [...options.paths] : [options.recursive ? null : "."];
  const targets: Target[] = [];
  for (const operand of operands) {
    let item;
    try {
      item = named(ctx.workspace.root, operand ?? ".", command);
    } catch (error) {
      if (!(error instanceof PtermError)) throw error;
      problems.push(error);
      continue;
    }
    if (item.info.isDirectory) {
      if (!options.recursive) {
        const line = [command, "-r", ...options.patterns.map((p) => quoteWord(p)), quoteWord(operand ?? ".")].join(" ");
        problems.push(
          new PtermError("InvalidArgs", `${command}: ${operand}: Is a directory; search inside it with \`${line}\`.`),
        );
        continue;
      }
      for (const target of walkFiles(ctx, operand, options)) targets.push(target);
    } else targets.push({ shown: operand ?? ".", abs: item.abs, walked: false });
  }
  const withFilename = options.withFilename ??
    (operands.length > 1 || (options.recursive && targets.some((t) => t.walked)));
  const contextual = options.before > 0 || options.after > 0;
  const out: string[] = [];
  let printedGroups = 0;
  let selectedFiles = 0;
  let selectedLines = 0;
  for (const target of targets) {
    ctx.signal.throwIfAborted();
    let loaded;
    try {
      loaded = loadText(target.abs, target.shown, command);
    } catch (error) {
      // A file too large to load is passed by while walking (said in stderr); named, it fails the call.
      if (!(error instanceof PtermError && error.code === "InputTooLarge" && target.walked)) throw error;
      ctx.stderr.write(`${command}: ${target.shown}: skipped, larger than a search loads\n`);
      continue;
    }
    const { text, binary } = loaded;
    if (binary && rg && target.walked) continue;
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    const selected: number[] = [];
    for (let i = 0; i < lines.length; i++) {
      regex.lastIndex = 0;
      if (regex.test(lines[i]) !== options.invert) {
        selected.push(i);
        if (options.maxCount !== undefined && selected.length >= options.maxCount) break;
      }
    }
    const name = withFilename ? target.shown : null;
    if (selected.length) selectedFiles++;
    selectedLines += selected.length;
    if (options.quiet) continue;
    if (options.filesWithMatches || options.filesWithoutMatch) {
      if ((selected.length > 0) === options.filesWithMatches) out.push(`${target.shown}\n`);
      continue;
    }
    if (options.count) {
      if (!(rg && selected.length === 0)) out.push(`${name !== null ? `${name}:` : ""}${selected.length}\n`);
      continue;
    }
    if (selected.length === 0) continue;
    if (binary) {
      if (rg) {
        out.push(`binary file matches (found "\\0" byte around offset ${new TextEncoder().encode(text).indexOf(0)})\n`);
      } else ctx.stderr.write(`grep: ${target.shown}: binary file matches\n`);
      continue;
    }
    const prefix = (index: number, separator: string) =>
      (name !== null ? `${name}${separator}` : "") + (options.lineNumbers ? `${index + 1}${separator}` : "");
    if (options.onlyMatching) {
      if (options.invert) continue;
      for (const index of selected) {
        regex.lastIndex = 0;
        for (const match of lines[index].matchAll(regex)) {
          if (match[0] !== "") out.push(`${prefix(index, ":")}${match[0]}\n`);
        }
      }
      continue;
    }
    // Selected lines with their context, in groups; `--` between groups, across files too.
    const isSelected = new Set(selected);
    const lastSelected = selected[selected.length - 1];
    let printedUpTo = -1;
    for (const index of selected) {
      const from = Math.max(index - options.before, printedUpTo + 1);
      if (contextual && printedGroups > 0 && from > printedUpTo + 1) out.push("--\n");
      if (contextual && printedGroups > 0 && printedUpTo === -1 && from === 0) out.push("--\n");
      for (let i = from; i <= index; i++) {
        out.push(`${prefix(i, isSelected.has(i) ? ":" : "-")}${lines[i]}\n`);
      }
      printedUpTo = index;
      printedGroups++;
      const until = Math.min(lines.length - 1, index + options.after);
      for (let i = index + 1; i <= until; i++) {
        if (isSelected.has(i) && !(options.maxCount !== undefined && i > lastSelected)) break;
        out.push(`${prefix(i, isSelected.has(i) ? ":" : "-")}${lines[i]}\n`);
        printedUpTo = i;
      }
    }
  }
  ctx.stdout.write(out.join(""));
  if (problems.length) throw problems[0];
  if (rg && targets.length === 0 && options.paths.length === 0) {
    // ripgrep's answer when its filters left nothing of the folder it searches by default: an error
    // (exit 2), not "no match". A folder named on the line that holds nothing searchable is "no match".
    throw new PtermError(
      "InvalidArgs",
      `${command}: no files were searched: every file here is hidden or ignored (.gitignore, .ignore, .rgignore). ` +
        `Name a file, or search everything with \`grep -rn ${options.patterns.map(quoteWord).join(" ")} .\`.`,
    );
  }
  const success = options.filesWithoutMatch ? targets.length > selectedFiles : selectedLines > 0;
  if (!success) {
    throw new PtermError(
      "NoMatch",
      `${command}: no line matches ${options.patterns.map(quoteWord).join(" ")} in ${targets.length} file(s).`,
    );
  }
  return Promise.resolve({
    files_searched: targets.length,
    files_matched: selectedFiles,
    lines_matched: selectedLines,
  });
}
