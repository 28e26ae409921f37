/**
 * What several of the history handlers share (entries/history.ts lists them).
 */

import type { CommandContext } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import {
  type DiffFile,
  type FileChange,
  findRenames,
  type RenderedDiff,
  renderNumStat,
  renderShortStat,
  renderStat,
} from "../diff/diff.ts";
import { mergeBases } from "../merge/merge.ts";
import { MAX_SCORE } from "../diff/renames.ts";
import { resolveCommit } from "../history/revparse.ts";
import type { Repo } from "../repo/repo.ts";
import { pathWithin } from "../odb/tree.ts";
import type { PathPolicy } from "../worktree/worktree.ts";
import { bounded } from "./common.ts";
import { comparePaths, quoteName } from "../odb/bytes.ts";
import {
  decorations,
  parseDateMode,
  parsePretty,
  type PrettyContext,
  type PrettyFormat,
  unsupportedPlaceholder,
} from "../history/pretty.ts";

export const fatalUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The bytes as UTF-8 text (a BOM kept, as git prints it), or null when they are not UTF-8. */
export function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return fatalUtf8.decode(bytes);
  } catch {
    return null;
  }
}

export function filterChanges(
  changes: FileChange[],
  scope: string[],
  policy: PathPolicy,
): { kept: FileChange[]; withheld: string[] } {
  const kept: FileChange[] = [];
  const withheld: string[] = [];
  for (const c of changes) {
    if (scope.length && !scope.some((s) => pathWithin(c.path, s))) continue;
    if (policy.hidden(c.path)) withheld.push(c.path);
    else kept.push(c);
  }
  return { kept, withheld: withheld.sort() };
}

export const STATUS_LETTER: Record<DiffFile["status"], string> = {
  added: "A",
  modified: "M",
  deleted: "D",
  typechange: "T",
  renamed: "R",
};

export type ViewFlags = {
  stat?: boolean;
  numstat?: boolean;
  shortstat?: boolean;
  "name-only"?: boolean;
  "name-status"?: boolean;
  "no-patch"?: boolean;
};

/** The text of a diff in the form the flags ask for (stat, names); null for the patch itself. */
export function viewOf(rendered: RenderedDiff, flags: ViewFlags): string | null {
  if (flags["no-patch"]) return "";
  if (flags["name-only"] || flags["name-status"]) {
    // git's form: `R<similarity>\t<old>\t<new>` for a rename; a conflicted path `U\t<path>` (its name alone
    // with --name-only) before the change of our side's file in the work tree, if any.
    const quote = (path: string) => quoteName(path, rendered.quotePath);
    const line = (f: DiffFile) =>
      flags["name-only"]
        ? quote(f.path)
        : f.status === "renamed"
        ? `R${String(f.similarity ?? 100).padStart(3, "0")}\t${quote(f.old_path!)}\t${quote(f.path)}`
        : `${STATUS_LETTER[f.status]}\t${quote(f.path)}`;
    const rows = [
      ...rendered.unmerged.map((path) => ({
        path,
        first: 0,
        text: flags["name-only"] ? quote(path) : `U\t${quote(path)}`,
      })),
      ...rendered.files.map((f) => ({ path: f.path, first: 1, text: line(f) })),
    ].sort((a, b) => comparePaths(a.path, b.path) || a.first - b.first);
    return rows.map((r) => r.text).join("\n") + (rows.length ? "\n" : "");
  }
  if (flags.numstat) return renderNumStat(rendered);
  if (flags.shortstat) return renderShortStat(rendered);
  if (flags.stat) return renderStat(rendered);
  return null;
}

/**
 * Why stdout's patch is not the patch itself: files whose lines are not UTF-8 show each byte as
 * one character there (Latin-1's é as é, whatever the file's encoding), so that text, written
 * back as UTF-8, would change those bytes. The artifact holds git's bytes.
 */
export function notUtf8Warning(paths: readonly string[], artifact: string, quotePath: boolean): string {
  const named = paths.slice(0, 5).map((path) => quoteName(path, quotePath)).join(", ") +
    (paths.length > 5 ? ` and ${paths.length - 5} more` : "");
  return `[Warning] ${named} ${paths.length === 1 ? "is" : "are"} not UTF-8: stdout shows each of ${
    paths.length === 1 ? "its" : "their"
  } bytes as one character (as Latin-1), so that text is not the patch; the patch, byte for byte as git writes it, ` +
    `is the artifact ${artifact} (apply that file, e.g. \`patch apply --file ${artifact}\`).\n`;
}

/** Which files' hunk headers carry git's default function line where git would use their diff driver's. */
export function functionLineNote(files: ReadonlyMap<string, string>, quotePath: boolean): string {
  const named =
    [...files].slice(0, 5).map(([path, driver]) => `${quoteName(path, quotePath)} (diff=${driver})`).join(", ") +
    (files.size > 5 ? ` and ${files.size - 5} more` : "");
  return `[Note] the function names after \`@@ … @@\` in the hunk headers of ${named} are git's default ones; git ` +
    "would take them from the diff driver's own patterns, which pterm does not apply. The changed lines are git's.\n";
}

