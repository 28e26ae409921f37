/**
 * `gitApply`: `git apply` as a spelling of the patch engine (commands/patch) in its strict mode —
 * git apply's placement, checks and messages, all files or none, no commit (its declaration is
 * sub/apply.ts).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { applyFlags } from "../sub/apply.ts";
import { bareMessage, type Problem } from "../../patch/errors.ts";
import type { GitSaid } from "../../patch/ops.ts";
import { type FileDiff, parseDiff, reversedDiff } from "../../patch/diff.ts";
import { decodeLossless } from "../../patch/text.ts";
import type { GitApplyMode } from "../../patch/view.ts";
import { comparePaths, encoder, lenientDecoder, quoteName } from "../odb/bytes.ts";
import { quoteWord } from "../../../core/grammar.ts";
import { openFromFlags } from "./common.ts";

export const gitApply: Handler<
  typeof applyFlags,
  readonly [{ name: "patches"; variadic: true; into: "patch-file"; description: string }]
> = async (ctx) => {
  const { rel, repo } = await openFromFlags(ctx, "write");
  const text = await diffText(ctx, rel);
  const mode: GitApplyMode = {
    strip: ctx.flags.strip ?? 1,
    reverse: ctx.flags.reverse === true,
    unidiffZero: ctx.flags["unidiff-zero"] === true,
    // --3way works on the index too (it reads the preimage from the repository and records
    // conflicts there): it implies --index unless --cached keeps to the index alone.
    index: ctx.flags.index === true || (ctx.flags["3way"] === true && ctx.flags.cached !== true),
    cached: ctx.flags.cached === true,
    threeway: ctx.flags["3way"] === true,
  };
  if (text.trim() === "") {
    ctx.stderr.write('error: No valid patches in input (allow with "--allow-empty")\n');
    throw new PtermError("PatchParseError", "git apply got no diff: send it on stdin or name the diff file.");
  }
  const unreadable = notADiff(text);
  if (unreadable !== null) {
    ctx.stderr.write(`error: ${unreadable}\n`);
    throw new PtermError(
      "PatchParseError",
      "git apply: the input is not a diff git can read (git's reason above); nothing was written.",
      {
        hint: "A diff names its files before its hunks (`diff --git a/<path> b/<path>`, `--- a/<path>`, " +
          "`+++ b/<path>`, then `@@ -N,M +N,M @@`): send the whole of what `git diff` printed, on stdin. " +
          "`git apply --help` lists the flags.",
      },
    );
  }
  if (ctx.flags.stat || ctx.flags.numstat) {
    const files = filesOf(text, mode);
    const out = ctx.flags.numstat ? numstat(files, repo.quotePath) : diffstat(files, repo.quotePath);
    ctx.stdout.write(out);
    return { repo_path: rel, applied: false, checked: false, files: files.map(fileSummary) };
  }
  const check = ctx.flags.check === true;
  // git apply warns of whitespace errors in the lines it adds when it applies (not for --check).
  const whitespace = check ? null : whitespaceErrors(text, mode, named(ctx) ?? "<stdin>");
  const { runPatch } = await import("../../patch/engine.ts");
  let files: string[];
  let conflicts: string[];
  /** --3way's `U <path>` lines for the files it left with conflicts (git's write_out_results; not with --check). */
  const unmerged = (paths: readonly string[]) =>
    check ? "" : [...paths].sort(comparePaths).map((path) => `U ${path}\n`).join("");
  try {
    const result = await runPatch({
      mode: check ? "check" : "apply",
      command: "git apply",
      text: `=== git.diff: "." ===\n${text}${text.endsWith("\n") ? "" : "\n"}=== end ===\n=== PATCH EOF ===\n`,
      workspace: ctx.workspace,
      repoFlag: rel,
      noCommit: true,
      noCommitReason: "format",
      gitApply: mode,
      config: {},
      session: ctx.session,
      runId: ctx.runId,
      signal: ctx.signal,
      git: await import("../api.ts"),
    });
    files = result.files_changed.map((f) => f.path);
    conflicts = result.blocks.flatMap((b) => b.git_conflicts ?? []);
    // Blank lines added at the end of a file are an error only where the hunk did end the file.
    const endingFile = new Set(
      result.blocks.flatMap((b) => b.hunks ?? []).filter((h) => h.ends_file).map((h) => h.patch_line! - 1),
    );
    const said = result.blocks.flatMap((b) => b.git_stderr ?? []).map((s) => ({ ...s, at: s.at - 1 }));
    ctx.stderr.write(
      whitespace
        ? whitespace.report(endingFile, said, unmerged(conflicts))
        : said.map((s) => `${s.text}\n`).join("") + unmerged(conflicts),
    );
  } catch (error) {
    const said = gitErrorsOf(error);
    if (said.length === 0) {
      if (whitespace) ctx.stderr.write(whitespace.report(null));
      throw ownRefusal(error, rel, check);
    }
    const transcript = gitStderrOf(error);
    if (whitespace && transcript) {
      // git's warnings, its blank lines at the end of the files that applied among what it said of each
      // file, as it went; no counts (git stops before them when a file does not apply).
      const endingFile = new Set(gitDetailsOf<number>(error, "git_hunks_ending_file").map((line) => line - 1));
      ctx.stderr.write(whitespace.report(endingFile, transcript.map((s) => ({ ...s, at: s.at - 1 })), "", false));
    } else {
      if (whitespace) ctx.stderr.write(whitespace.report(null));
      ctx.stderr.write(
        transcript ? transcript.map((s) => `${s.text}\n`).join("") : said.map((line) => `error: ${line}\n`).join(""),
      );
    }
    throw new PtermError(
      (error as PtermError).code,
      `git apply: the diff does not apply (git's reasons above); nothing was written${
        check ? " (--check writes nothing anyway)" : ""
      }.`,
      { result: { repo_path: rel, applied: false, checked: check, errors: said }, hint: refusalHint(said) },
    );
  }
  const fields = { repo_path: rel, applied: !check, checked: check, files: files.map((path) => ({ path })) };
  if (conflicts.length > 0 && !check) {
    // git names each conflicted file (above, sorted) and exits 1: the merge is there to finish.
    throw new PtermError(
      "Conflict",
      `git apply --3way: the diff was applied, but merging it conflicted in ${conflicts.join(", ")}; those files ` +
        "contain conflict markers and the index holds their three versions (`git diff` shows them). Edit the " +
        `markers away, then \`git add ${rel === "." ? "" : `--repo ${quoteWord(rel)} `}${
          conflicts.map((path) => quoteWord(path)).join(" ")
        }\`.`,
      {
        result: { ...fields, conflicts },
        hint: "Nothing more is needed from git apply: the merge is in the files. Resolve each one as above; " +
          "`git checkout --theirs <file>` (or `git checkout --ours <file>`) takes one side whole before the " +
          "`git add`. `git apply --help` lists the flags.",
      },
    );
  }
  return { ...fields, ...(ctx.flags["3way"] ? { conflicts: check ? conflicts : [] } : {}) };
};

