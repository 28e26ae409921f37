/** `patch apply` and `patch check`: read the patch, run it, summarise. */

import type { CommandContext, Handler } from "../../core/context.ts";
import { PtermError } from "../../core/errors.ts";
import { utf8Length } from "../../core/truncate.ts";
import { CodexParseError, codexToXGit, parseCodexPatch } from "./codex.ts";
import {
  type PatchConfig,
  type PatchResult,
  type PatchRun,
  recoverPending,
  resolveRepo,
  type RunMode,
  runPatch,
} from "./engine.ts";
import { failure, type Problem } from "./errors.ts";
import { repositoriesNear } from "../git/repo/locate.ts";
import { quoteWord } from "../../core/grammar.ts";
import { detectInputFormat, type InputFormat, wrapUnifiedDiff } from "./input.ts";
import type { applyFlags, checkFlags, recoverFlags } from "./flags.ts";
import { decodeLossless } from "./text.ts";

async function patchText(ctx: CommandContext<{ file?: string }>): Promise<string> {
  // stdin's bytes, as --file's: a diff of a Latin-1 file keeps its bytes (see decodeLossless).
  if (ctx.flags.file === undefined) return ctx.stdinBytes ? decodeLossless(ctx.stdinBytes) : ctx.stdin ?? "";
  const { abs } = await ctx.workspace.resolve(ctx.flags.file, "read", { label: "--file" });
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(abs);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new PtermError(
        "NotFound",
        `--file \`${ctx.flags.file}\` does not exist; give a patch file under the root.`,
      );
    }
    if (error instanceof Deno.errors.IsADirectory) {
      throw new PtermError("InvalidArgs", `--file \`${ctx.flags.file}\` is a folder; give the patch file itself.`);
    }
    throw error;
  }
  if (bytes.length > ctx.limits.stdin_bytes) {
    throw new PtermError(
      "InputTooLarge",
      `--file \`${ctx.flags.file}\` is ${bytes.length} bytes, more than the ${ctx.limits.stdin_bytes} a patch may be; ` +
        "split it into several patches.",
    );
  }
  // Bytes that are not UTF-8 (a diff of a Latin-1 file) are kept as escapes and written back as
  // they were, never turned into U+FFFD.
  return decodeLossless(bytes);
}

function summary(result: PatchResult, mode: RunMode, committing: boolean): string {
  const lines: string[] = [];
  for (const r of result.recovered) {
    lines.push(
      `Recovered: run ${r.run_id} was killed mid-apply; ${r.action.replace("_", " ")} ${r.paths.length} path(s).`,
    );
  }
  let added = 0;
  let removed = 0;
  for (const b of result.blocks) {
    added += b.lines_added;
    removed += b.lines_removed;
    const where = b.path ? ` ${b.path}` : b.files?.length ? ` ${b.files.join(", ")}` : "";
    const at = b.at_line ? ` @${b.at_line}` : "";
    const strategies = b.hunks?.length ? ` [${[...new Set(b.hunks.map((h) => h.strategy))].join(",")}]` : "";
    lines.push(`  ${b.index}. ${b.op}${where}: ${b.status}${at} +${b.lines_added} -${b.lines_removed}${strategies}`);
  }
  const files = result.files_changed.length;
  const head = mode === "check"
    ? `Check passed: ${result.blocks.length} block(s), ${files} file(s) would change (+${added} -${removed}).`
    : mode === "dry-run"
    ? `Dry run: ${result.blocks.length} block(s) would apply, ${files} file(s) would change (+${added} -${removed}); nothing written.`
    : `Applied ${result.blocks.length} block(s) to ${result.repo_path}: ${files} file(s) changed (+${added} -${removed})` +
      (result.commit_id
        ? `; commit ${result.commit_id.slice(0, 12)}.`
        : result.is_repository && !committing
        ? "; not committed (the edits are in the work tree; -m <message> or --commit commits them)."
        : result.is_repository
        ? "; no commit."
        : files
        ? "; no commit (not a git repository)."
        : ".");
  for (const w of result.warnings) lines.push(`Warning: ${w}`);
  return [head, ...lines].join("\n") + "\n";
}

/**
 * The repositories (folders with a `.git`, relative to the root) below `base` that hold each of
 * `paths` (relative to `base`), innermost first.
 */
