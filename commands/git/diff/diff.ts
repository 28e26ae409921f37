/**
 * Unified diffs in git's format, from xdiff's line diff (line_diff.ts): `diff --git` headers with mode,
 * new/deleted-file and `index` lines, `@@` hunks with git's default function-name context,
 * "\ No newline at end of file", and "Binary files ... differ" for binary content (a NUL in the
 * first 8000 bytes, as git decides; other text that is not UTF-8 is shown byte for byte). Renames are
 * detected as git detects them (`findRenames`, on by default as with git's diff.renames) and shown
 * with git's `similarity index` / `rename from` / `rename to` lines.
 */

import { concatBytes, DEFAULT_ALGORITHM, type LineAlgorithm, type UnifiedDiff, unifiedDiff } from "./line_diff.ts";
import { comparePaths, displayWidth, encoder, lenientDecoder, looksBinary, quoteName } from "../odb/bytes.ts";
import { sha1 } from "../odb/codec.ts";
import { MODE_GITLINK, MODE_LINK, objectHeader } from "../odb/objects.ts";
import { subprojectText } from "../repo/submodule.ts";
import { submoduleState } from "../porcelain/status.ts";
import type { Repo } from "../repo/repo.ts";
import type { FlatEntry } from "../odb/tree.ts";
import { lstatTracked } from "../worktree/worktree.ts";
import { conversionFor, worktreeBlob } from "../worktree/convert.ts";
import type { AttrValue } from "../worktree/attributes.ts";
import { DEFAULT_RENAME_SCORE, detectRenames, MAX_SCORE, similarityPercent } from "./renames.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { histogramChanged, HistogramLimit } from "./histogram.ts";
import { PtermError } from "../../../core/errors.ts";

/** The values git's parse_algorithm_value takes (any case), and what pterm does with each. */
const ALGORITHMS: Record<string, LineAlgorithm | "patience"> = {
  myers: DEFAULT_ALGORITHM,
  default: DEFAULT_ALGORITHM,
  minimal: { search: null, minimal: true },
  histogram: { search: histogramChanged, minimal: false },
  patience: "patience",
};

const PATIENCE =
  "pterm has no patience diff (git's xpatience.c is not carried); it has git's Myers (myers, default), minimal and " +
  "histogram diffs";

/** The flags that choose the line diff, as `git diff`, `show` and `log` take them. */
export interface AlgorithmFlags {
  readonly histogram?: boolean;
  readonly minimal?: boolean;
  readonly "diff-algorithm"?: string;
}

/**
 * The line diff git would use: `diff.algorithm` from the repository's config (git's
 * git_diff_ui_config; an unknown value stops git, and pterm), then the flags as diff.c applies
 * them (`--diff-algorithm` replaces both the algorithm and `--minimal`; `--histogram` replaces the
 * algorithm and keeps `--minimal`; `--minimal` adds XDF_NEED_MINIMAL to any). Patience is refused,
 * never replaced by another diff.
 */
