/**
 * Every failure names the block (number, op, path, patch line) and carries the details an
 * agent needs to fix the patch in one try: the closest lines for NoMatch, every candidate with
 * the `nthl`/`nthb` that picks it for AmbiguousMatch, the line and expectation for parse errors.
 */

import { type ErrorCode, PtermError } from "../../core/errors.ts";
import type { Block, ParseProblem } from "./format.ts";
import { ViewError } from "./view.ts";

/** One problem as `patch check` lists it and as a failed `patch apply` returns it. */
export interface Problem {
  readonly code: ErrorCode;
  readonly message: string;
  readonly block_index: number | null;
  readonly op: string | null;
  readonly path: string | null;
  /** 1-based line of the patch text the problem is at. */
  readonly patch_line: number | null;
  readonly details?: Record<string, unknown>;
}

/** A failure inside one block, before it knows its block (the runner adds that). */
export class OpError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** The patch line the problem is at, when more precise than the block header. */
    readonly patchLine?: number,
  ) {
    super(message);
  }
}

export function blockLabel(block: { readonly index: number; readonly op: string; readonly path: string }): string {
  return `block ${block.index} (${block.op}${block.path ? ` "${block.path}"` : ""})`;
}

/** Turns whatever a block threw into a Problem that names the block. */
export function problemOf(block: Block, error: unknown): Problem {
  const base = { block_index: block.index, op: block.op, path: block.path || null };
  if (error instanceof OpError) {
    const line = error.patchLine ?? block.line;
    return {
      ...base,
      code: error.code,
      patch_line: line,
      message: `${blockLabel(block)}, patch line ${line}: ${error.message}`,
      ...(Object.keys(error.details).length ? { details: error.details } : {}),
    };
  }
  if (error instanceof ViewError || error instanceof PtermError) {
    return {
      ...base,
      code: error.code,
      patch_line: block.line,
      message: `${blockLabel(block)}, patch line ${block.line}: ${error.message}`,
    };
  }
  throw error;
}

/** A problem's message without the block and patch line it starts with (for a caller that wrote no blocks). */
export function bareMessage(p: Problem): string {
  if (p.block_index === null || p.op === null) return p.message;
  const label = `${blockLabel({ index: p.block_index, op: p.op, path: p.path ?? "" })}, patch line ${p.patch_line}: `;
  return p.message.startsWith(label) ? p.message.slice(label.length) : p.message;
}

export function parseProblem(p: ParseProblem): Problem {
  return {
    code: "PatchParseError",
    message: p.message,
    block_index: p.block_index ?? null,
    op: p.op ?? null,
    path: null,
    patch_line: p.line,
    details: { expected: p.expected, found: p.found },
  };
}

/**
 * Data errors — the patch does not fit the files as they are — are fixed by changing the patch,
 * not by reading `--help`: their hint says how.
 */
const FIX_HINTS: Partial<Record<ErrorCode, string>> = {
  NoMatch: "The text the patch looks for is not in the file as it is now. Look at the closest lines shown " +
    "(result.problems[].details.closest; for a diff or codex chunk, .diverged is the first line that differs), copy the file's exact current text into keys or the diff's context, " +
    "and run `patch check` with the corrected patch before applying it.",
  AmbiguousMatch: "Each place that fits is listed above. Choose one: nthl=N (keys) or nthb=N (start-keys) " +
    "as listed, the right line number in the diff's `@@ -N` (the nearest place wins), or more context that only " +
    "that place has; `patch check` tries it without writing.",
  AlreadyApplied: "The patch's result is already in the file: it ran before (a retry after a timeout or an unclear " +
    "answer, or `pterm runs replay` of a run that applied it) or the change was made by hand. Nothing was written. " +
    "Look at the file (`git diff`); to apply it once more anyway, add --reapply.",
  Conflict: "The file is not what the patch was made from (it changed since). Read its current content and make " +
    "the patch again against it.",
};

/** How many problems a message spells out; the result always lists all of them. */
const LISTED = 8;

/** The error a failed call throws: the first problem's code, every problem in the message and result. */
export function failure(
  command: string,
  problems: readonly Problem[],
  extra: Record<string, unknown> = {},
): PtermError {
  const first = problems[0];
  const lines = problems.slice(0, LISTED).map((p, i) => (problems.length > 1 ? `${i + 1}) ${p.message}` : p.message));
  const more = problems.length > LISTED ? `\n… and ${problems.length - LISTED} more (see result.problems)` : "";
  const intro = problems.length > 1
    ? `${problems.length} problems${command === "patch check" ? " found" : "; nothing was written"}:\n`
    : "";
  let text = `${intro}${lines.join("\n")}${more}`;
  if (command === "patch apply" && problems.length === 1) {
    text += `${/[.!?]$/.test(text) ? "" : "."} Nothing was written.`;
  }
  return new PtermError(first.code, text, {
    result: { ...extra, problems: [...problems] },
    hint: FIX_HINTS[first.code],
  });
}