async function repositoriesHolding(
  root: string,
  base: string,
  paths: readonly string[],
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  // Many paths share their folders: each folder is looked at once.
  const repositories = new Map<string, boolean>();
  const isRepository = async (folder: string): Promise<boolean> => {
    let known = repositories.get(folder);
    if (known === undefined) {
      known = await Deno.lstat(`${root}/${folder}/.git`).then(() => true, () => false);
      repositories.set(folder, known);
    }
    return known;
  };
  for (const path of paths) {
    const parts = (base === "." ? path : `${base}/${path}`).split("/");
    const baseDepth = base === "." ? 0 : base.split("/").length;
    for (let depth = parts.length - 1; depth > baseDepth; depth--) {
      const folder = parts.slice(0, depth).join("/");
      if (!(await isRepository(folder))) continue;
      found.set(folder, [...(found.get(folder) ?? []), path]);
      break;
    }
  }
  return found;
}

/**
 * A patch run outside a repository makes no commit; when the files it edits lie inside one, that
 * is rarely what was meant: say so, and give the line that would have committed them.
 */
async function noCommitWarnings(ctx: CommandContext, result: PatchResult, mode: RunMode): Promise<string[]> {
  if (result.is_repository || result.files_changed.length === 0) return [];
  const held = await repositoriesHolding(ctx.workspace.root, result.repo_path, result.files_changed.map((f) => f.path));
  const verb = mode === "apply" ? "no commit was made" : "no commit would be made";
  if (held.size === 0) {
    return [`${verb}: \`${result.repo_path}\` is not a git repository (name one with --repo <folder> to commit).`];
  }
  return [...held].map(([repo, paths]) => {
    const inside = (p: string) => (result.repo_path === "." ? p : `${result.repo_path}/${p}`).slice(repo.length + 1);
    return `${verb}: \`${result.repo_path}\` is not a git repository, but ${
      paths.slice(0, 3).map((p) => `\`${p}\``).join(", ")
    }${paths.length > 3 ? ` and ${paths.length - 3} more` : ""} lie in the repository \`${repo}\`; to commit them, ` +
      `run \`${ctx.command} --repo ${repo}\` with paths relative to it (\`${inside(paths[0])}\` for \`${paths[0]}\`).`;
  });
}

/**
 * A path the patch names that is not in the folder it ran in but is in another repository near
 * the root (or in the root itself): the NotFound error says which `--repo` finds it, as a line
 * that runs, or that the path was written from the root rather than from the repository.
 */
async function withRepositoryHint(run: PatchRun, file: string | undefined, error: unknown): Promise<unknown> {
  // The line to run again: the same command and patch source, another --repo.
  const again = (repo: string) =>
    `${run.command}${file === undefined ? "" : ` --file ${quoteWord(file)}`} --repo ${repo}`;
  if (!(error instanceof PtermError) || error.code !== "NotFound") return error;
  const repoRel = typeof error.result?.repo_path === "string"
    ? error.result.repo_path
    : await resolveRepo(run, { header: {} }).then((r) => r.rel, () => null);
  if (repoRel === null) return error;
  const problems = (error.result?.problems ?? []) as Problem[];
  const paths = problems.filter((p) => p.code === "NotFound")
    .map((p) => (p.details?.file as string | undefined) ?? p.path)
    .filter((p): p is string => typeof p === "string" && p !== "" && p !== "." && !p.startsWith("/"));
  // Only a path the patch may write there is worth naming (never one into a git directory).
  const writable = (rel: string) =>
    run.workspace.resolve(rel, "write", { label: "the path" }).then((r) => r.exists, () => false);
  const hints: string[] = [];
  for (const path of new Set(paths)) {
    if (repoRel !== "." && path.startsWith(`${repoRel}/`) && await writable(path)) {
      hints.push(
        `\`${path}\` is written from the workspace root, but the patch's paths are relative to the repository ` +
          `\`${repoRel}\`: write \`${path.slice(repoRel.length + 1)}\` (or run \`${again(".")}\`).`,
      );
      continue;
    }
    const elsewhere = [
      ...(repoRel === "." ? [] : ["."]),
      ...repositoriesNear(run.workspace.root).filter((r) => r !== repoRel),
    ];
    for (const folder of elsewhere) {
      if (!await writable(folder === "." ? path : `${folder}/${path}`)) continue;
      hints.push(
        `\`${path}\` exists in ${folder === "." ? "the workspace root" : `the repository \`${folder}\``}: did you ` +
          `mean --repo ${quoteWord(folder)}? Run \`${again(quoteWord(folder))}\`${
            file === undefined ? " with the same patch" : ""
          }.`,
      );
      break;
    }
  }
  if (hints.length === 0) return error;
  return new PtermError(error.code, `${error.message}\n${hints.join("\n")}`, {
    result: error.result,
    helpFor: error.helpFor,
    hint: error.hint,
  });
}