export function lineAlgorithm(repo: Repo, flags: AlgorithmFlags): LineAlgorithm {
  const configured = repo.config.get("diff.algorithm");
  let chosen: LineAlgorithm | "patience" = DEFAULT_ALGORITHM;
  if (configured !== undefined) {
    const value = ALGORITHMS[configured.toLowerCase()];
    if (value === undefined) {
      throw new PtermError(
        "InvalidConfig",
        `diff.algorithm is '${configured}', which git does not know (myers, default, minimal, patience, histogram); ` +
          "git stops on it too: fix it with `git config diff.algorithm histogram` (or unset it).",
      );
    }
    chosen = value;
  }
  const given = flags["diff-algorithm"];
  if (given !== undefined) {
    if (flags.histogram || flags.minimal) {
      throw new PtermError(
        "InvalidArgs",
        "give the diff algorithm once: --diff-algorithm=<name>, or --histogram and/or --minimal (git applies them in " +
          "the order given, which pterm does not keep).",
      );
    }
    const value = ALGORITHMS[given.toLowerCase()];
    if (value === undefined) {
      throw new PtermError(
        "InvalidArgs",
        `--diff-algorithm '${given}' is not one git knows: myers (or default), minimal, histogram` +
          " (patience is git's too, but not pterm's).",
      );
    }
    if (value === "patience") {
      throw new PtermError("UnsupportedFormat", `--diff-algorithm=patience: ${PATIENCE}; give one of those.`);
    }
    return value;
  }
  if (flags.histogram) chosen = { search: histogramChanged, minimal: chosen !== "patience" && chosen.minimal };
  if (chosen === "patience") {
    throw new PtermError(
      "UnsupportedFormat",
      `diff.algorithm is 'patience': ${PATIENCE}. Run with \`--diff-algorithm=histogram\` (or myers), or set ` +
        "`git config diff.algorithm histogram`.",
    );
  }
  if (flags.minimal) chosen = { search: chosen.search, minimal: true };
  return chosen;
}

/** One side of a file change: a blob, or the file in the work tree (oid computed when read). */
export type DiffSide = { kind: "blob"; oid: string; mode: string } | { kind: "worktree"; mode: string } | null;

export interface FileChange {
  readonly path: string;
  readonly old: DiffSide;
  readonly new: DiffSide;
  /** A rename: the path the old side had, and git's score (0..60000). */
  readonly oldPath?: string;
  readonly score?: number;
  /**
   * The path has a conflict in progress: git's `* Unmerged path <path>` line comes first, then the
   * diff of the sides given (none: the line alone).
   */
  readonly unmerged?: boolean;
}

export interface DiffFile {
  path: string;
  old_path?: string;
  similarity?: number;
  status: "added" | "modified" | "deleted" | "typechange" | "renamed";
  old_mode: string | null;
  new_mode: string | null;
  binary: boolean;
  additions: number;
  deletions: number;
}

export interface RenderedDiff {
  /** The patch exactly as git writes it: each file's own bytes, whatever their encoding. */
  readonly patchBytes: Uint8Array;
  /** The patch as text: UTF-8 files' lines decoded, other files' one character per byte (see `notUtf8`). */
  readonly patch: string;
  /** Files whose lines in the patch are not UTF-8, so `patch` shows each of their bytes as one character. */
  readonly notUtf8: readonly string[];
  /**
   * Files whose diff driver (`diff=python` in .gitattributes, or one with diff.<name>.xfuncname) has
   * git take hunk headers' function lines from its own patterns; pterm writes git's default ones
   * (path → driver). The lines themselves are git's; only the text after `@@ … @@` can differ.
   */
  readonly otherFunctionLines: ReadonlyMap<string, string>;
  readonly files: DiffFile[];
  readonly additions: number;
  readonly deletions: number;
  /** For binary files: the old and new sizes in bytes, which `--stat` shows (`Bin 5 -> 6 bytes`). */
  readonly binarySizes: ReadonlyMap<string, readonly [number, number]>;
  /** Paths given as `unmerged` changes: each printed its `* Unmerged path` line (not in `files`). */
  readonly unmerged: readonly string[];
  /** core.quotePath of the repository the diff was rendered in: how --stat, --numstat and the rest name files. */
  readonly quotePath: boolean;
}

