/** The flags of `patch apply`, `check` and `recover`: declared by spec.ts, typed in handler.ts. */

import type { FlagSpec } from "../../core/declaration.ts";

const repoFlag = {
  name: "repo",
  type: "string",
  valueName: "path",
  description: "The repository folder (overrides the header repo:; else the one git would use, else the root)",
  path: "write",
} as const satisfies FlagSpec;

const fileFlag = {
  name: "file",
  type: "string",
  valueName: "path",
  description: "Read the patch from this file under the root instead of stdin",
  path: "read",
} as const satisfies FlagSpec;

const reapplyFlag = {
  name: "reapply",
  type: "boolean",
  description: "Apply a hunk even when its result is already in the file (else AlreadyApplied: the patch ran before)",
} as const satisfies FlagSpec;

export const applyFlags = [
  repoFlag,
  fileFlag,
  { name: "dry-run", type: "boolean", description: "Compute and report everything, write nothing" },
  {
    name: "no-commit",
    type: "boolean",
    description: "An XGit patch: write the files but make no commit (git.revert blocks do not commit either)",
  },
  {
    name: "commit",
    type: "boolean",
    description: "A unified diff or codex patch: commit the edits too (default message and author)",
  },
  {
    name: "message",
    short: "m",
    type: "string",
    valueName: "text",
    description: "Commit with this message (overrides commitmsg:; makes a unified diff or codex patch commit)",
  },
  {
    name: "author",
    type: "string",
    valueName: "Name <email>",
    description: "Commit as this author (overrides author:; makes a unified diff or codex patch commit)",
  },
  reapplyFlag,
] as const satisfies readonly FlagSpec[];

export const checkFlags = [repoFlag, fileFlag, reapplyFlag] as const satisfies readonly FlagSpec[];

export const recoverFlags = [
  {
    name: "discard",
    type: "boolean",
    description: "Drop the journals of killed runs and keep the tree exactly as it is now (after StaleJournal).",
  },
] as const satisfies readonly FlagSpec[];
