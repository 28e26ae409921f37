/**
 * `git.diff`: unified diffs as `git diff` writes them, and as models write them.
 *
 * What we took from the reference tools and what we do differently:
 * - openai/codex `apply-patch` (`seek_sequence`) relaxes matching in passes (exact, trailing
 *   whitespace, all surrounding whitespace, Unicode punctuation) but returns the *first*
 *   position that matches, scanning forward from a cursor: a hunk whose context repeats in the
 *   file lands on whichever copy comes first. It also has no fuzz for changed context lines.
 * - aider's search/replace (`search_replace.py`) replaces *every* occurrence of the search
 *   text (its uniqueness check is commented out) and falls back to diff-match-patch fuzzy
 *   matching, whose threshold applies to the whole text — removed lines included — so a
 *   near-miss can delete a line the model never saw.
 * Here every relaxed strategy (whitespace at the stated place, shifted, fuzzy) must find
 * exactly one place or the hunk is refused with AmbiguousMatch listing all of them; the fuzzy
 * pass relaxes context lines only, never the lines a hunk removes; a hunk that matched with a
 * consistent indentation shift gets its added lines re-indented the same way; and the
 * strategy that applied each hunk is reported.
 */

import { type BinaryHunk, parseBinaryPatch } from "./binary.ts";
import { lineSimilarity } from "./keys.ts";
import type { TextDoc } from "./text.ts";

export type Strategy = "exact" | "whitespace" | "shifted" | "fuzzy";

export interface HunkLine {
  readonly kind: " " | "-" | "+";
  readonly text: string;
}

export interface Hunk {
  /** Stated 1-based start of the old side, null when the `@@` line gives no numbers. */
  readonly oldStart: number | null;
  readonly oldCount: number | null;
  /** Stated 1-based start of the new side, null when the `@@` line gives none. */
  readonly newStart: number | null;
  readonly lines: readonly HunkLine[];
  /** `\ No newline at end of file` after the last old / new line. */
  readonly oldNoNewline: boolean;
  readonly newNoNewline: boolean;
  /** Line of the `@@` header in the patch. */
  readonly patchLine: number;
}

export interface FileDiff {
  /** Path before (null: the file is created). */
  readonly oldPath: string | null;
  /** Path after (null: the file is deleted). */
  readonly newPath: string | null;
  readonly newMode: number | null;
  /** The mode the diff says the file had (`old mode`, `deleted file mode`), null when unstated. */
  readonly oldMode: number | null;
  /** Whether the diff names its files (`---`/`+++` or `diff --git`); a bare hunk list does not. */
  readonly hasPaths: boolean;
  /** `copy from`/`copy to` (git diff -C): the new file starts from the source, which stays. */
  readonly copy: boolean;
  readonly hunks: readonly Hunk[];
  /** A binary file: `binaryHunk` holds git's binary patch, absent for "Binary files … differ". */
  readonly binary: boolean;
  readonly binaryHunk: BinaryHunk | null;
  /** The binary patch's second hunk, from the new content back to the old (null: none). */
  readonly binaryReverse: BinaryHunk | null;
  /** The blob ids of the `index` line (abbreviated or full), when the diff has one. */
  readonly blobIds: { readonly old: string; readonly new: string } | null;
  /** git's mode of the entry: 120000 a symbolic link, 160000 a submodule pointer (null: unstated). */
  readonly entryMode: number | null;
  readonly patchLine: number;
}

export class DiffParseError extends Error {
  constructor(readonly line: number, readonly expected: string, readonly found: string, message: string) {
    super(message);
  }
}

