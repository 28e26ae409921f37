import { z } from "zod";
import { KERNEL_ERROR_CODES } from "../../core/errors.ts";
import { PATCH_ERROR_CODES } from "./error_codes.ts";
import { OPS } from "./format.ts";
import { INPUT_FORMATS } from "./input.ts";

const REPO_NAME = /^[A-Za-z0-9][\w.-]*$/;

export const patchConfigSchema = z.strictObject({
  repos: z.record(
    z.string().regex(REPO_NAME, "a repository name is letters, digits, ., _ or -"),
    z.string().min(1).describe("Folder of the repository, relative to the workspace root."),
  ).optional().describe('Repository names a patch header `repo: <name>` may use, e.g. {"xgit": "projects/xgit"}.'),
  default_repo: z.string().optional().describe("The repository of a patch that names none (else the root)."),
}).refine((c) => c.default_repo === undefined || c.repos?.[c.default_repo] !== undefined, {
  message: "default_repo must be one of the names in repos",
  path: ["default_repo"],
});

const status = z.enum([
  "created",
  "modified",
  "deleted",
  "moved",
  "mode_changed",
  "unchanged",
  "reset",
  "reverted",
  "tagged",
  "committed",
]);

const hunkSchema = z.strictObject({
  file: z.string(),
  hunk: z.number().int().positive(),
  strategy: z.enum(["exact", "whitespace", "shifted", "fuzzy"]).describe(
    "exact: at the stated line · whitespace: there, whitespace aside · shifted: found elsewhere, only once · " +
      "fuzzy: context lines differ a little, removed lines match",
  ),
  at_line: z.number().int().positive(),
  stated_line: z.number().int().min(0).nullable(),
  reindent: z.string().optional().describe("Added lines were re-indented by this prefix (+) or had it removed (-)."),
});

const blockSchema = z.strictObject({
  index: z.number().int().positive().describe("1-based position of the block in the patch."),
  op: z.enum(OPS),
  path: z.string(),
  status,
  lines_added: z.number().int().min(0),
  lines_removed: z.number().int().min(0),
  at_line: z.number().int().positive().optional().describe("Line of the file a line/block op acted at."),
  files: z.array(z.string()).optional(),
  hunks: z.array(hunkSchema).optional(),
  git: z.strictObject({
    head: z.string().optional(),
    commit_id: z.string().nullable().optional(),
    tag: z.string().optional(),
    target: z.string().optional(),
  }).optional(),
});

const problemSchema = z.strictObject({
  code: z.enum([...KERNEL_ERROR_CODES, ...PATCH_ERROR_CODES]),
  message: z.string(),
  block_index: z.number().int().positive().nullable(),
  op: z.string().nullable(),
  path: z.string().nullable(),
  patch_line: z.number().int().positive().nullable(),
  details: z.record(z.string(), z.unknown()).optional(),
});

const recoveredSchema = z.array(z.strictObject({
  run_id: z.string(),
  session: z.string(),
  action: z.enum(["rolled_back", "rolled_forward", "discarded"]),
  paths: z.array(z.string()).describe("Relative to the workspace root."),
}));

const common = {
  repo_path: z.string().describe("The repository folder, relative to the workspace root."),
  is_repository: z.boolean(),
  dry_run: z.boolean(),
  blocks: z.array(blockSchema),
  files_changed: z.array(z.strictObject({
    path: z.string().describe("Relative to the repository."),
    change: z.enum(["created", "modified", "deleted", "mode_changed"]),
  })),
  commit_id: z.string().nullable(),
  commit_message: z.string().nullable(),
  author: z.string().nullable(),
  recovered: recoveredSchema.describe("Runs killed mid-apply that this run finished first."),
  warnings: z.array(z.string()),
  input_format: z.enum(INPUT_FORMATS).describe(
    "How stdin was read: xgit blocks, a unified diff (run as one git.diff block) or a codex `*** Begin Patch` " +
      "patch (run as the equivalent XGit blocks).",
  ),
};

export const recoverResultSchema = z.strictObject({
  ok: z.literal(true),
  command: z.literal("patch recover"),
  discarded: z.boolean().describe("True with --discard: journals dropped, the tree left as it is."),
  recovered: recoveredSchema.describe("Runs killed mid-apply: rolled back, rolled forward or discarded."),
});

export const applyResultSchema = z.strictObject({
  ok: z.literal(true),
  command: z.literal("patch apply"),
  ...common,
});

export const checkResultSchema = z.strictObject({
  ok: z.literal(true),
  command: z.literal("patch check"),
  ...common,
  problems: z.array(problemSchema).max(0),
});

/** What a failed apply or check returns in `result` (besides ok:false and command). */
export const failureDetailsSchema = z.looseObject({ problems: z.array(problemSchema) });
