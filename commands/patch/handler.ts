/** `patch apply` and `patch check`: read the patch, run it, summarise. */

import type { CommandContext, Handler } from "../../core/context.ts";
import { PtermError } from "../../core/errors.ts";
import { utf8Length } from "../../core/truncate.ts";
import { type PatchConfig, type PatchResult, recoverPending, type RunMode, runPatch } from "./engine.ts";
import type { applyFlags, checkFlags, recoverFlags } from "./spec.ts";
import { decodeLossless } from "./text.ts";

async function patchText(ctx: CommandContext<{ file?: string }>): Promise<string> {
  if (ctx.flags.file === undefined) return ctx.stdin ?? "";
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

function summary(result: PatchResult, mode: RunMode): string {
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
    const where = b.path ? ` ${b.path}` : "";
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
      (result.commit_id ? `; commit ${result.commit_id.slice(0, 12)}.` : result.is_repository ? "; no commit." : ".");
  for (const w of result.warnings) lines.push(`Warning: ${w}`);
  return [head, ...lines].join("\n") + "\n";
}

async function run(ctx: CommandContext<{ file?: string; repo?: string }>, mode: RunMode, noCommit: boolean) {
  const text = await patchText(ctx);
  if (utf8Length(text) > ctx.limits.stdin_bytes) {
    throw new PtermError("InputTooLarge", `the patch is larger than ${ctx.limits.stdin_bytes} bytes; split it.`);
  }
  const result = await runPatch({
    mode,
    command: ctx.command,
    text,
    workspace: ctx.workspace,
    repoFlag: ctx.flags.repo,
    noCommit,
    config: (ctx.config ?? {}) as PatchConfig,
    session: ctx.session,
    runId: ctx.runId,
    signal: ctx.signal,
    progress: ctx.progress,
    git: await import("../git/api.ts"),
  });
  ctx.stdout.write(summary(result, mode));
  return { ...result } as Record<string, unknown>;
}

export const applyHandler: Handler<typeof applyFlags> = async (ctx) => {
  const result = await run(ctx, ctx.flags["dry-run"] ? "dry-run" : "apply", ctx.flags["no-commit"]);
  delete result.problems;
  return result;
};

export const checkHandler: Handler<typeof checkFlags> = async (ctx) => {
  return await run(ctx, "check", false);
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