const HUNK_HEADER = /^@@+\s*(?:-(\d+)(?:,(\d+))?)?\s*(?:\+(\d+)(?:,(\d+))?)?\s*@@+/;
const FENCE_LINE = /^(```|~~~)/;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A name as git quotes it (`"caf\303\251.txt"`), decoded; `line` is where it stands, for errors. */
function unquote(path: string, line: number): string {
  if (!path.startsWith('"')) return path;
  const inner = path.slice(1, path.lastIndexOf('"'));
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c !== "\\") {
      bytes.push(...enc.encode(c));
      continue;
    }
    const n = inner[++i];
    if (/[0-7]/.test(n)) {
      bytes.push(parseInt(inner.slice(i, i + 3), 8));
      i += 2;
    } else {
      const map: Record<string, string> = {
        n: "\n",
        t: "\t",
        '"': '"',
        "\\": "\\",
        a: "\x07",
        b: "\b",
        f: "\f",
        r: "\r",
        v: "\v",
      };
      bytes.push(...enc.encode(map[n] ?? n));
    }
  }
  try {
    return strictUtf8.decode(new Uint8Array(bytes));
  } catch {
    // Decoded leniently, the bytes would become U+FFFD: another file's name.
    throw new DiffParseError(
      line,
      "a file name in UTF-8",
      path,
      `the name ${path} is not UTF-8 (git quotes such bytes as octal escapes); pterm can only name files in ` +
        "UTF-8, so it cannot apply this patch to that file. Apply it with the real git (`git apply`).",
    );
  }
}

/** A `---`/`+++` path: unquoted, timestamp dropped; null for /dev/null. */
function headerPath(raw: string, line: number): string | null {
  let path = raw.trim();
  if (!path.startsWith('"')) path = path.split("\t")[0].trim();
  path = unquote(path, line);
  if (path === "/dev/null") return null;
  return path;
}

/**
 * GNU `diff -N` marks a side that does not exist with the epoch as its timestamp instead of
 * /dev/null; git apply and patch read that as a creation (or deletion), and so do we.
 */
function hasEpochTimestamp(raw: string): boolean {
  const tab = raw.indexOf("\t");
  if (tab < 0) return false;
  return /^(1970-01-01|1969-12-31)[ T]\d\d:\d\d:\d\d(\.0+)?( ?[+-]\d\d:?\d\d)?\s*$/.test(raw.slice(tab + 1));
}

function stripPrefix(path: string | null, prefix: "a/" | "b/"): string | null {
  if (path === null) return null;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

/** `diff --git a/x b/y`: the two paths when they can be told apart. */
function gitHeaderPaths(rest: string, line: number): { old: string; new: string } | null {
  const quoted = /^("(?:[^"\\]|\\.)*")\s+("(?:[^"\\]|\\.)*")$/.exec(rest);
  if (quoted) return { old: unquote(quoted[1], line), new: unquote(quoted[2], line) };
  // git's own rule for unquoted names: without a rename both are the same path, so the split that
  // makes them equal is the right one even when the path has spaces (`a/x y b/x y`).
  for (let at = rest.indexOf(" b/"); at >= 0; at = rest.indexOf(" b/", at + 1)) {
    if (rest.startsWith("a/") && rest.slice(2, at) === rest.slice(at + 3)) {
      return { old: rest.slice(0, at), new: rest.slice(at + 1) };
    }
  }
  const plain = /^(a\/.+) (b\/.+)$/.exec(rest);
  if (plain) return { old: plain[1], new: plain[2] };
  const parts = rest.split(" ");
  if (parts.length === 2) return { old: parts[0], new: parts[1] };
  // `--no-prefix` with spaces in the path: the same path twice (an edit or mode change).
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === " " && rest.slice(0, half) === rest.slice(half + 1)) {
    return { old: rest.slice(0, half), new: rest.slice(half + 1) };
  }
  return null;
}

interface Draft {
  oldPath: string | null | undefined;
  newPath: string | null | undefined;
  /** The file began with a `diff --git` line (whose paths could not always be told apart). */
  gitHeader: boolean;
  gitOld?: string;
  gitNew?: string;
  newMode: number | null;
  created: boolean;
  deleted: boolean;
  renameFrom?: string;
  renameTo?: string;
  copy: boolean;
  hunks: Hunk[];
  binary: boolean;
  binaryHunk?: BinaryHunk;
  binaryReverse?: BinaryHunk | null;
  blobIds?: { old: string; new: string };
  indexMode?: number;
  oldMode?: number;
  oldEpoch?: boolean;
  newEpoch?: boolean;
  patchLine: number;
  sawHeaders: boolean;
}

/**
 * Parses a diff body. `lines` are the body lines, `firstLine` the patch line of the first.
 * Tolerates: code fences, prose before the diff, `@@` lines without numbers or with wrong
 * counts, empty context lines written without their leading space.
 */
export function parseDiff(
  lines: readonly string[],
  firstLine: number,
  options: { readonly strip?: number } = {},
): FileDiff[] {
  const at = (i: number) => firstLine + i;
  // Fences: an opening one is dropped; once the diff has begun, a fence closes it, and nothing
  // after it — prose, even lines starting with `+` or `- ` — can join the last hunk.
  const text: string[] = [];
  const lineNo: number[] = [];
  let diffBegun = false;
  for (const [i, l] of lines.entries()) {
    if ((l[0] === "`" || l[0] === "~") && FENCE_LINE.test(l)) {
      if (diffBegun) break;
      continue;
    }
    if (!diffBegun && /^(diff --git |--- |@@)/.test(l)) diffBegun = true;
    text.push(l);
    lineNo.push(at(i));
  }

  const files: Draft[] = [];
  let current: Draft | null = null;
  const start = (patchLine: number): Draft => {
    const draft: Draft = {
      oldPath: undefined,
      newPath: undefined,
      newMode: null,
      gitHeader: false,
      created: false,
      deleted: false,
      copy: false,
      hunks: [],
      binary: false,
      patchLine,
      sawHeaders: false,
    };
    files.push(draft);
    return draft;
  };

  let i = 0;
  // Prose before the diff is skipped.
  while (i < text.length && !/^(diff --git |--- |@@)/.test(text[i])) i++;
  if (i === text.length) {
    throw new DiffParseError(
      lineNo[0] ?? firstLine,
      "a unified diff (`--- a/<path>`, `+++ b/<path>`, `@@ … @@` hunks)",
      text[0] ?? "",
      "the git.diff body holds no diff: expected `--- a/<path>` / `+++ b/<path>` lines and `@@ … @@` hunks",
    );
  }

  for (; i < text.length; i++) {
    const t = text[i];
    if (t.startsWith("diff --git ")) {
      current = start(lineNo[i]);
      current.gitHeader = true;
      const paths = gitHeaderPaths(t.slice("diff --git ".length), lineNo[i]);
      if (paths) {
        current.gitOld = paths.old;
        current.gitNew = paths.new;
      }
      continue;
    }
    if (t.startsWith("--- ") && i + 1 < text.length && text[i + 1].startsWith("+++ ")) {
      if (!current || current.sawHeaders || current.hunks.length > 0) current = start(lineNo[i]);
      current.oldPath = headerPath(t.slice(4), lineNo[i]);
      current.newPath = headerPath(text[i + 1].slice(4), lineNo[i + 1]);
      current.oldEpoch = hasEpochTimestamp(t.slice(4));
      current.newEpoch = hasEpochTimestamp(text[i + 1].slice(4));
      current.sawHeaders = true;
      i++;
      continue;
    }
    if (t.startsWith("@@")) {
      current ??= start(lineNo[i]);
      const parsed = parseHunk(text, lineNo, i);
      current.hunks.push(parsed.hunk);
      i = parsed.next - 1;
      continue;
    }
    if (current && !current.sawHeaders && current.hunks.length === 0) {
      const ext =
        /^(old mode|new mode|deleted file mode|new file mode|similarity index|dissimilarity index|rename from|rename to|copy from|copy to|index) ?(.*)$/
          .exec(t);
      if (ext) {
        const [, key, value] = ext;
        if (key === "new mode" || key === "new file mode") current.newMode = parseInt(value.trim(), 8);
        if (key === "new file mode") current.created = true;
        if (key === "old mode" || key === "deleted file mode") current.oldMode = parseInt(value.trim(), 8);
        if (key === "deleted file mode") current.deleted = true;
        if (key === "rename from" || key === "copy from") current.renameFrom = unquote(value.trim(), lineNo[i]);
        if (key === "rename to" || key === "copy to") current.renameTo = unquote(value.trim(), lineNo[i]);
        if (key === "copy from" || key === "copy to") current.copy = true;
        if (key === "index") {
          const ids = /^([0-9a-f]+)\.\.([0-9a-f]+)(?: ([0-7]+))?/.exec(value.trim());
          if (ids) current.blobIds = { old: ids[1], new: ids[2] };
          if (ids?.[3]) current.indexMode = parseInt(ids[3], 8);
        }
        continue;
      }
    }
    if (/^Binary files .* differ$/.test(t)) {
      if (current) current.binary = true;
      continue;
    }
    if (t === "GIT binary patch" && current) {
      current.binary = true;
      const parsed = parseBinaryPatch(text, i + 1);
      if ("error" in parsed) {
        const bad = text[parsed.error] ?? "";
        throw new DiffParseError(
          lineNo[parsed.error] ?? lineNo[i],
          "`literal <size>` or `delta <size>` and base85 lines, as git diff --binary writes them",
          bad,
          `line ${lineNo[parsed.error] ?? lineNo[i]}: the binary patch is damaged at \`${
            bad.length > 80 ? bad.slice(0, 80) + "…" : bad
          }\`; send the output of \`git diff --binary\` unchanged`,
        );
      }
      current.binaryHunk = parsed.hunk;
      current.binaryReverse = parsed.reverse;
      i = parsed.next - 1;
      continue;
    }
    if (t.trim() === "") continue;
    // The command line `diff -ruN a/x b/x` that GNU diff writes before each file, and its notes on
    // files only one side has, separate files; the `---`/`+++` lines that follow say what to do.
    if (/^diff\s(?!--git )/.test(t) || /^Only in .+: .+$/.test(t)) continue;
    // Prose after the last hunk ("This renames …") is dropped; text between hunks is an error.
    const moreDiff = text.slice(i + 1).some((l) => /^(diff --git |--- |\+\+\+ |@@)/.test(l));
    if (files.some((f) => f.hunks.length > 0) && !moreDiff) break;
    // The `-- ` signature of git format-patch ends the diff, also after a file without hunks.
    if (t === "-- " && files.length > 0 && !moreDiff) break;
    throw new DiffParseError(
      lineNo[i],
      "a diff line: `diff --git`, `---`/`+++` headers, or an `@@` hunk",
      t,
      `line ${lineNo[i]}: unexpected line in the diff: \`${
        t.length > 80 ? t.slice(0, 80) + "…" : t
      }\`; expected \`diff --git\`, \`---\`/\`+++\` headers or an \`@@ … @@\` hunk`,
    );
  }

  return files.map((d) => finishFile(d, options.strip));
}

/**
 * `path` without its first `count` folders, as `git apply -p<count>` reads header names (a name
 * with fewer folders stays whole).
 */
function stripFolders(path: string | null, count: number): string | null {
  if (path === null) return null;
  let rest = path;
  for (let n = 0; n < count; n++) {
    const slash = rest.indexOf("/");
    if (slash < 0) return path;
    rest = rest.slice(slash + 1);
  }
  return rest;
}

/**
 * `strip`: the number of leading folders `git apply -p<n>` takes off the header names; without it
 * the `a/` and `b/` prefixes are recognised as `git diff` and `diff -u` write them.
 */