/** What the engine runs for a patch in any input format, and how to relate its messages to the text sent. */
interface Prepared {
  readonly format: InputFormat;
  readonly xgit: string;
  readonly warnings: readonly string[];
  /** Appended to a failure's message: where the engine's block numbers and patch lines come from. */
  readonly note: string;
}

/** A diff line as a coloured `git diff` (or `diff --color`) writes it: an SGR code before the header. */
// deno-lint-ignore no-control-regex -- ESC is what is looked for
const COLOURED_DIFF_LINE = /^\x1b\[[0-9;]*m(?:diff --git |--- |\+\+\+ |@@ )/m;

async function prepare(ctx: CommandContext, run: PatchRun): Promise<Prepared> {
  // Only text holding ESC [ can hold a colour code: the line-by-line search runs only then.
  const coloured = run.text.includes("\x1b[") ? COLOURED_DIFF_LINE.exec(run.text) : null;
  if (coloured) {
    // git apply finds no patch in such text either; stripping the codes could also strip a file's own.
    throw failure(run.command, [{
      code: "PatchParseError",
      message: "the patch holds terminal colour codes (ESC[…m): it was copied from a coloured diff. Make it " +
        "again without colour (`git diff --no-color`, or pterm's `git diff`, which never colours) and send that.",
      block_index: null,
      op: null,
      path: null,
      patch_line: run.text.slice(0, coloured.index).split("\n").length,
    }]);
  }
  const format = detectInputFormat(run.text);
  if (format === "xgit") return { format, xgit: run.text, warnings: [], note: "" };
  if (format === "unified_diff") {
    const wrapped = wrapUnifiedDiff(run.text);
    const gone = wrapped.dropped.length
      ? `, plus one for each of its \`diff -r\` command lines above (lines ${
        wrapped.dropped.join(", ")
      }), which were left out`
      : "";
    return {
      format,
      xgit: wrapped.text,
      warnings: [],
      note:
        `(The patch was read as a unified diff, run as one git.diff block: patch line N is line N-1 of the diff${gone}.)`,
    };
  }
  let sections;
  try {
    sections = parseCodexPatch(run.text);
  } catch (error) {
    if (!(error instanceof CodexParseError)) throw error;
    throw failure(run.command, [{
      code: "PatchParseError",
      message: `${error.message} (read as a codex \`*** Begin Patch\` patch)`,
      block_index: null,
      op: null,
      path: null,
      patch_line: error.line,
    }]);
  }
  const repo = await resolveRepo(run, { header: {} });
  const read = async (path: string): Promise<string | null> => {
    const given = path.startsWith("/") || repo.rel === "." ? path : `${repo.rel}/${path}`;
    const file = await ctx.workspace.resolve(given, "read", { label: "the path" });
    if (!file.exists) return null;
    const bytes = await Deno.readFile(file.abs).catch((error) => {
      if (error instanceof Deno.errors.IsADirectory) {
        throw new PtermError("InvalidArgs", `\`${path}\` is a folder, not a file`);
      }
      throw error;
    });
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw new PtermError("UnsupportedFormat", `\`${path}\` is not UTF-8 text; a codex patch edits text files`);
    }
  };
  const conversion = await codexToXGit(sections, read, { reapply: run.reapply });
  if (conversion.problems.length) throw failure(run.command, conversion.problems);
  const map = conversion.sectionLines.map((line, i) => `block ${i + 1} = line ${line}`).join(", ");
  return {
    format,
    xgit: conversion.text,
    warnings: conversion.warnings,
    note: `(The patch was read as a codex \`*** Begin Patch\` patch and run as XGit blocks, one per file section: ` +
      `${map}; the engine's patch lines count those blocks.)`,
  };
}

/** What the call says about committing: --no-commit, or -m/--author/--commit asking for one. */
interface CommitChoice {
  readonly noCommit: boolean;
  readonly commit: boolean;
  readonly message?: string;
  readonly author?: string;
}