async function load(
  repo: Repo,
  path: string,
  side: DiffSide,
): Promise<{ bytes: Uint8Array; oid: string; dirty?: boolean }> {
  if (!side) return { bytes: new Uint8Array(), oid: "0".repeat(40) };
  if (side.mode === MODE_GITLINK) {
    // A submodule: the commit it records (or, in the work tree, the one checked out, `-dirty` with
    // changes to its tracked files; untracked ones are not shown), as git shows it.
    if (side.kind === "blob") return { bytes: subprojectText(side.oid), oid: side.oid };
    const state = await submoduleState(repo, path, null, { untracked: false });
    const oid = state?.head ?? "0".repeat(40);
    return { bytes: subprojectText(oid, state?.modified), oid, dirty: state?.modified };
  }
  if (side.kind === "blob") return { bytes: await repo.objects.readTyped(side.oid, "blob"), oid: side.oid };
  const info = lstatTracked(repo, path);
  const bytes = info ? await worktreeBlob(repo, path, info) : new Uint8Array();
  return { bytes, oid: await sha1(objectHeader("blob", bytes.length), bytes) };
}

const isLink = (side: DiffSide) => side?.mode === MODE_LINK;

/**
 * A patch being written: pterm's own ASCII (headers) and the line diffs' bodies, kept as they
 * are, so the bytes are git's and the text is made only if it is asked for.
 */