function finishFile(d: Draft, strip?: number): FileDiff {
  let oldPath: string | null;
  let newPath: string | null;
  let hasPaths = true;
  if (d.oldPath !== undefined || d.newPath !== undefined) {
    oldPath = d.oldPath ?? null;
    newPath = d.newPath ?? null;
    const bothPrefixed = (oldPath === null || oldPath.startsWith("a/")) &&
      (newPath === null || newPath.startsWith("b/"));
    if (strip !== undefined) {
      oldPath = stripFolders(oldPath, strip);
      newPath = stripFolders(newPath, strip);
    } else if (bothPrefixed) {
      oldPath = stripPrefix(oldPath, "a/");
      newPath = stripPrefix(newPath, "b/");
    }
    if (!d.gitHeader) {
      const sideEmpty = (kind: "-" | "+") =>
        d.hunks.length > 0 && d.hunks.every((h) => h.lines.every((l) => l.kind !== " " && l.kind !== kind));
      if (d.oldEpoch && sideEmpty("-")) oldPath = null;
      else if (d.newEpoch && sideEmpty("+")) newPath = null;
    }
    // Only `diff --git` headers (or rename lines) rename. A plain `diff -u x.py x.py.new` edits one
    // file, as git apply and GNU patch read it: the old name when it is the shorter prefix of the
    // new one (a backup or scratch name), else the new name.
    if (!d.gitHeader && oldPath !== null && newPath !== null && oldPath !== newPath) {
      const edited = newPath.startsWith(oldPath) ? oldPath : newPath;
      oldPath = edited;
      newPath = edited;
    }
  } else if (d.gitOld !== undefined && d.gitNew !== undefined) {
    // Headers only (mode change, pure rename, empty new file): paths from `diff --git`.
    const prefixed = d.gitOld.startsWith("a/") && d.gitNew.startsWith("b/");
    const side = (path: string) => strip !== undefined ? stripFolders(path, strip)! : prefixed ? path.slice(2) : path;
    oldPath = d.created ? null : side(d.gitOld);
    newPath = d.deleted ? null : side(d.gitNew);
  } else {
    oldPath = null;
    newPath = null;
    hasPaths = false;
  }
  if (d.renameFrom !== undefined && d.renameTo !== undefined) {
    oldPath = d.renameFrom;
    newPath = d.renameTo;
    hasPaths = true;
  }
  if (d.created) oldPath = null;
  if (d.deleted) newPath = null;
  return {
    oldPath,
    newPath,
    newMode: d.newMode,
    oldMode: d.oldMode ?? null,
    hasPaths,
    copy: d.copy && oldPath !== null && newPath !== null && oldPath !== newPath,
    hunks: d.hunks,
    binary: d.binary,
    binaryHunk: d.binaryHunk ?? null,
    binaryReverse: d.binaryReverse ?? null,
    blobIds: d.blobIds ?? null,
    entryMode: d.newMode ?? d.indexMode ?? d.oldMode ?? null,
    patchLine: d.patchLine,
  };
}

/**
 * The diff the other way round, as `git apply -R` reads it: old and new sides, paths, modes, blob
 * ids and `\ No newline` markers swap, removed lines become added ones and the reverse binary hunk
 * applies. Null when it cannot be reversed (a binary patch without its reverse hunk, a copy).
 */
export function reversedDiff(file: FileDiff): FileDiff | null {
  if (file.binaryHunk && !file.binaryReverse) return null;
  if (file.copy) return null;
  const flip = { " ": " ", "-": "+", "+": "-" } as const;
  return {
    ...file,
    oldPath: file.newPath,
    newPath: file.oldPath,
    oldMode: file.newMode,
    newMode: file.oldMode,
    hunks: file.hunks.map((h) => ({
      ...h,
      oldStart: h.newStart,
      newStart: h.oldStart,
      oldCount: h.lines.filter((l) => l.kind !== "-").length,
      lines: h.lines.map((l) => ({ kind: flip[l.kind], text: l.text })),
      oldNoNewline: h.newNoNewline,
      newNoNewline: h.oldNoNewline,
    })),
    binaryHunk: file.binaryReverse,
    binaryReverse: file.binaryHunk,
    blobIds: file.blobIds && { old: file.blobIds.new, new: file.blobIds.old },
  };
}

function parseHunk(text: readonly string[], lineNo: readonly number[], at: number): { hunk: Hunk; next: number } {
  const header = HUNK_HEADER.exec(text[at]);
  const oldStart = header?.[1] !== undefined ? Number(header[1]) : null;
  const oldCount = header?.[1] !== undefined ? (header[2] !== undefined ? Number(header[2]) : 1) : null;
  const newStart = header?.[3] !== undefined ? Number(header[3]) : null;
  const newCount = header?.[3] !== undefined ? (header[4] !== undefined ? Number(header[4]) : 1) : null;
  const hunkLines: HunkLine[] = [];
  /** Which hunk lines were written as a bare empty line (a context line that lost its space). */
  const bare: boolean[] = [];
  let oldNoNewline = false;
  let newNoNewline = false;
  let oldSeen = 0;
  let newSeen = 0;
  let i = at + 1;
  for (; i < text.length; i++) {
    const t = text[i];
    if (t.startsWith("@@") || t.startsWith("diff --git ")) break;
    const countsDone = oldCount === null || oldSeen >= oldCount;
    if (t.startsWith("--- ") && i + 1 < text.length && text[i + 1].startsWith("+++ ") && countsDone) break;
    // `git format-patch` ends with a signature: `-- ` and git's version. Once the stated counts are
    // met, that line is the signature, not a removed line.
    if (t === "-- " && oldCount !== null && newCount !== null && oldSeen >= oldCount && newSeen >= newCount) break;
    if (t.startsWith("\\")) {
      const last = hunkLines[hunkLines.length - 1];
      if (last?.kind !== "+") oldNoNewline = true;
      if (last?.kind !== "-") newNoNewline = true;
      continue;
    }
    const kind = t[0];
    if (t === "" || t === "\r") {
      hunkLines.push({ kind: " ", text: "" });
      bare.push(true);
      oldSeen++;
      newSeen++;
    } else if (kind === " " || kind === "-" || kind === "+") {
      hunkLines.push({ kind, text: t.slice(1) });
      bare.push(false);
      if (kind !== "+") oldSeen++;
      if (kind !== "-") newSeen++;
    } else {
      break;
    }
  }
  // Bare blank lines after the hunk separate it from what follows, unless the stated count needs them.
  while (hunkLines.length > 0 && bare[bare.length - 1] && (oldCount === null || oldSeen > oldCount)) {
    hunkLines.pop();
    bare.pop();
    oldSeen--;
  }
  return {
    hunk: { oldStart, oldCount, newStart, lines: hunkLines, oldNoNewline, newNoNewline, patchLine: lineNo[at] },
    next: i,
  };
}

// ---- application ----------------------------------------------------------------------------

export interface HunkReport {
  /** 1-based hunk number within its file. */
  readonly hunk: number;
  readonly strategy: Strategy;
  /** 1-based line where the hunk's old side was found (before this hunk applied). */
  readonly at_line: number;
  readonly stated_line: number | null;
  /** Added lines were re-indented by this prefix ("+  ") or with it removed ("-  "). */
  readonly reindent?: string;
  /** In git's strict mode: whether the hunk's old side ended the file (git's blank-at-eof check). */
  readonly ends_file?: boolean;
  /** In git's strict mode: the patch line of the hunk's `@@` header. */
  readonly patch_line?: number;
}

export type HunkFailure =
  | {
    readonly kind: "no-match";
    readonly hunk: number;
    readonly patchLine: number;
    readonly closest: ClosestRegion | null;
    /**
     * The hunk's lines are in the file, at `line`, but not where git's anchoring lets them be: a
     * hunk without trailing context must end the file ("end"), one stated at line 0 or 1 must
     * start it ("beginning").
     */
    readonly unanchored?: { readonly line: number; readonly rule: "end" | "beginning" };
  }
  | {
    readonly kind: "ambiguous";
    readonly hunk: number;
    readonly patchLine: number;
    readonly strategy: Strategy;
    readonly lines: readonly number[];
    readonly texts: readonly string[];
    /** The old-side start line the `@@` header states, null when it gives none. */
    readonly stated: number | null;
  }
  | {
    /**
     * The hunk's result is already at `line` and its old side is nowhere (applying it would repeat it),
     * or only at `elsewhere`, away from the stated line (applying it would edit that other place).
     */
    readonly kind: "already-applied";
    readonly hunk: number;
    readonly patchLine: number;
    readonly line: number;
    readonly elsewhere?: number;
  }
  | { readonly kind: "no-anchor"; readonly hunk: number; readonly patchLine: number };

