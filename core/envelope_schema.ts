/** The published zod schemas: the tool call, the envelope, and a command's result inside it. */

import { z } from "zod";

export const requestSchema = z.strictObject({
  command: z.string().min(1).describe(
    "One command line, e.g. `git status --repo proj`. No shell: no pipes, redirections, `;`, globs or `$()`. Quote arguments with spaces.",
  ),
  // null is "not given": hosts in strict mode send every field, null for the ones they leave out.
  stdin: z.string().nullish().describe(
    "Text given to commands that read stdin (patch apply, irc send --text-stdin, ...). Bytes that are not UTF-8 " +
      "(a diff of a Latin-1 file) go as U+DC80–U+DCFF, one per byte (surrogateescape), and reach patch unchanged.",
  ),
  timeout_ms: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullish().describe(
    "Stop the command after this many milliseconds (capped by the workspace configuration).",
  ),
});

export const artifactSchema = z.strictObject({
  path: z.string().describe("Relative to the workspace root."),
  mime: z.string(),
  description: z.string(),
});

/** Every result carries at least these two fields. */
export const resultBaseSchema = z.looseObject({
  ok: z.boolean(),
  command: z.string(),
});

/** `errorCodes`: every code an envelope may carry (`Registry.errorCodes`: the kernel's and the commands'). */
export function envelopeSchema(errorCodes: readonly string[], result: z.ZodType = resultBaseSchema) {
  return z.strictObject({
    run_id: z.string().regex(/^\d{8}T\d{9}Z-[0-9a-f]{8}$/).describe(
      "Sortable, unique per call; `pterm runs show <run_id>`.",
    ),
    exit_code: z.number().int().describe("0 ok · 1 command failed · 2 usage error · 124 timeout"),
    stdout: z.string().describe("Short human-readable summary (bounded)."),
    stderr: z.string().describe("On failure: [Error] <message>, a blank line, and a hint to run `<command> --help`."),
    result: result.nullable().describe("The command's structured result."),
    artifacts: z.array(artifactSchema),
    error_code: z.enum(errorCodes as [string, ...string[]]).nullable(),
    duration_ms: z.number().int().min(0),
    truncated: z.strictObject({ stdout: z.boolean(), stderr: z.boolean() }),
  });
}