/**
 * git apply's words for input it cannot read as a diff at all, or null: a hunk before any file
 * header (`patch fragment without header at line N: <line>`), or nothing that starts a diff.
 */
function notADiff(text: string): string | null {
  const lines = text.split("\n");
  for (const [i, line] of lines.entries()) {
    if (/^(diff --git |--- |\+\+\+ |GIT binary patch$)/.test(line)) return null;
    if (/^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/.test(line)) return `patch fragment without header at line ${i + 1}: ${line}`;
  }
  return 'No valid patches in input (allow with "--allow-empty")';
}

/**
 * What to do about git's `error:` lines (the data is wrong, not the flags, so not `--help`): each
 * kind named once, in the order git said them.
 */
function refusalHint(said: readonly string[]): string {
  const kinds = new Set<string>();
  for (const line of said) {
    if (/^patch failed: |: patch does not apply$/.test(line)) {
      kinds.add(
        "The files are not what the diff was made from: read them as they are now (`git diff`, `cat <file>`) and " +
          "make the diff again against them, or add --3way when its `index` lines name blobs the repository has.",
      );
    } else if (/: does not match index$/.test(line)) {
      kinds.add("A file differs from its index entry: stage it first (`git add <file>`), or apply without --index.");
    } else if (/: (does not exist in index|No such file or directory)$/.test(line)) {
      kinds.add("A file the diff edits is not there (`git status` shows what is): apply the diff where it was made.");
    } else if (/: already exists in (working directory|index)$/.test(line)) {
      kinds.add("A file the diff creates is already there: move it away, or make the diff against it.");
    }
  }
  kinds.add(
    "`git apply --check`, with the diff on stdin, tries it again without writing anything; `git apply --help` " +
      "lists the flags.",
  );
  return [...kinds].join(" ");
}