export class HunkError extends Error {
  constructor(readonly failure: HunkFailure) {
    super(failure.kind);
  }
}

/**
 * A line with its runs of white space as one space and none at its ends. White space is ASCII's (space, tab, form
 * feed, vertical tab, carriage return), as GNU patch -l and git apply --ignore-whitespace read it: JavaScript's `\s`
 * and `trim()` take U+FEFF and the other Unicode spaces too, and a line of a BOM and `}` would match a line of `}`.
 */
function squash(line: string): string {
  return line.replace(/\r$/, "").replace(/^[ \t\f\v\r]+|[ \t\f\v\r]+$/g, "").replace(/[ \t\f\v\r]+/g, " ");
}

/** The similarity a context line needs in the fuzzy pass, and the average the hunk needs. */
const FUZZY_LINE = 0.5;
const FUZZY_MEAN = 0.7;

interface Candidate {
  pos: number;
  /** Hunk lines actually used (fuzzy may drop outer context lines). */
  lines: readonly HunkLine[];
  score: number;
}

export interface ApplyOptions {
  /**
   * The diff carries its own line endings (its lines end in `\r` where the file's do, as in a
   * diff `git diff` wrote of a CRLF file); otherwise added lines take the file's style.
   */
  readonly keepLineEndings?: boolean;
  /**
   * Whether the diff was made from exactly this file (its `index` line names the file's blob): then
   * added lines keep the endings they have in the diff, whatever the file's style, and no hunk is
   * refused as AlreadyApplied (the preimage cannot hold its result). Asked only where the answer
   * changes the result — hashing the file is the costly part — and at most once.
   */
  readonly preimage?: () => boolean;
  /** Apply a hunk even when its result is already in the file (otherwise AlreadyApplied). */
  readonly reapply?: boolean;
  /**
   * Place hunks as `git apply` does and nowhere else (see `placeAsGit`): byte-exact context, git's
   * anchors and search order, no whitespace or fuzzy match, no AlreadyApplied guess; added lines
   * are written as the diff has them. `unidiffZero` is `--unidiff-zero`.
   */
  readonly gitStrict?: { readonly unidiffZero: boolean };
}

/**
 * Where a hunk may be placed, as `git apply` anchors it (apply.c's match_beginning/match_end): a
 * hunk without trailing context must end the file, and one stated at line 0 or 1 must start it.
 * A hunk whose old side ends without a newline (`\ No newline at end of file`) ends the file too.
 */
interface Anchors {
  readonly beginning: boolean;
  readonly end: boolean;
}

const UNANCHORED: Anchors = { beginning: false, end: false };

/**
 * The anchors to try, in order. A hunk with context lines has git's. One with none at all, stated
 * at line 1, may be all of a small file (git's anchors hold); else, or failing that, it is from
 * `diff -U0` or written without context, which says nothing about its surroundings: it is placed
 * by its text and line number, as `git apply --unidiff-zero` and GNU patch place it.
 */
function anchorSets(hunk: Hunk): Anchors[] {
  const lines = hunk.lines;
  const startsFile = hunk.oldStart !== null && hunk.oldStart <= 1;
  const git: Anchors = { beginning: startsFile, end: lines[lines.length - 1].kind !== " " || hunk.oldNoNewline };
  if (lines.some((l) => l.kind === " ")) return [git];
  const loose = hunk.oldNoNewline ? { beginning: false, end: true } : UNANCHORED;
  return startsFile ? [git, loose] : [loose];
}

/** Whether `length` lines at `pos` (of a file of `size` lines) stand where the anchors allow. */
function anchoredAt(anchors: Anchors, pos: number, length: number, size: number): boolean {
  return (!anchors.beginning || pos === 0) && (!anchors.end || pos + length === size);
}

/**
 * A hunk that says the final newline changes (`\ No newline at end of file` on one side only)
 * fits the file's end only when the file's final newline is the side's: the old side to apply it,
 * the new side to find it applied. A hunk that says nothing of it fits either way.
 */
function newlineFits(hunk: Hunk, doc: TextDoc, side: "old" | "new", pos: number, length: number): boolean {
  if (hunk.oldNoNewline === hunk.newNoNewline || pos + length !== doc.length || doc.length === 0) return true;
  return doc.finalNewline === !(side === "old" ? hunk.oldNoNewline : hunk.newNoNewline);
}

/**
 * A hunk that changes nothing but line endings (its sides equal once `\r`s are dropped) is all
 * about them: its old side fits only lines that end as it says, and its result is found only where
 * lines end as its new side says. Any other hunk compares lines without their `\r`.
 */
function endingsFit(hunk: Hunk, doc: TextDoc, side: "old" | "new", pos: number): boolean {
  if (!changesEndingsOnly(hunk)) return true;
  const sideLines = hunk.lines.filter((l) => l.kind !== (side === "old" ? "+" : "-"));
  return sideLines.every((l, k) =>
    doc.lines[pos + k] !== undefined && doc.lines[pos + k].endsWith("\r") === l.text.endsWith("\r")
  );
}

/** Whether a hunk's sides are equal once `\r`s are dropped, and differ with them: known once per hunk. */
const endingsOnlyHunks = new WeakMap<Hunk, boolean>();

function changesEndingsOnly(hunk: Hunk): boolean {
  const known = endingsOnlyHunks.get(hunk);
  if (known !== undefined) return known;
  const bare = (t: string) => t.replace(/\r$/, "");
  const oldSide = hunk.lines.filter((l) => l.kind !== "+");
  const newSide = hunk.lines.filter((l) => l.kind !== "-");
  const endingsOnly = oldSide.length === newSide.length &&
    oldSide.every((l, k) => bare(l.text) === bare(newSide[k].text)) &&
    oldSide.some((l, k) => l.text !== newSide[k].text);
  endingsOnlyHunks.set(hunk, endingsOnly);
  return endingsOnly;
}

