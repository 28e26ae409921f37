/**
 * The error codes only git's world has, besides the kernel's (core/errors.ts): declared here once, listed by
 * git's declaration (spec.ts), and by patch's, which drives git's code.
 */

export const GIT_ERROR_CODES = [
  "NotARepository",
  "AmbiguousRepository",
  "NothingToCommit",
  "RepoLocked",
  "UncommittedChanges",
  "BranchNotMerged",
  "CorruptRepository",
  "Conflict",
  "Rejected",
  "UnsupportedFilter",
  "AuthFailed",
  "RemoteError",
] as const;

declare module "../../core/errors.ts" {
  interface CommandErrorCodes extends Record<typeof GIT_ERROR_CODES[number], true> {}
}