function commitChoice(flags: Record<string, unknown>): CommitChoice {
  const message = flags.message as string | undefined;
  const author = flags.author as string | undefined;
  const commit = flags.commit === true || message !== undefined || author !== undefined;
  if (flags["no-commit"] === true && commit) {
    const given = flags.commit === true ? "--commit" : message !== undefined ? "--message" : "--author";
    throw new PtermError(
      "InvalidArgs",
      `--no-commit and ${given} contradict each other; drop one (\`patch apply --no-commit\` edits the files only).`,
    );
  }
  return { noCommit: flags["no-commit"] === true, commit, message, author };
}

/**
 * Whether the run commits: an XGit patch does (its header names the commit) unless --no-commit;
 * a unified diff or a codex patch edits the work tree only, as `git apply` and codex's
 * apply_patch do, unless -m/--author/--commit ask for a commit.
 */
function noCommitFor(format: InputFormat, choice: CommitChoice): Pick<PatchRun, "noCommit" | "noCommitReason"> {
  if (choice.noCommit) return { noCommit: true, noCommitReason: "flag" };
  if (format !== "xgit" && !choice.commit) return { noCommit: true, noCommitReason: "format" };
  return { noCommit: false };
}

async function run(ctx: CommandContext<{ file?: string; repo?: string }>, mode: RunMode, choice: CommitChoice) {
  const text = await patchText(ctx);
  if (utf8Length(text) > ctx.limits.stdin_bytes) {
    throw new PtermError("InputTooLarge", `the patch is larger than ${ctx.limits.stdin_bytes} bytes; split it.`);
  }
  const patchRun: PatchRun = {
    mode,
    command: ctx.command,
    text,
    workspace: ctx.workspace,
    repoFlag: ctx.flags.repo,
    noCommit: choice.noCommit,
    message: choice.message,
    author: choice.author,
    reapply: (ctx.flags as { reapply?: boolean }).reapply === true,
    config: (ctx.config ?? {}) as PatchConfig,
    session: ctx.session,
    runId: ctx.runId,
    signal: ctx.signal,
    progress: ctx.progress,
    git: await import("../git/api.ts"),
  };
  let prepared: Prepared;
  let result: PatchResult;
  try {
    prepared = await prepare(ctx as CommandContext, patchRun);
    try {
      result = await runPatch({ ...patchRun, ...noCommitFor(prepared.format, choice), text: prepared.xgit });
    } catch (error) {
      if (!(error instanceof PtermError) || !prepared.note) throw error;
      throw new PtermError(error.code, `${error.message}\n${prepared.note}`, {
        result: error.result,
        helpFor: error.helpFor,
        hint: error.hint,
      });
    }
  } catch (error) {
    throw await withRepositoryHint(patchRun, ctx.flags.file, error);
  }
  result.warnings.unshift(...prepared.warnings);
  const committing = !noCommitFor(prepared.format, choice).noCommit;
  if (committing) result.warnings.push(...await noCommitWarnings(ctx as CommandContext, result, mode));
  const readAs = prepared.format === "codex_patch"
    ? "Read as a codex `*** Begin Patch` patch: each file section ran as the equivalent XGit block.\n"
    : prepared.format === "unified_diff"
    ? "Read as a unified diff: it ran as one git.diff block.\n"
    : "";
  ctx.stdout.write(readAs + summary(result, mode, committing));
  return { ...result, input_format: prepared.format } as Record<string, unknown>;
}

export const applyHandler: Handler<typeof applyFlags> = async (ctx) => {
  const result = await run(ctx, ctx.flags["dry-run"] ? "dry-run" : "apply", commitChoice(ctx.flags));
  delete result.problems;
  return result;
};

export const checkHandler: Handler<typeof checkFlags> = async (ctx) => {
  return await run(ctx, "check", { noCommit: false, commit: false });
};

export const recoverHandler: Handler<typeof recoverFlags> = async (ctx) => {
  const discard = ctx.flags.discard === true;
  const recovered = await recoverPending(
    { workspace: ctx.workspace, signal: ctx.signal, git: await import("../git/api.ts") },
    discard,
  );
  const lines = recovered.length === 0
    ? ["No killed patch run left anything behind; nothing to do."]
    : recovered.map((r) =>
      `Run ${r.run_id} (session ${r.session}): ${r.action.replace("_", " ")}, ${r.paths.length} path(s)` +
      (r.action === "discarded" ? " left as they are now." : ".")
    );
  ctx.stdout.write(lines.join("\n") + "\n");
  return { discarded: discard, recovered };
};