/**
 * A refusal of pterm's own (a path rule, a filter pterm cannot run, a diff it cannot read) in git
 * apply's terms: the diff reaches the engine as one `git.diff` block the person never wrote, so the
 * message names the problem and its line in the diff, not the block.
 */
function ownRefusal(error: unknown, rel: string, check: boolean): unknown {
  if (!(error instanceof PtermError)) return error;
  const problems = (error.result?.problems ?? []) as Problem[];
  if (problems.length === 0) return error;
  // The block's header is the engine's line 1: the diff's own lines start at its line 2.
  const text = problems.map((p) =>
    `${bareMessage(p)}${p.patch_line !== null && p.patch_line > 1 ? ` (line ${p.patch_line - 1} of the diff)` : ""}`
  ).join("; ");
  return new PtermError(problems[0].code, `git apply: ${text}`, {
    result: { ...error.result, repo_path: rel, applied: false, checked: check },
    helpFor: error.helpFor,
    hint: error.hint,
  });
}

/** The name git apply gives the patch in its warnings: the file named, else `<stdin>`. */
function named(ctx: Parameters<typeof gitApply>[0]): string | null {
  const files = ctx.flags["patch-file"] ?? [];
  return files.length > 0 ? files[files.length - 1] : null;
}

/** How many whitespace errors git apply reports one by one before it only counts them. */
const SQUELCH = 5;

/**
 * git apply's whitespace warnings under its default rules (core.whitespace's blank-at-eol,
 * space-before-tab and blank-at-eof; apply.c's check_whitespace and ws.c's ws_check): for each line
 * the diff adds (its `-` lines with -R), `<patch>:<line>: trailing whitespace.` or `space before tab
 * in indent.` and the line; `new blank line at EOF.` for blank lines a hunk that ends the file adds
 * last; the first five in full, then `warning: squelched N whitespace errors`, and the count.
 */