/** Applies `hunks` to `doc` in order (mutating it); throws HunkError when one cannot be placed. */
export function applyHunks(doc: TextDoc, hunks: readonly Hunk[], options: ApplyOptions = {}): HunkReport[] {
  const reports: HunkReport[] = [];
  let sizeDelta = 0;
  let drift = 0;
  // Regions earlier hunks wrote (current coordinates): a later hunk may land before or after
  // them — models do not always keep hunks in order — but never on them.
  const written: Written = [];
  const index = new LineIndex(doc);
  let preimage: boolean | null = null;
  const byteExact = () => (preimage ??= options.preimage?.() === true);
  const reapply = () => options.reapply === true || byteExact();
  hunks.forEach((givenHunk, h) => {
    const number = h + 1;
    let { hunk, bomOld, bomNew } = withoutBom(givenHunk);
    // A file of a BOM alone is one line to git (the BOM, no newline) and none to the doc: give the
    // hunk that line to match.
    if ((bomOld || bomNew) && doc.bom && doc.length === 0) {
      doc.splice(0, 0, [""]);
      doc.finalNewline = false;
    }
    let old = hunk.lines.filter((l) => l.kind !== "+");
    let expected: number | null = null;
    if (hunk.oldStart !== null) {
      const stated = old.length === 0 ? hunk.oldStart : hunk.oldStart - 1;
      expected = stated + sizeDelta + drift;
    }
    let placed = options.gitStrict
      ? placeAsGit(doc, hunk, old, written, number, bomOld, options.gitStrict.unidiffZero)
      : place(doc, hunk, old, expected, written, number, index, reapply);
    if (!options.gitStrict && (bomOld || bomNew) && placed.pos !== 0) {
      // A BOM is the file's first bytes: a hunk placed anywhere else has U+FEFF as a character of its
      // line, matched and written as it is (git apply compares it as a byte of the line too).
      ({ hunk, bomOld, bomNew } = { hunk: givenHunk, bomOld: false, bomNew: false });
      old = hunk.lines.filter((l) => l.kind !== "+");
      placed = place(doc, hunk, old, expected, written, number, index, reapply);
    }
    const { pos, lines, strategy } = placed;
    // A hunk that adds or removes the file's BOM, on a file whose BOM is already as the hunk leaves it and
    // whose first lines are already the hunk's result, ran before: the lines match without the BOM either way
    // (the file keeps its BOM apart from its first line), so the BOM and the result are the only signs. git
    // apply, which compares the BOM as a byte of the first line, refuses it too.
    if (!options.gitStrict && pos === 0 && bomOld !== bomNew && doc.bom === bomNew && !reapply()) {
      const after = hunk.lines.filter((l) => l.kind !== "-");
      if (matchesAt(doc, 0, after, exactly)) {
        throw new HunkError({ kind: "already-applied", hunk: number, patchLine: hunk.patchLine, line: 1 });
      }
    }
    const oldLen = lines.filter((l) => l.kind !== "+").length;
    const reindent = strategy === "exact" || options.gitStrict ? null : indentShift(doc, pos, lines);
    const replacement: string[] = [];
    let k = pos;
    for (const l of lines) {
      if (l.kind === " ") replacement.push(doc.lines[k++]);
      else if (l.kind === "-") k++;
      else replacement.push(reindent ? reindent.apply(l.text) : l.text);
    }
    const touchesEnd = pos + oldLen === doc.length;
    const wasEmpty = doc.length === 0;
    const endedWithoutNewline = !doc.finalNewline;
    // A diff of the file's first line that shows a BOM on one side only adds or removes it.
    if (pos === 0 && (bomOld || bomNew)) doc.bom = bomNew;
    // Adopting the file's endings changes nothing when the file is not CRLF and no added line ends
    // in `\r`: only otherwise does it matter whether the diff's own endings are kept. git apply keeps them.
    const keepEndings = options.gitStrict !== undefined ||
      (options.keepLineEndings === true && carriesFileEndings(doc, pos, lines)) ||
      (endingsMatter(doc, lines) && byteExact());
    const addedAdopted = keepEndings ? replacement : adoptAdded(doc, lines, replacement);
    doc.splice(pos, oldLen, addedAdopted);
    index.edited(pos, oldLen, addedAdopted.length);
    // git apply splices bytes: lines that end without a newline run into what follows them.
    let start = pos;
    let newLen = addedAdopted.length;
    if (options.gitStrict && newLen > 0) {
      if (oldLen === 0 && touchesEnd && !wasEmpty && endedWithoutNewline) {
        // Added after a last line that has no newline: the first added line continues it.
        doc.splice(pos - 1, 2, [doc.lines[pos - 1] + doc.lines[pos]]);
        doc.finalNewline = !hunk.newNoNewline;
        start = pos - 1;
      } else if (!touchesEnd && hunk.newNoNewline) {
        // A result without its final newline placed before other lines: the next line continues it.
        const last = pos + newLen - 1;
        doc.splice(last, 2, [doc.lines[last] + doc.lines[last + 1]]);
        newLen--;
      }
    }
    if (touchesEnd && doc.length > 0 && start === pos) {
      // The final newline changes only when the diff says so (git's `\ No newline at end of file`
      // on one side only); a hunk written without the markers keeps the file's state.
      if (hunk.newNoNewline) doc.finalNewline = false;
      else if (hunk.oldNoNewline || wasEmpty) doc.finalNewline = true;
      const last = doc.length - 1;
      // A CRLF file whose last line has no newline has no `\r` there either.
      if (
        !doc.finalNewline && !keepEndings && lines[lines.length - 1]?.kind === "+" && doc.lines[last].endsWith("\r")
      ) {
        doc.splice(last, 1, [doc.lines[last].slice(0, -1)]);
      }
    }
    if (expected !== null) drift += pos - expected;
    sizeDelta += newLen - oldLen;
    const shift = newLen - oldLen;
    for (const region of written) {
      if (region.start >= pos + oldLen) {
        region.start += shift;
        region.end += shift;
      }
    }
    written.push({ start, end: pos + newLen });
    reports.push({
      hunk: number,
      strategy,
      at_line: pos + 1,
      stated_line: hunk.oldStart,
      ...(reindent ? { reindent: reindent.label } : {}),
      ...(options.gitStrict ? { ends_file: touchesEnd, patch_line: hunk.patchLine } : {}),
    });
  });
  return reports;
}

const BOM = "\ufeff";

/**
 * The hunk with a UTF-8 BOM taken off its first old-side and first new-side line (a file's BOM is
 * kept apart from its first line), and whether each side had one: git diff shows a BOM as part of
 * line 1, so a diff that adds or removes it has it on one side only.
 */
function withoutBom(hunk: Hunk): { hunk: Hunk; bomOld: boolean; bomNew: boolean } {
  const firstOld = hunk.lines.findIndex((l) => l.kind !== "+");
  const firstNew = hunk.lines.findIndex((l) => l.kind !== "-");
  const bomOld = firstOld >= 0 && hunk.lines[firstOld].text.startsWith(BOM);
  const bomNew = firstNew >= 0 && hunk.lines[firstNew].text.startsWith(BOM);
  if (!bomOld && !bomNew) return { hunk, bomOld, bomNew };
  const lines = hunk.lines.map((l, i) =>
    (i === firstOld && bomOld) || (i === firstNew && bomNew) ? { kind: l.kind, text: l.text.slice(1) } : l
  );
  return { hunk: { ...hunk, lines }, bomOld, bomNew };
}

/**
 * Whether a hunk carries the file's own line endings at `pos`: the file has CRLF lines (a CRLF or
 * mixed file), and each old line of the hunk ends in `\r` exactly where the file's line does (a
 * diff `git diff` wrote of that file). Only then are added lines written with the endings they
 * have in the diff, byte for byte; otherwise a `\r` in the diff is transport (a CRLF line pasted
 * into an LF patch) and added lines take the file's style — so an LF-only file never gets a `\r`.
 */
function carriesFileEndings(doc: TextDoc, pos: number, lines: readonly HunkLine[]): boolean {
  // A file without a line break (empty, new, one unterminated line) has no style of its own:
  // it gets the diff's bytes.
  if (doc.length === 0 || (doc.length === 1 && !doc.finalNewline)) return true;
  if (doc.crLines === 0) return false;
  let k = pos;
  for (const l of lines) {
    if (l.kind === "+") continue;
    if (l.text.endsWith("\r") !== doc.lines[k++].endsWith("\r")) return false;
  }
  return true;
}

/** Whether `adoptAdded` can change a hunk's added lines: the file is CRLF, or an added line ends in `\r`. */
function endingsMatter(doc: TextDoc, lines: readonly HunkLine[]): boolean {
  return doc.style === "crlf" || lines.some((l) => l.kind === "+" && l.text.endsWith("\r"));
}

/** Added lines take the file's line ending; context lines stay exactly as the file has them. */
function adoptAdded(doc: TextDoc, lines: readonly HunkLine[], replacement: string[]): string[] {
  const crlf = doc.style === "crlf";
  let r = 0;
  const out: string[] = [];
  for (const l of lines) {
    if (l.kind === "-") continue;
    const text = replacement[r++];
    if (l.kind === " ") out.push(text);
    else {
      const bare = text.endsWith("\r") ? text.slice(0, -1) : text;
      out.push(crlf ? bare + "\r" : bare);
    }
  }
  return out;
}

type Written = { start: number; end: number }[];

/** Whether old lines at `pos` would overlap what an earlier hunk wrote. */
function overlaps(written: Written, pos: number, length: number): boolean {
  const end = pos + Math.max(length, 1);
  return written.some((r) => pos < Math.max(r.end, r.start + 1) && end > r.start);
}

function matchesAt(
  doc: TextDoc,
  pos: number,
  old: readonly HunkLine[],
  same: (a: string, b: string) => boolean,
): boolean {
  if (pos < 0 || pos + old.length > doc.length) return false;
  for (let k = 0; k < old.length; k++) if (!same(doc.plain(pos + k), old[k].text)) return false;
  return true;
}

const exactly = (a: string, b: string) => a === b || a === b.replace(/\r$/, "");
const looseWhitespace = (a: string, b: string) => squash(a) === squash(b);