export async function emit(
  // deno-lint-ignore no-explicit-any
  ctx: CommandContext<any, any>,
  rendered: RenderedDiff,
  flags: ViewFlags,
  header: string | ((hasDiff: boolean) => string) = "",
  /** What an empty diff prints after the header: nothing, as git (the result's empty files list says it). */
  empty = "",
) {
  const prefix = typeof header === "string" ? header : header(rendered.files.length > 0 && !flags["no-patch"]);
  let text = viewOf(rendered, flags);
  let artifact: string | null = null;
  const notUtf8 = text === null ? rendered.notUtf8 : [];
  if (text === null) {
    const size = rendered.patchBytes.length;
    const budget = Math.max(1024, ctx.limits.stdout_bytes - prefix.length - 512);
    // A patch too long for stdout, or one whose text is not its bytes, is saved as git's bytes.
    if (size > budget || notUtf8.length) {
      const ref = await ctx.artifacts.save("diff.patch", rendered.patchBytes, {
        mime: "text/x-diff",
        description: "the full patch, git's bytes (git apply can read it)",
      });
      artifact = ref.path;
    }
    text = size > budget
      ? `${renderStat(rendered)}\nThe patch is ${size} bytes; it is in the artifact ${artifact}.\n`
      : rendered.patch;
    if (notUtf8.length) ctx.stderr.write(notUtf8Warning(notUtf8, artifact!, rendered.quotePath));
    if (rendered.otherFunctionLines.size) {
      ctx.stderr.write(functionLineNote(rendered.otherFunctionLines, rendered.quotePath));
    }
  }
  ctx.stdout.write(prefix + (text || (flags["no-patch"] ? "" : empty)));
  const listed = bounded(rendered.files);
  return {
    files: listed.items,
    additions: rendered.additions,
    deletions: rendered.deletions,
    truncated: listed.truncated,
    patch_artifact: artifact,
    not_utf8: notUtf8,
  };
}

/** The two sides `a..b` or `a...b` (the merge base of a and b, then b) name; an empty end is HEAD. */
export async function rangeEnds(repo: Repo, word: string): Promise<[string, string] | null> {
  const range = word.includes(":") ? null : word.match(/^(.*?)(\.\.\.?)(.*)$/);
  if (!range) return null;
  const from = range[1] || "HEAD";
  const to = range[3] || "HEAD";
  if (range[2] === "..") return [from, to];
  const bases = await mergeBases(repo, await resolveCommit(repo, from), await resolveCommit(repo, to));
  if (bases.length === 0) {
    throw new PtermError(
      "NotFound",
      `\`${from}\` and \`${to}\` have no common ancestor, so \`${word}\` names nothing.`,
    );
  }
  return [bases[0], to];
}

/** Renames are detected unless --no-renames, as with git's default diff.renames=true. */
export async function withRenames(
  repo: Repo,
  changes: FileChange[],
  flags: { "find-renames": number; "no-renames"?: boolean },
): Promise<FileChange[]> {
  if (flags["no-renames"]) return changes;
  return await findRenames(repo, changes, Math.round(flags["find-renames"] * MAX_SCORE / 100));
}

/**
 * git's pretty output for log and show: `--format`/`--pretty`/`--oneline`, else the repository's
 * `format.pretty`, else git's default medium format; `--date` else `log.date`; decorations with
 * --decorate, %d/%D or `log.decorate` true/short (its default, auto, prints none when git's output is
 * not a terminal, and pterm's never is; `full` is refused by name); `log.abbrevCommit` as git.
 */
export async function prettyOptions(
  repo: Repo,
  flags: { format?: string; oneline?: boolean; "abbrev-commit"?: boolean; decorate?: boolean; date?: string },
): Promise<PrettyContext & { format: PrettyFormat }> {
  const spec = flags.format ?? (flags.oneline ? "oneline" : repo.config.get("format.pretty") ?? "medium");
  const format = parsePretty(spec);
  if (format.kind === "template") {
    const unsupported = unsupportedPlaceholder(format.template);
    if (unsupported) {
      throw new PtermError(
        "InvalidArgs",
        `--format: ${unsupported}… (padding, wrapping, trailers or reflog fields) is not available in pterm; the ` +
          "other placeholders are (see --help).",
      );
    }
  }
  const configured = (repo.config.get("log.decorate") ?? "auto").toLowerCase();
  if (configured === "full" && !flags.decorate) {
    throw new PtermError(
      "UnsupportedFormat",
      "this repository sets log.decorate=full (full ref names), which pterm does not print: add --decorate for " +
        "git's short names, or `--format=%H %s` without names.",
    );
  }
  const decorateByConfig = ["true", "yes", "on", "1", "short"].includes(configured);
  const wantsDecorations = flags.decorate || decorateByConfig ||
    (format.kind === "template" && /%[dD]/.test(format.template));
  const isTrue = (value: string | undefined) => ["true", "yes", "on", "1"].includes((value ?? "").toLowerCase());
  return {
    repo,
    format,
    date: parseDateMode(
      flags.date ??
        (format.kind === "builtin" && format.name === "reference" ? "short" : repo.config.get("log.date")),
    ),
    decorations: wantsDecorations ? await decorations(repo) : null,
    abbrevCommit: flags.oneline === true || flags["abbrev-commit"] === true ||
      isTrue(repo.config.get("log.abbrevCommit")),
  };
}

/** Formats that end each commit with a newline (oneline, reference, tformat). */
export function terminatorFormat(format: PrettyFormat): boolean {
  return format.kind === "template" ? format.terminator : format.name === "oneline" || format.name === "reference";
}