class PatchParts {
  readonly #parts: (string | UnifiedDiff)[] = [];
  add(part: string | UnifiedDiff): void {
    this.#parts.push(part);
  }
  bytes(): Uint8Array {
    return concatBytes(this.#parts.map((part) => typeof part === "string" ? encoder.encode(part) : part.bytes));
  }
  text(): string {
    return this.#parts.map((part) => typeof part === "string" ? part : part.text).join("");
  }
}

export interface RenderOptions {
  /** Lines of context (git's -U; 3 unless given). */
  readonly context?: number;
  /** The line diff (git's --diff-algorithm / diff.algorithm; Myers unless given). */
  readonly algorithm?: LineAlgorithm;
  /** The names' prefixes in the headers (`diffPrefixes`; `a/` and `b/` unless given). */
  readonly prefixes?: DiffPrefixes;
}

/** What a patch's headers put before the old and the new name (`diff --git a/x b/x`). */
export interface DiffPrefixes {
  readonly a: string;
  readonly b: string;
}

/**
 * The prefixes git's printed diffs use in `repo` (diff.c's diff_setup): none when diff.noprefix holds,
 * else `a/` and `b/`. diff.mnemonicPrefix would name the compared sides (`i/`, `w/`, `c/`, `o/`),
 * which pterm does not print: it is refused by name, never ignored.
 */
export function diffPrefixes(repo: Repo): DiffPrefixes {
  if (repo.config.getBool("diff.noprefix", false)) return { a: "", b: "" };
  if (repo.config.getBool("diff.mnemonicPrefix", false)) {
    throw new PtermError(
      "UnsupportedFormat",
      "diff.mnemonicPrefix=true would name the compared sides (i/, w/, c/) in git's diff headers, which pterm " +
        "does not print: run it with `-c diff.mnemonicPrefix=false`, or unset it (`git config --unset " +
        "diff.mnemonicPrefix`).",
    );
  }
  return DEFAULT_PREFIXES;
}

const DEFAULT_PREFIXES: DiffPrefixes = { a: "a/", b: "b/" };

/**
 * What the `diff` attribute makes of a file, as git's userdiff decides: `-diff` (or `binary`) always
 * binary; `diff` set always text, NUL bytes and all; `diff=<name>` the driver's `diff.<name>.binary`
 * from the config, else git's own test (a NUL in the first 8,000 bytes). A driver with
 * `diff.<name>.textconv` would have git run a program on both sides and show its output: pterm runs
 * none, and refuses rather than show other text than git's.
 */
/** git's built-in diff drivers (userdiff.c, git 2.39): each has its own function-line patterns. */
const BUILTIN_DRIVERS = new Set([
  "ada",
  "bash",
  "bibtex",
  "cpp",
  "csharp",
  "css",
  "dts",
  "elixir",
  "fortran",
  "fountain",
  "golang",
  "html",
  "java",
  "kotlin",
  "markdown",
  "matlab",
  "objc",
  "pascal",
  "perl",
  "php",
  "python",
  "ruby",
  "rust",
  "scheme",
  "tex",
]);

/** Whether git would take a hunk's function line from the driver's own patterns, which pterm does not apply. */
export function driverFunctionLines(repo: Repo, attribute: AttrValue | undefined): boolean {
  if (typeof attribute !== "string") return false;
  return BUILTIN_DRIVERS.has(attribute) || repo.config.get(`diff.${attribute}.xfuncname`) !== undefined ||
    repo.config.get(`diff.${attribute}.funcname`) !== undefined;
}

function diffDriver(repo: Repo, path: string, attribute: AttrValue | undefined): "binary" | "text" | "auto" {
  if (attribute === false) return "binary";
  if (attribute === true) return "text";
  if (typeof attribute !== "string") return "auto";
  if (repo.config.get(`diff.${attribute}.textconv`) !== undefined) {
    throw new PtermError(
      "UnsupportedFilter",
      `${
        quoteName(path, repo.quotePath)
      } has the diff driver \`${attribute}\` (.gitattributes), whose diff.${attribute}.textconv has git ` +
        "run a program on both sides and diff (and count) its output; pterm runs no programs, so it cannot give git's " +
        "diff of it: leave the path out (`-- <other paths>`), or diff it with the real git.",
    );
  }
  const binary = repo.config.get(`diff.${attribute}.binary`);
  if (binary === undefined) return "auto";
  return repo.config.getBool(`diff.${attribute}.binary`, false) ? "binary" : "text";
}

/** Renders the changes (sorted by path) as one git-style patch. */
export async function renderDiff(
  repo: Repo,
  changes: readonly FileChange[],
  options: RenderOptions = {},
): Promise<RenderedDiff> {
  const context = options.context ?? 3;
  const algorithm = options.algorithm ?? DEFAULT_ALGORITHM;
  const prefixes = options.prefixes ?? DEFAULT_PREFIXES;
  const files: DiffFile[] = [];
  const binarySizes = new Map<string, [number, number]>();
  const notUtf8 = new Set<string>();
  const otherFunctionLines = new Map<string, string>();
  const unmerged: string[] = [];
  const patch = new PatchParts();
  let additions = 0;
  let deletions = 0;
  for (const change of [...changes].sort((a, b) => comparePaths(a.path, b.path))) {
    if (change.unmerged) {
      unmerged.push(change.path);
      patch.add(`* Unmerged path ${change.path}\n`);
      if (!change.old && !change.new) continue;
    }
    // A change between a link and a file is shown as a deletion plus an addition, as git does.
    const split = change.old && change.new && isLink(change.old) !== isLink(change.new);
    const parts: FileChange[] = split
      ? [{ path: change.path, old: change.old, new: null }, { path: change.path, old: null, new: change.new }]
      : [change];
    let fileAdd = 0;
    let fileDel = 0;
    let binary = false;
    let printed = false;
    for (const part of parts) {
      const oldPath = part.oldPath ?? part.path;
      const before = await load(repo, oldPath, part.old);
      const after = await load(repo, part.path, part.new);
      const oldMode = part.old?.mode ?? null;
      const newMode = part.new?.mode ?? null;
      if (before.oid === after.oid && oldMode === newMode && !part.oldPath && !after.dirty) continue;
      // Names as git prints them: quoted when they need it, and a tab after a name with a space on
      // the ---/+++ lines (so a tool that stops at a tab reads the whole name).
      const a = part.old ? quoteName(`${prefixes.a}${oldPath}`, repo.quotePath) : "/dev/null";
      const b = part.new ? quoteName(`${prefixes.b}${part.path}`, repo.quotePath) : "/dev/null";
      const aTab = part.old && oldPath.includes(" ") ? "\t" : "";
      const bTab = part.new && part.path.includes(" ") ? "\t" : "";
      let header = `diff --git ${quoteName(`${prefixes.a}${oldPath}`, repo.quotePath)} ${
        quoteName(`${prefixes.b}${part.path}`, repo.quotePath)
      }\n`;
      if (!part.old) header += `new file mode ${newMode}\n`;
      else if (!part.new) header += `deleted file mode ${oldMode}\n`;
      else if (oldMode !== newMode) header += `old mode ${oldMode}\nnew mode ${newMode}\n`;
      if (part.oldPath) {
        header += `similarity index ${similarityPercent(part.score ?? MAX_SCORE)}%\n` +
          `rename from ${quoteName(part.oldPath, repo.quotePath)}\nrename to ${quoteName(part.path, repo.quotePath)}\n`;
      }
      const sameMode = part.old && part.new && oldMode === newMode;
      if (before.oid !== after.oid) {
        header += `index ${abbreviate(repo, before.oid)}..${abbreviate(repo, after.oid)}${
          sameMode ? ` ${oldMode}` : ""
        }\n`;
      }
      patch.add(header);
      printed = true;
      const attribute = (await conversionFor(repo).plan(part.path)).diff;
      const driver = diffDriver(repo, part.path, attribute);
      if (before.oid === after.oid && !after.dirty) {
        // A pure rename or mode change has no patch text, but git's --stat still says `Bin` for it.
        if (driver === "binary" || (driver === "auto" && looksBinary(before.bytes))) binary = true;
        continue;
      }
      // Binary as git decides: the diff driver's say (`-diff`/`binary` in .gitattributes, or a driver's
      // diff.<name>.binary), else a NUL in the first 8,000 bytes. Other text that is not UTF-8 (Latin-1,
      // say) is still text: line_diff.ts shows it one character per byte.
      if (driver === "binary" || (driver === "auto" && (looksBinary(before.bytes) || looksBinary(after.bytes)))) {
        binary = true;
        binarySizes.set(change.path, [before.bytes.length, after.bytes.length]);
        patch.add(`Binary files ${a} and ${b} differ\n`);
        continue;
      }
      if (before.bytes.length === 0 && after.bytes.length === 0) continue;
      patch.add(`--- ${a}${aTab}\n+++ ${b}${bTab}\n`);
      let hunks: UnifiedDiff;
      try {
        hunks = unifiedDiff(before.bytes, after.bytes, context, "wasm", algorithm);
      } catch (error) {
        if (!(error instanceof HistogramLimit)) throw error;
        throw new PtermError(
          "UnsupportedFormat",
          `git's histogram diff gives up on ${
            quoteName(change.path, repo.quotePath)
          } (more than 64 different lines fall in one ` +
            'chain of its hash table), and real git stops there too ("unable to generate diff"): diff it with ' +
            "`--diff-algorithm=myers`.",
        );
      }
      patch.add(hunks);
      if (!hunks.utf8) notUtf8.add(change.path);
      if (hunks.bytes.length && driverFunctionLines(repo, attribute)) otherFunctionLines.set(part.path, `${attribute}`);
      // git counts a checkout that is only dirty (same commit) as 0 lines changed (`sub | 0` in --stat).
      if (before.oid === after.oid) continue;
      fileAdd += hunks.add;
      fileDel += hunks.del;
    }
    const status: DiffFile["status"] = change.oldPath
      ? "renamed"
      : split
      ? "typechange"
      : !change.old
      ? "added"
      : !change.new
      ? "deleted"
      : "modified";
    // Nothing printed: content and mode turned out identical (e.g. a file only touched).
    if (!printed) continue;
    additions += fileAdd;
    deletions += fileDel;
    files.push({
      path: change.path,
      ...(change.oldPath ? { old_path: change.oldPath, similarity: similarityPercent(change.score ?? MAX_SCORE) } : {}),
      status,
      old_mode: change.old?.mode ?? null,
      new_mode: change.new?.mode ?? null,
      binary,
      additions: fileAdd,
      deletions: fileDel,
    });
  }
  const patchBytes = patch.bytes();
  let text: string | undefined;
  return {
    patchBytes,
    get patch() {
      return text ??= patch.text();
    },
    notUtf8: [...notUtf8],
    otherFunctionLines,
    unmerged,
    files,
    additions,
    deletions,
    binarySizes,
    quotePath: repo.quotePath,
  };
}

/**
 * A rename as git's diffstat names it (git's pprint_rename): `dir/{old => new}/file`, or, when
 * either name needs quoting, both whole and quoted (`"caf\303\251.txt" => "th\303\251.txt"`).
 */
export function renameName(a: string, b: string, quotePath: boolean): string {
  const quotedA = quoteName(a, quotePath);
  const quotedB = quoteName(b, quotePath);
  if (quotedA !== a || quotedB !== b) return `${quotedA} => ${quotedB}`;
  let prefix = 0;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) {
    if (a[i] === "/") prefix = i + 1;
    i++;
  }
  // Compared from the ends (the string ends count as equal), never back into the prefix but its slash.
  let suffix = 0;
  let ia = a.length;
  let ib = b.length;
  const floor = prefix - (prefix ? 1 : 0);
  const at = (s: string, k: number) => (k === s.length ? "" : s[k]);
  while (ia >= floor && ib >= floor && at(a, ia) === at(b, ib)) {
    if (at(a, ia) === "/") suffix = a.length - ia;
    ia--;
    ib--;
  }
  const aMid = Math.max(0, a.length - prefix - suffix);
  const bMid = Math.max(0, b.length - prefix - suffix);
  const middle = `${a.slice(prefix, prefix + aMid)} => ${b.slice(prefix, prefix + bMid)}`;
  return prefix + suffix ? `${a.slice(0, prefix)}{${middle}}${a.slice(a.length - suffix)}` : middle;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** What a diffstat is made of: a rendered diff's files, its conflicted paths, and how it quotes names. */
type StatInput = Pick<RenderedDiff, "files" | "binarySizes" | "quotePath"> & { unmerged?: readonly string[] };

/** One row of a diffstat: a changed file, or a path with a conflict in progress (git's `Unmerged` row). */
type StatRow =
  | { kind: "file"; file: DiffFile; name: string; sizes: readonly [number, number] }
  | { kind: "unmerged"; name: string };

/**
 * The rows of git's diffstat in git's order: the diff's files, each conflicted path's row placed
 * where its path sorts, before the change of our side's file at the same path (diff-files queues
 * the unmerged entry first).
 */
function statRows(rendered: StatInput): StatRow[] {
  const { quotePath } = rendered;
  const rows: StatRow[] = rendered.files.map((f) => ({
    kind: "file",
    file: f,
    name: f.old_path ? renameName(f.old_path, f.path, quotePath) : quoteName(f.path, quotePath),
    sizes: rendered.binarySizes.get(f.path) ?? [0, 0],
  }));
  for (const path of rendered.unmerged ?? []) {
    const at = rows.findIndex((r) => r.kind === "file" && comparePaths(r.file.path, path) >= 0);
    rows.splice(at < 0 ? rows.length : at, 0, { kind: "unmerged", name: quoteName(path, quotePath) });
  }
  return rows;
}

/** git's summary line (` 2 files changed, 3 insertions(+), 1 deletion(-)`), conflicted paths not counted. */
function statSummary(files: readonly DiffFile[]): string {
  if (files.length === 0) return " 0 files changed\n";
  let insertions = 0;
  let deletions = 0;
  for (const f of files) {
    if (f.binary) continue;
    insertions += f.additions;
    deletions += f.deletions;
  }
  let summary = ` ${files.length} file${files.length === 1 ? "" : "s"} changed`;
  if (insertions || deletions === 0) summary += `, ${insertions} insertion${insertions === 1 ? "" : "s"}(+)`;
  if (deletions || insertions === 0) summary += `, ${deletions} deletion${deletions === 1 ? "" : "s"}(-)`;
  return summary + "\n";
}

/** `git diff --shortstat`: the summary line alone; nothing when no file changed and no path is in conflict. */
export function renderShortStat(rendered: Pick<RenderedDiff, "files"> & { unmerged?: readonly string[] }): string {
  return rendered.files.length || rendered.unmerged?.length ? statSummary(rendered.files) : "";
}

/**
 * `git diff --numstat`: `<added>\t<deleted>\t<name>` per row (`-\t-` for a binary file, `0\t0` for a
 * conflicted path), names as the diffstat names them but never cut.
 */
export function renderNumStat(
  rendered: StatInput,
): string {
  return statRows(rendered).map((row) =>
    row.kind === "unmerged"
      ? `0\t0\t${row.name}\n`
      : row.file.binary
      ? `-\t-\t${row.name}\n`
      : `${row.file.additions}\t${row.file.deletions}\t${row.name}\n`
  ).join("");
}

/**
 * `git diff --stat` as git prints it without a terminal (80 columns; diff.c show_stats): names
 * quoted as git quotes them and cut from the left with `...` when too long, the count column as
 * wide as the largest count (or `Bin`), the graph scaled to the room left, binary files as
 * `Bin <old> -> <new> bytes`. A conflicted path is git's ` <name> | Unmerged` row, which git ends
 * without a newline (the next row follows on the same line) and leaves out of the summary.
 */
export function renderStat(
  rendered: StatInput,
): string {
  const files = rendered.files;
  const rows = statRows(rendered);
  if (rows.length === 0) return "";
  const width = 80;
  const decimalWidth = (n: number) => String(n).length;
  let maxLen = 0;
  let maxChange = 0;
  let numberWidth = 0;
  let binWidth = 0;
  for (const row of rows) {
    maxLen = Math.max(maxLen, displayWidth(row.name));
    if (row.kind === "unmerged") continue;
    if (row.file.binary) {
      binWidth = Math.max(binWidth, 14 + decimalWidth(row.sizes[0]) + decimalWidth(row.sizes[1]));
      numberWidth = 3; // counts line up with "Bin"
      continue;
    }
    maxChange = Math.max(maxChange, row.file.additions + row.file.deletions);
  }
  numberWidth = Math.max(decimalWidth(maxChange), numberWidth);
  const total = Math.max(width, 16 + 6 + numberWidth);
  let graphWidth = maxChange + 4 > binWidth ? maxChange : binWidth - 4;
  let nameWidth = maxLen;
  if (nameWidth + numberWidth + 6 + graphWidth > total) {
    const third = Math.trunc((total * 3) / 8) - numberWidth - 6;
    if (graphWidth > third) graphWidth = Math.max(6, third);
    if (nameWidth > total - numberWidth - 6 - graphWidth) nameWidth = total - numberWidth - 6 - graphWidth;
    else graphWidth = total - numberWidth - 6 - nameWidth;
  }
  const scale = (it: number) => (it === 0 ? 0 : 1 + Math.trunc((it * (graphWidth - 1)) / maxChange));
  const lines = rows.map((row) => {
    let name = row.name;
    let prefix = "";
    let room = nameWidth;
    const width = displayWidth(name);
    let padding = room - width;
    if (nameWidth < width) {
      // git skips as many bytes as the name is columns too wide (diff.c's NEEDSWORK: a wide name stays
      // longer than the room, and the cut can fall inside a character), then cuts at the next slash.
      prefix = "...";
      room = Math.max(0, room - 3);
      let rest = encoder.encode(name).subarray(width - room);
      const slash = rest.indexOf(0x2f);
      if (slash >= 0) rest = rest.subarray(slash);
      // A cut inside a character leaves bytes that are not UTF-8: text shows them as U+FFFD, and git
      // (utf8_strwidth) counts such a rest in bytes.
      name = lenientDecoder.decode(rest);
      padding = room - (isUtf8(rest) ? displayWidth(name) : rest.length);
    }
    const head = ` ${prefix}${name}${" ".repeat(Math.max(0, padding))} | `;
    if (row.kind === "unmerged") return `${head}Unmerged`;
    const { file, sizes } = row;
    if (file.binary) {
      const [before, after] = sizes;
      return head + "Bin".padStart(numberWidth) + (before || after ? ` ${before} -> ${after} bytes` : "") + "\n";
    }
    let add = file.additions;
    let del = file.deletions;
    if (graphWidth <= maxChange) {
      let sum = scale(add + del);
      if (sum < 2 && add && del) sum = 2;
      if (add < del) {
        add = scale(add);
        del = sum - add;
      } else {
        del = scale(del);
        add = sum - del;
      }
    }
    const count = file.additions + file.deletions;
    return head + String(count).padStart(numberWidth) + (count ? " " : "") + "+".repeat(add) + "-".repeat(del) + "\n";
  });
  return lines.join("") + statSummary(files);
}

/**
 * Pairs deletions with additions that are renames (git's diffcore-rename, `minScore` out of
 * MAX_SCORE): each pair becomes one change at the new path with `oldPath` set.
 */
export async function findRenames(
  repo: Repo,
  changes: readonly FileChange[],
  minScore = DEFAULT_RENAME_SCORE,
): Promise<FileChange[]> {
  const deleted = new Map<string, { oid: string; mode: string; side: DiffSide }>();
  const added = new Map<string, { oid: string; mode: string; side: DiffSide }>();
  for (const c of changes) {
    if (c.old && !c.new) {
      deleted.set(c.path, { oid: c.old.kind === "blob" ? c.old.oid : "", mode: c.old.mode, side: c.old });
    }
    if (!c.old && c.new) {
      added.set(c.path, {
        oid: c.new.kind === "blob" ? c.new.oid : `worktree:${c.path}`,
        mode: c.new.mode,
        side: c.new,
      });
    }
  }
  if (deleted.size === 0 || added.size === 0) return [...changes];
  // A work-tree side's blob name is only known once read: read it up front so exact renames match.
  for (const [path, entry] of added) {
    if (entry.side?.kind === "worktree") entry.oid = (await load(repo, path, entry.side)).oid;
  }
  const renames = await detectRenames(
    deleted,
    added,
    async (path, entry) => (await load(repo, path, entry.side)).bytes,
    minScore,
  );
  if (renames.length === 0) return [...changes];
  const from = new Map(renames.map((r) => [r.from, r]));
  const to = new Map(renames.map((r) => [r.to, r]));
  const out: FileChange[] = [];
  for (const c of changes) {
    if (c.old && !c.new && from.has(c.path)) continue;
    const rename = !c.old && c.new ? to.get(c.path) : undefined;
    if (rename) {
      out.push({
        path: c.path,
        old: deleted.get(rename.from)!.side,
        new: c.new,
        oldPath: rename.from,
        score: rename.score,
      });
    } else out.push(c);
  }
  return out;
}

/** Changes between two flattened trees (or index snapshots). */
export function changesBetween(
  from: ReadonlyMap<string, FlatEntry>,
  to: ReadonlyMap<string, FlatEntry>,
): FileChange[] {
  const out: FileChange[] = [];
  for (const [path, a] of from) {
    const b = to.get(path);
    if (!b) out.push({ path, old: { kind: "blob", ...a }, new: null });
    else if (a.oid !== b.oid || a.mode !== b.mode) {
      out.push({ path, old: { kind: "blob", ...a }, new: { kind: "blob", ...b } });
    }
  }
  for (const [path, b] of to) if (!from.has(path)) out.push({ path, old: null, new: { kind: "blob", ...b } });
  return out;
}
