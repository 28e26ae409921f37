/**
 * The error codes patch raises besides the kernel's (core/errors.ts): its own, declared here once, and git's,
 * since patch commits, resolves repositories and applies diffs with git's code. Listed by spec.ts.
 */

import { GIT_ERROR_CODES } from "../git/error_codes.ts";

export const PATCH_OWN_ERROR_CODES = [
  "PatchParseError",
  "PatchApplyError",
  "StaleJournal",
  "AlreadyApplied",
  "ConcurrentModification",
] as const;

export const PATCH_ERROR_CODES = [...PATCH_OWN_ERROR_CODES, ...GIT_ERROR_CODES] as const;

declare module "../../core/errors.ts" {
  interface CommandErrorCodes extends Record<typeof PATCH_OWN_ERROR_CODES[number], true> {}
}