function whitespaceErrors(
  text: string,
  mode: GitApplyMode,
  patchName: string,
): {
  report(
    endingFile: ReadonlySet<number> | null,
    during?: readonly GitSaid[],
    written?: string,
    finished?: boolean,
  ): string;
} {
  const added = mode.reverse ? "-" : "+";
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const errors: { line: number; what: string; text: string }[] = [];
  /** Blank lines each hunk adds last: the hunk's `@@` line in the text, the first blank's line number. */
  const atEof: { header: number; line: number }[] = [];
  let header = 0;
  let oldLeft = 0;
  let newLeft = 0;
  let blankRun: number | null = null;
  const endHunk = () => {
    if (blankRun !== null) atEof.push({ header, line: blankRun });
    blankRun = null;
  };
  // git counts patch lines as it parses them, and the `\ No newline at end of file` after a hunk's
  // last line is taken in with that line, uncounted: later line numbers are one less for each.
  let uncounted = 0;
  let hunkJustEnded = false;
  // A file whose old side has CRLF lines may add them: from the first such line on, git takes a
  // `\r` at the end of a line for its line ending (cr-at-eol), not for trailing whitespace.
  let crAtEol = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const lineNo = i + 1 - uncounted;
    if (oldLeft <= 0 && newLeft <= 0) {
      if (hunkJustEnded && line.startsWith("\\")) uncounted++;
      hunkJustEnded = false;
      // A new file's diff: its own rules.
      if (line.startsWith("diff --git ") || line.startsWith("--- ")) crAtEol = false;
      const counts = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
      if (!counts) continue;
      oldLeft = counts[1] === undefined ? 1 : Number(counts[1]);
      newLeft = counts[2] === undefined ? 1 : Number(counts[2]);
      if (mode.reverse) [oldLeft, newLeft] = [newLeft, oldLeft];
      blankRun = null;
      header = i + 1;
      if (oldLeft <= 0 && newLeft <= 0) endHunk();
      continue;
    }
    if (line.startsWith("\\")) continue;
    const kind = line === "" ? " " : line[0];
    const body = line.slice(1);
    if ((kind === " " || kind !== added) && line.endsWith("\r")) crAtEol = true;
    // A run of blank lines a hunk adds goes on through blank context lines, and ends at any other.
    const blank = /^[ \t\r\v\f]*$/.test(body);
    if (kind === " ") {
      oldLeft--;
      newLeft--;
      if (!blank) blankRun = null;
    } else if (kind === added) {
      mode.reverse ? oldLeft-- : newLeft--;
      const what = whitespaceError(crAtEol ? body.replace(/\r$/, "") : body);
      if (what) errors.push({ line: lineNo, what, text: body });
      // Blank as C's isspace has it (no Unicode spaces).
      if (blank) blankRun ??= lineNo;
      else blankRun = null;
    } else if (kind === (mode.reverse ? "+" : "-")) {
      mode.reverse ? newLeft-- : oldLeft--;
      blankRun = null;
    } else {
      oldLeft = newLeft = 0;
    }
    if (oldLeft <= 0 && newLeft <= 0) {
      endHunk();
      hunkJustEnded = true;
    }
  }
  return {
    // The per-line warnings (git's, as it reads the diff), then what was said `during` the
    // application (--3way's merges, the files that do not apply) with (`endingFile` holds the hunks
    // that ended their file) the blank lines each file's hunks added at its end as git applies that
    // file — before its `Applied patch` line, else after what was said of it —, then what was said
    // as the files were `written` (--3way's conflicts), then the counts (not when it is not
    // `finished`: a file did not apply).
    report(endingFile, during = [], written = "", finished = true) {
      const eof = endingFile === null ? [] : atEof.filter((e) => endingFile.has(e.header));
      const all = [...errors, ...eof.map((e) => ({ line: e.line, what: "new blank line at EOF", text: "+" }))];
      const shown = (endingFile === null ? errors : all).slice(0, SQUELCH);
      const warned = (e: { line: number; what: string; text: string }) =>
        `${patchName}:${e.line}: ${e.what}.\n${e.text}\n`;
      const lineWise = Math.min(errors.length, SQUELCH);
      let out = shown.slice(0, lineWise).map(warned).join("");
      const texts = during.map((s) => `${s.text}\n`);
      const last: string[] = [];
      shown.slice(lineWise).forEach((e, k) => {
        const header = eof[k].header;
        const owner = Math.max(-1, ...during.filter((s) => s.at <= header).map((s) => s.at));
        const applied = during.findIndex((s) => s.at === owner && s.text.startsWith("Applied patch to "));
        const after = during.findLastIndex((s) => s.at === owner);
        if (applied >= 0) texts[applied] = warned(e) + texts[applied];
        else if (after >= 0) texts[after] += warned(e);
        else last.push(warned(e));
      });
      out += texts.join("") + last.join("");
      if (endingFile === null || !finished) return out;
      out += written;
      if (all.length > SQUELCH) {
        const squelched = all.length - SQUELCH;
        out += `warning: squelched ${squelched} whitespace error${squelched === 1 ? "" : "s"}\n`;
      }
      if (all.length > 0) {
        out += all.length === 1
          ? "warning: 1 line adds whitespace errors.\n"
          : `warning: ${all.length} lines add whitespace errors.\n`;
      }
      return out;
    },
  };
}

