import { z } from "zod";

const fileShown = z.strictObject({
  path: z.string().describe("The file, relative to the workspace root."),
  lines: z.number().int().nonnegative().describe("Lines in the whole file."),
  bytes: z.number().int().nonnegative(),
  from: z.number().int().describe("The first line printed (1-based)."),
  to: z.number().int().describe("The last line printed; less than `from` when none was."),
});

const base = { ok: z.literal(true), command: z.string() };

export const linesResultSchema = z.strictObject({ ...base, files: z.array(fileShown) });

export const lsResultSchema = z.strictObject({
  ...base,
  entries: z.number().int().nonnegative().describe("Entries listed."),
});

export const findResultSchema = z.strictObject({ ...base, found: z.number().int().nonnegative() });

export const globResultSchema = z.strictObject({
  ...base,
  paths: z.array(z.string()).describe("Matching paths, relative to the root, in byte order."),
});

export const grepResultSchema = z.strictObject({
  ...base,
  files_searched: z.number().int().nonnegative(),
  files_matched: z.number().int().nonnegative(),
  lines_matched: z.number().int().nonnegative(),
});

export const wcResultSchema = z.strictObject({
  ...base,
  files: z.array(z.strictObject({
    path: z.string(),
    lines: z.number().int().nonnegative(),
    words: z.number().int().nonnegative(),
    chars: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
  })),
});

export const pwdResultSchema = z.strictObject({ ...base, path: z.literal(".") });