/**
 * The file's lines by content (whitespace squashed), so that a hunk is looked for only where its
 * rarest line occurs — the relaxed passes stay near-linear in the file's size instead of trying
 * every position for every hunk. Built on the first lookup (a hunk found at its stated line needs
 * none), from the lines as they are then; positions are mapped through the edits made since. Lines
 * inside a region edited before or after the build are excluded by the callers' `overlaps` check
 * (no hunk may be placed on what an earlier hunk wrote), and those edited after it drop out here.
 */
class LineIndex {
  readonly #doc: TextDoc;
  #byKey: Map<string, number[]> | null = null;
  readonly #edits: { pos: number; oldLen: number; newLen: number }[] = [];

  constructor(doc: TextDoc) {
    this.#doc = doc;
  }

  #index(): Map<string, number[]> {
    if (this.#byKey) return this.#byKey;
    const byKey = new Map<string, number[]>();
    const doc = this.#doc;
    for (let i = 0; i < doc.length; i++) {
      const key = squash(doc.lines[i]);
      const list = byKey.get(key);
      if (list) list.push(i);
      else byKey.set(key, [i]);
    }
    this.#byKey = byKey;
    return byKey;
  }

  edited(pos: number, oldLen: number, newLen: number): void {
    // Before the build there is nothing to map: the build reads the lines as they are by then.
    if (this.#byKey) this.#edits.push({ pos, oldLen, newLen });
  }

  /** How many original lines have this content (an upper bound of what `positions` returns). */
  count(text: string): number {
    return this.#index().get(squash(text))?.length ?? 0;
  }

  /** Where lines whose squashed content equals `text`'s are now, ascending. */
  positions(text: string): number[] {
    const out: number[] = [];
    for (let p of this.#index().get(squash(text)) ?? []) {
      let alive = true;
      for (const e of this.#edits) {
        if (p < e.pos) continue;
        if (p < e.pos + e.oldLen) {
          alive = false;
          break;
        }
        p += e.newLen - e.oldLen;
      }
      if (alive) out.push(p);
    }
    return out;
  }
}

/**
 * Every place `old` matches (by `same`, which implies equal squashed text) outside what earlier
 * hunks wrote, ascending; candidates come from the index, by the hunk's rarest line.
 */
function allPositions(
  doc: TextDoc,
  old: readonly HunkLine[],
  written: Written,
  same: (a: string, b: string) => boolean,
  index: LineIndex,
): number[] {
  let rarest = 0;
  for (let k = 1; k < old.length; k++) if (index.count(old[k].text) < index.count(old[rarest].text)) rarest = k;
  const found: number[] = [];
  for (const at of index.positions(old[rarest].text)) {
    const p = at - rarest;
    if (matchesAt(doc, p, old, same) && !overlaps(written, p, old.length)) found.push(p);
  }
  return found;
}

function place(
  doc: TextDoc,
  hunk: Hunk,
  old: readonly HunkLine[],
  expected: number | null,
  written: Written,
  number: number,
  index: LineIndex,
  reapply: () => boolean,
): { pos: number; lines: readonly HunkLine[]; strategy: Strategy } {
  const lines = hunk.lines;
  if (old.length === 0) {
    // Nothing to anchor on but the line number (a new file, or a pure insertion without context).
    if (expected !== null && expected >= 0 && expected <= doc.length) {
      // Its lines already standing there is the only sign of a second run such a hunk can give.
      if (doc.length > 0 && matchesAt(doc, expected, lines, exactly) && !reapply()) {
        throw new HunkError({ kind: "already-applied", hunk: number, patchLine: hunk.patchLine, line: expected + 1 });
      }
      return { pos: expected, lines, strategy: "exact" };
    }
    if (doc.length === 0) return { pos: 0, lines, strategy: "exact" };
    throw new HunkError({ kind: "no-anchor", hunk: number, patchLine: hunk.patchLine });
  }
  const sets = anchorSets(hunk);
  for (const anchors of sets) {
    const fits = (pos: number, length: number) =>
      anchoredAt(anchors, pos, length, doc.length) && newlineFits(hunk, doc, "old", pos, length) &&
      endingsFit(hunk, doc, "old", pos);
    const resultFits = (pos: number, length: number) =>
      anchoredAt(anchors, pos, length, doc.length) && newlineFits(hunk, doc, "new", pos, length) &&
      endingsFit(hunk, doc, "new", pos);
    if (expected !== null && !overlaps(written, expected, old.length) && fits(expected, old.length)) {
      if (matchesAt(doc, expected, old, exactly)) return { pos: expected, lines, strategy: "exact" };
      if (matchesAt(doc, expected, old, looseWhitespace)) return { pos: expected, lines, strategy: "whitespace" };
    }
    for (const same of [exactly, looseWhitespace]) {
      const found = allPositions(doc, old, written, same, index).filter((p) => fits(p, old.length));
      const chosen = found.length === 1 ? found[0] : nearest(found, expected);
      if (chosen !== null) {
        // The hunk's result standing exactly where it says, and its old lines only elsewhere: the diff
        // ran before, and those old lines are another place's that happen to read the same (a retry
        // would edit that place instead).
        if (chosen !== expected && expected !== null && resultAt(doc, hunk, old, expected, written, resultFits)) {
          if (!reapply()) {
            throw new HunkError({
              kind: "already-applied",
              hunk: number,
              patchLine: hunk.patchLine,
              line: expected + 1,
              elsewhere: chosen + 1,
            });
          }
        }
        const strategy: Strategy = expected !== null ? "shifted" : same === exactly ? "exact" : "whitespace";
        return { pos: chosen, lines, strategy };
      }
      if (found.length > 1) {
        throw new HunkError({
          kind: "ambiguous",
          hunk: number,
          patchLine: hunk.patchLine,
          strategy: "shifted",
          lines: found.map((p) => p + 1),
          texts: found.map((p) => doc.plain(p)),
          stated: hunk.oldStart,
        });
      }
    }
    // Whether to refuse is asked only once the result is found (the answer may hash the file).
    const line = resultPlace(doc, hunk, old, expected, written, index, resultFits);
    if (line !== null && !reapply()) {
      throw new HunkError({ kind: "already-applied", hunk: number, patchLine: hunk.patchLine, line });
    }
  }
  const anchors = sets[sets.length - 1];
  const fuzzy = fuzzyCandidates(
    doc,
    lines,
    written,
    index,
    (pos, length) =>
      anchoredAt(anchors, pos, length, doc.length) && newlineFits(hunk, doc, "old", pos, length) &&
      endingsFit(hunk, doc, "old", pos),
  );
  const fuzzyChosen = fuzzy.length === 1 ? fuzzy[0].pos : nearest(fuzzy.map((c) => c.pos), expected);
  if (fuzzyChosen !== null) {
    return { pos: fuzzyChosen, lines: fuzzy.find((c) => c.pos === fuzzyChosen)!.lines, strategy: "fuzzy" };
  }
  if (fuzzy.length > 1) {
    throw new HunkError({
      kind: "ambiguous",
      hunk: number,
      patchLine: hunk.patchLine,
      strategy: "fuzzy",
      lines: fuzzy.map((c) => c.pos + 1),
      texts: fuzzy.map((c) => doc.plain(c.pos)),
      stated: hunk.oldStart,
    });
  }
  const elsewhere = anchors.beginning || anchors.end ? allPositions(doc, old, written, exactly, index) : [];
  throw new HunkError({
    kind: "no-match",
    hunk: number,
    patchLine: hunk.patchLine,
    ...(elsewhere.length
      ? {
        unanchored: {
          line: elsewhere[0] + 1,
          rule: anchors.end && elsewhere[0] + old.length !== doc.length ? "end" as const : "beginning" as const,
        },
      }
      : {}),
    closest: closestRegion(
      Array.from({ length: doc.length }, (_, i) => doc.plain(i)),
      old.map((l) => l.text),
    ),
  });
}

/**
 * A hunk placed as `git apply` places it (apply.c's apply_one_fragment, find_pos, match_fragment):
 * the search starts at the new side's stated line (or at the file's start or end when the hunk
 * must match there) and goes one line forward, one back, two forward… — the first place where
 * every old-side line is the file's line byte for byte, `\r`, BOM and final newline included, and
 * no line an earlier hunk wrote, wins. A hunk stated at line 0 (or 1, without --unidiff-zero) must
 * start the file; one without trailing context (without --unidiff-zero) must end it.
 */
function placeAsGit(
  doc: TextDoc,
  hunk: Hunk,
  old: readonly HunkLine[],
  written: Written,
  number: number,
  bomOld: boolean,
  unidiffZero: boolean,
): { pos: number; lines: readonly HunkLine[]; strategy: Strategy } {
  const size = doc.length;
  let trailing = 0;
  while (trailing < hunk.lines.length && hunk.lines[hunk.lines.length - 1 - trailing].kind === " ") trailing++;
  const matchBeginning = hunk.oldStart === 0 || (hunk.oldStart === 1 && !unidiffZero);
  const matchEnd = !unidiffZero && trailing === 0;
  const firstOld = hunk.lines.findIndex((l) => l.kind !== "+");
  const fileLine = (i: number) =>
    (i === 0 && doc.bom ? BOM : "") + doc.lines[i] + (i < size - 1 || doc.finalNewline ? "\n" : "");
  const hunkLine = (k: number) =>
    (k === 0 && firstOld >= 0 && bomOld ? BOM : "") + old[k].text +
    (k === old.length - 1 && hunk.oldNoNewline ? "" : "\n");
  const writtenLine = (i: number) => written.some((r) => i >= r.start && i < r.end);
  const matches = (pos: number): boolean => {
    if (pos + old.length > size) return false;
    if (matchEnd && pos + old.length !== size) return false;
    if (matchBeginning && pos !== 0) return false;
    for (let k = 0; k < old.length; k++) {
      if (writtenLine(pos + k)) return false;
      const file = fileLine(pos + k);
      // Bytes compared from the place on: a last old line without its newline also matches a line that
      // starts with it and goes on with whitespace only (`{` matches `{\r\n`: git's memcmp of the preimage's
      // bytes, after a line hash that skips whitespace), except where the hunk must end the file.
      const bare = k === old.length - 1 && hunk.oldNoNewline && !matchEnd;
      const expected = hunkLine(k);
      const rest = file.slice(expected.length);
      if (file !== expected && !(bare && file.startsWith(expected) && /^[ \t\r]*\n?$/.test(rest))) return false;
    }
    return true;
  };
  let line = hunk.newStart ? hunk.newStart - 1 : 0;
  if (matchBeginning) line = 0;
  else if (matchEnd) line = size - old.length;
  if (line < 0 || line > size) line = size;
  const stated = line;
  let backwards = line;
  let forwards = line;
  let current = line;
  for (let i = 0;; i++) {
    if (matches(current)) {
      return { pos: current, lines: hunk.lines, strategy: current === stated ? "exact" : "shifted" };
    }
    for (;;) {
      if (backwards === 0 && forwards === size) {
        throw new HunkError({ kind: "no-match", hunk: number, patchLine: hunk.patchLine, closest: null });
      }
      if (i & 1) {
        if (backwards === 0) {
          i++;
          continue;
        }
        current = --backwards;
      } else {
        if (forwards === size) {
          i++;
          continue;
        }
        current = ++forwards;
      }
      break;
    }
  }
}

/**
 * Where the hunk's result (its context and added lines) already stands, as GNU patch detects a
 * patch applied before: the old side is nowhere (checked by the caller) but the new side is, at a
 * place the anchors allow — the stated one, else the only or nearest one. 1-based, or null.
 */
/** A hunk's result (context and added lines); null when it tells nothing apart (empty, or its old side itself). */
function resultLines(hunk: Hunk, old: readonly HunkLine[]): HunkLine[] | null {
  const result = hunk.lines.filter((l) => l.kind !== "-");
  const same = result.length === old.length && result.every((l, k) => l.text === old[k].text) &&
    hunk.oldNoNewline === hunk.newNoNewline;
  return result.length === 0 || same ? null : result;
}

/** Whether the hunk's result stands at `pos` exactly, on lines no earlier hunk of this run wrote. */
function resultAt(
  doc: TextDoc,
  hunk: Hunk,
  old: readonly HunkLine[],
  pos: number,
  written: Written,
  fits: (pos: number, length: number) => boolean,
): boolean {
  const result = resultLines(hunk, old);
  return result !== null && !overlaps(written, pos, result.length) && fits(pos, result.length) &&
    matchesAt(doc, pos, result, exactly);
}

function resultPlace(
  doc: TextDoc,
  hunk: Hunk,
  old: readonly HunkLine[],
  expected: number | null,
  written: Written,
  index: LineIndex,
  fits: (pos: number, length: number) => boolean,
): number | null {
  const result = resultLines(hunk, old);
  if (result === null) return null;
  if (expected !== null && fits(expected, result.length) && matchesAt(doc, expected, result, exactly)) {
    return expected + 1;
  }
  for (const same of [exactly, looseWhitespace]) {
    const found = allPositions(doc, result, written, same, index).filter((p) => fits(p, result.length));
    if (found.length > 0) return (nearest(found, expected) ?? found[0]) + 1;
  }
  return null;
}

/**
 * Among several places, the one strictly nearest the stated line (as `git apply` takes the match
 * nearest the line its `@@` names); null without a stated line or when two are equally near.
 */
function nearest(positions: readonly number[], expected: number | null): number | null {
  if (expected === null || positions.length < 2) return null;
  const byDistance = [...positions].sort((a, b) => Math.abs(a - expected) - Math.abs(b - expected));
  return Math.abs(byDistance[0] - expected) < Math.abs(byDistance[1] - expected) ? byDistance[0] : null;
}

/** Variants of the hunk with up to two outer context lines dropped on each side (GNU patch's fuzz). */
function trimmedVariants(lines: readonly HunkLine[]): { lines: readonly HunkLine[]; front: number }[] {
  const variants: { lines: readonly HunkLine[]; front: number }[] = [{ lines, front: 0 }];
  let leading = 0;
  while (leading < lines.length && lines[leading].kind === " ") leading++;
  let trailing = 0;
  while (trailing < lines.length - leading && lines[lines.length - 1 - trailing].kind === " ") trailing++;
  for (let cut = 1; cut <= 2; cut++) {
    const front = Math.min(cut, leading);
    const back = Math.min(cut, trailing);
    if (front === 0 && back === 0) break;
    const variant = lines.slice(front, lines.length - back);
    if (variant.some((l) => l.kind !== "+")) variants.push({ lines: variant, front });
  }
  return variants;
}

/**
 * Fuzzy placement: removed lines must match (whitespace aside); context lines need only be
 * similar. Each variant (full hunk, then with outer context trimmed) is tried in turn; the
 * first variant with any candidate decides, and it must have exactly one.
 */
function fuzzyCandidates(
  doc: TextDoc,
  lines: readonly HunkLine[],
  written: Written,
  index: LineIndex,
  fits: (pos: number, length: number) => boolean,
): Candidate[] {
  for (const { lines: variant, front } of trimmedVariants(lines)) {
    const old = variant.filter((l) => l.kind !== "+");
    const removed = old.filter((l) => l.kind === "-").length;
    const context = old.length - removed;
    // Without removed lines, the context alone must carry the match: demand enough of it.
    if (removed === 0 && context < 2) continue;
    const candidates: Candidate[] = [];
    for (const p of fuzzyStarts(old, removed, index)) {
      if (p < 0 || p + old.length > doc.length) continue;
      if (overlaps(written, p, old.length)) continue;
      // Trimming drops outer context, never the anchors: the untrimmed hunk must still start or end the file.
      if (!fits(p - front, old.length + front)) continue;
      let ok = true;
      let anchors = 0;
      // Removed lines first: they must match, and checking them is cheap.
      for (let k = 0; k < old.length && ok; k++) {
        if (old[k].kind !== "-") continue;
        if (!looseWhitespace(doc.plain(p + k), old[k].text)) ok = false;
        else anchors++;
      }
      let total = 0;
      for (let k = 0; k < old.length && ok; k++) {
        if (old[k].kind === "-") continue;
        const s = lineSimilarity(doc.plain(p + k), old[k].text);
        if (s < FUZZY_LINE) ok = false;
        total += s;
        if (s === 1) anchors++;
      }
      if (!ok || anchors === 0) continue;
      const mean = context === 0 ? 1 : total / context;
      if (mean >= FUZZY_MEAN) candidates.push({ pos: p, lines: variant, score: mean });
    }
    if (candidates.length > 0) return candidates;
  }
  return [];
}

/**
 * Where a fuzzy match can start, ascending: every removed line must match (whitespace aside), so
 * the rarest one's occurrences hold them all; without removed lines a context line must match
 * exactly (the anchor), so the occurrences of any context line do.
 */
function fuzzyStarts(old: readonly HunkLine[], removed: number, index: LineIndex): number[] {
  if (removed > 0) {
    let rarest = -1;
    for (let k = 0; k < old.length; k++) {
      if (old[k].kind !== "-") continue;
      if (rarest < 0 || index.count(old[k].text) < index.count(old[rarest].text)) rarest = k;
    }
    return index.positions(old[rarest].text).map((at) => at - rarest);
  }
  const starts = new Set<number>();
  for (let k = 0; k < old.length; k++) {
    for (const at of index.positions(old[k].text)) starts.add(at - k);
  }
  return [...starts].sort((a, b) => a - b);
}

/** Where a failed hunk came closest: the file's lines there, and the first of them that differs. */
export interface ClosestRegion {
  /** 1-based line where the closest place starts. */
  readonly line: number;
  readonly similarity: number;
  readonly text: string[];
  /** The first line of that place that is not the hunk's (1-based), what the hunk has and what the file has. */
  readonly diverged: { readonly line: number; readonly expected: string; readonly found: string } | null;
}

/** ", first different at line N: the hunk has `…`, the file `…`" for a NoMatch message. */
export function divergedText(diverged: ClosestRegion["diverged"]): string {
  if (!diverged) return "";
  const cut = (t: string) => (t.trim().length > 60 ? `${t.trim().slice(0, 60)}…` : t.trim());
  return `; first different at line ${diverged.line}: the patch has \`${cut(diverged.expected)}\`, the file \`${
    cut(diverged.found)
  }\``;
}

/**
 * The place in `lines` (from `from` on) most like `pattern`, for the NoMatch message of every
 * diff format: the file's lines there and the first line where the hunk diverges from them.
 */
export function closestRegion(
  lines: readonly string[],
  pattern: readonly string[],
  from = 0,
): ClosestRegion | null {
  if (lines.length - from <= 0 || pattern.length === 0) return null;
  const span = Math.min(pattern.length, lines.length - from);
  let best = -1;
  let bestScore = -1;
  for (let p = from; p + span <= lines.length; p++) {
    let total = 0;
    for (let k = 0; k < span; k++) total += lineSimilarity(lines[p + k], pattern[k]);
    if (total > bestScore) {
      bestScore = total;
      best = p;
    }
  }
  const text = lines.slice(best, best + span);
  let diverged: ClosestRegion["diverged"] = null;
  for (let k = 0; k < pattern.length; k++) {
    const found = lines[best + k];
    if (found === undefined || !exactly(found, pattern[k])) {
      diverged = { line: best + k + 1, expected: pattern[k], found: found ?? "(end of file)" };
      break;
    }
  }
  return { line: best + 1, similarity: Math.round((bestScore / span) * 100) / 100, text, diverged };
}

interface Reindent {
  readonly label: string;
  apply(text: string): string;
}

function leading(text: string): string {
  return /^[ \t]*/.exec(text)![0];
}

/**
 * When every matched line sits at the hunk's indentation plus (or minus) the same prefix, the
 * model wrote the hunk at the wrong depth: its added lines get the same correction.
 */
function indentShift(doc: TextDoc, pos: number, lines: readonly HunkLine[]): Reindent | null {
  let k = pos;
  let add: string | null = null;
  let remove: string | null = null;
  let pairs = 0;
  let consistentAdd = true;
  let consistentRemove = true;
  for (const l of lines) {
    if (l.kind === "+") continue;
    const fileLine = doc.plain(k++);
    if (fileLine.trim() === "" || l.text.trim() === "") continue;
    pairs++;
    const fi = leading(fileLine);
    const hi = leading(l.text);
    if (fi.endsWith(hi) && consistentAdd) {
      const prefix = fi.slice(0, fi.length - hi.length);
      if (add === null) add = prefix;
      else if (add !== prefix) consistentAdd = false;
    } else consistentAdd = false;
    if (hi.endsWith(fi) && consistentRemove) {
      const prefix = hi.slice(0, hi.length - fi.length);
      if (remove === null) remove = prefix;
      else if (remove !== prefix) consistentRemove = false;
    } else consistentRemove = false;
  }
  if (pairs === 0) return null;
  if (consistentAdd && add) {
    const prefix = add;
    return { label: `+${JSON.stringify(prefix)}`, apply: (t) => (t.trim() === "" ? t : prefix + t) };
  }
  if (consistentRemove && remove) {
    const prefix = remove;
    return {
      label: `-${JSON.stringify(prefix)}`,
      apply: (t) => (t.startsWith(prefix) ? t.slice(prefix.length) : t),
    };
  }
  return tabsForSpaces(doc, pos, lines);
}

/**
 * A hunk retyped with spaces where the file indents with tabs (or the other way round), matched
 * with whitespace aside: when one tab width explains every matched line's indentation, added
 * lines are re-indented in the file's style — a Makefile recipe keeps its tab.
 */
function tabsForSpaces(doc: TextDoc, pos: number, lines: readonly HunkLine[]): Reindent | null {
  const pairs: { file: string; hunk: string }[] = [];
  let k = pos;
  for (const l of lines) {
    if (l.kind === "+") continue;
    const fileLine = doc.plain(k++);
    if (fileLine.trim() === "" || l.text.trim() === "") continue;
    pairs.push({ file: leading(fileLine), hunk: leading(l.text) });
  }
  // Leads of tabs then spaces (a Makefile's continuation lines: a tab, then spaces to align).
  const split = (lead: string) => {
    const m = /^(\t*)( *)$/.exec(lead);
    return m ? { tabs: m[1].length, spaces: m[2].length } : null;
  };
  const parsed = pairs.map((p) => ({ file: split(p.file), hunk: split(p.hunk) }));
  if (parsed.some((p) => !p.file || !p.hunk)) return null;
  const fileTabs = parsed.every((p) => p.hunk!.tabs === 0) && parsed.some((p) => p.file!.tabs > 0);
  const fileSpaces = parsed.every((p) => p.file!.tabs === 0) && parsed.some((p) => p.hunk!.tabs > 0);
  if (!fileTabs && !fileSpaces) return null;
  const columns = (lead: { tabs: number; spaces: number }, width: number) => lead.tabs * width + lead.spaces;
  const width = [8, 4, 2, 3, 1].find((w) => parsed.every((p) => columns(p.file!, w) === columns(p.hunk!, w)));
  if (width === undefined) return null;
  const leadColumns = (t: string) => {
    const lead = split(/^[ \t]*/.exec(t)![0]) ?? { tabs: 0, spaces: 0 };
    return { count: columns(lead, width), length: lead.tabs + lead.spaces };
  };
  if (fileTabs) {
    return {
      label: `spaces→tabs (${width})`,
      apply: (t) => {
        const { count, length } = leadColumns(t);
        return "\t".repeat(Math.floor(count / width)) + " ".repeat(count % width) + t.slice(length);
      },
    };
  }
  return {
    label: `tabs→spaces (${width})`,
    apply: (t) => {
      const { count, length } = leadColumns(t);
      return " ".repeat(count) + t.slice(length);
    },
  };
}