/** ws.c's verdict on one added line (without its newline) under git's default rules, or null. */
function whitespaceError(line: string): string | null {
  const found: string[] = [];
  const indent = /^[ \t]*/.exec(line)![0];
  if (indent.includes(" \t")) found.push("space before tab in indent");
  if (/[ \t\r\v\f]$/.test(line)) found.unshift("trailing whitespace");
  return found.length ? found.join(", ") : null;
}

/**
 * The diff: the named files one after the other (relative to the repository), else the call's
 * stdin; bytes kept as they are.
 */
async function diffText(ctx: Parameters<typeof gitApply>[0], repoRel: string): Promise<string> {
  const named = ctx.flags["patch-file"] ?? [];
  if (named.length === 0) return ctx.stdinBytes ? decodeLossless(ctx.stdinBytes) : ctx.stdin ?? "";
  let text = "";
  for (const path of named) {
    // Relative to the repository, as git reads it in the repository (`git -C <repository> apply <file>`).
    if (repoRel !== "." && (path.startsWith("/") || path.split("/").includes(".."))) {
      // No path leaves where it is read; a diff kept elsewhere in the workspace comes in on stdin.
      throw new PtermError(
        "PathEscape",
        `git apply: the diff file \`${path}\` is read in the repository ${repoRel}, and a path may not leave it ` +
          `(no .. segment, not absolute). Send the diff on stdin instead: \`git apply --repo ${repoRel}\` with the ` +
          `diff's text as the call's stdin — or move the file into ${repoRel}.`,
      );
    }
    const given = repoRel === "." || path.startsWith("/") ? path : `${repoRel}/${path}`;
    const file = await ctx.workspace.resolve(given, "read", { label: "the diff file" });
    if (!file.exists) {
      ctx.stderr.write(`error: can't open patch '${path}': No such file or directory\n`);
      throw new PtermError("NotFound", `git apply: the diff file \`${path}\` does not exist.`);
    }
    if ((await Deno.stat(file.abs)).isDirectory) {
      ctx.stderr.write("error: git apply: failed to read: Is a directory\n");
      throw new PtermError(
        "InvalidArgs",
        `git apply: \`${path}\` is a folder, not a diff file; name the diff's file, or give the diff on stdin.`,
      );
    }
    text += decodeLossless(await Deno.readFile(file.abs));
  }
  return text;
}

/** Everything git apply said on stderr before it gave up (with --3way: its merges too), or null. */
function gitStderrOf(error: unknown): GitSaid[] | null {
  const lines = gitDetailsOf<GitSaid>(error, "git_stderr");
  return lines.length > 0 ? lines : null;
}

/** git apply's own `error:` lines, which the strict engine attaches to the problems it reports. */
function gitErrorsOf(error: unknown): string[] {
  return gitDetailsOf<string>(error, "git_errors");
}

/** One of the lists the strict engine attaches to the problems of a failed apply, all problems' together. */
function gitDetailsOf<T>(error: unknown, key: "git_stderr" | "git_errors" | "git_hunks_ending_file"): T[] {
  if (!(error instanceof PtermError)) return [];
  const problems = (error.result?.problems ?? []) as Problem[];
  return problems.flatMap((p) => (p.details?.[key] as T[] | undefined) ?? []);
}

/** The diff's files as git apply reads them (-p, -R), for --stat and --numstat. */
function filesOf(text: string, mode: GitApplyMode): FileDiff[] {
  const lines = text.replace(/\n$/, "").split("\n");
  let files: FileDiff[];
  try {
    files = parseDiff(lines, 1, { strip: mode.strip });
  } catch (error) {
    throw new PtermError("PatchParseError", `git apply: ${(error as Error).message}`);
  }
  if (!mode.reverse) return files;
  // -R: last file first, as git apply lists them (it puts each file it parses before the others).
  return files.reverse().map((file) => reversedDiff(file) ?? file);
}

interface Counted {
  readonly name: string;
  readonly binary: boolean;
  readonly added: number;
  readonly removed: number;
}

function counted(file: FileDiff): Counted {
  const lines = file.hunks.flatMap((h) => h.lines);
  return {
    name: file.newPath ?? file.oldPath ?? "",
    binary: file.binary,
    added: file.binary ? 0 : lines.filter((l) => l.kind === "+").length,
    removed: file.binary ? 0 : lines.filter((l) => l.kind === "-").length,
  };
}

function fileSummary(file: FileDiff) {
  const c = counted(file);
  return { path: c.name, added: c.binary ? null : c.added, removed: c.binary ? null : c.removed };
}

/** `git apply --numstat`: added, removed, name (`-` and `-` for a binary file). */
function numstat(files: readonly FileDiff[], quotePath: boolean): string {
  return files.map(counted).map((c) =>
    `${c.binary ? "-\t-" : `${c.added}\t${c.removed}`}\t${quoteName(c.name, quotePath)}\n`
  )
    .join("");
}

const PLUSES = "+".repeat(70);
const MINUSES = "-".repeat(70);

/**
 * `git apply --stat`: git's diffstat (apply.c's show_stats and print_stat_summary), names as git quotes
 * them, measured, cut and padded in bytes as apply.c does (printf's `%-*s`), not in columns as diff's.
 */
function diffstat(files: readonly FileDiff[], quotePath: boolean): string {
  const rows = files.map(counted);
  const size = (text: string) => encoder.encode(text).length;
  const pad = (text: string, width: number) => text + " ".repeat(Math.max(0, width - size(text)));
  let maxLen = 0;
  let maxChange = 0;
  for (const file of files) {
    for (const name of [file.oldPath, file.newPath]) {
      if (name !== null) maxLen = Math.max(maxLen, size(quoteName(name, quotePath)));
    }
  }
  for (const c of rows) maxChange = Math.max(maxChange, c.added + c.removed);
  const width = Math.min(maxLen, 50);
  let out = "";
  for (const c of rows) {
    let name = quoteName(c.name, quotePath);
    const bytes = encoder.encode(name);
    if (bytes.length > width) {
      const start = bytes.length + 3 - width;
      const slash = bytes.indexOf(0x2f, start);
      name = "..." + lenientDecoder.decode(bytes.subarray(slash >= 0 ? slash : start));
    }
    if (c.binary) {
      out += ` ${pad(name, width)} |  Bin\n`;
      continue;
    }
    const room = width + maxChange > 70 ? 70 - width : maxChange;
    let add = c.added;
    let del = c.removed;
    if (maxChange > 0) {
      const total = Math.floor(((c.added + c.removed) * room + Math.floor(maxChange / 2)) / maxChange);
      add = Math.floor((c.added * room + Math.floor(maxChange / 2)) / maxChange);
      del = total - add;
    }
    out += ` ${pad(name, width)} |${String(c.added + c.removed).padStart(5)} ${PLUSES.slice(0, add)}${
      MINUSES.slice(0, del)
    }\n`;
  }
  const insertions = rows.reduce((n, c) => n + c.added, 0);
  const deletions = rows.reduce((n, c) => n + c.removed, 0);
  if (rows.length === 0) return out + " 0 files changed\n";
  let summary = ` ${rows.length} file${rows.length === 1 ? "" : "s"} changed`;
  if (insertions || !deletions) summary += `, ${insertions} insertion${insertions === 1 ? "" : "s"}(+)`;
  if (deletions || !insertions) summary += `, ${deletions} deletion${deletions === 1 ? "" : "s"}(-)`;
  return out + summary + "\n";
}
