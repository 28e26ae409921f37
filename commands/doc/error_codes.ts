/** The error codes only doc raises, besides the kernel's (core/errors.ts): declared here once, listed by spec.ts. */

export const DOC_ERROR_CODES = [
  "EncryptedDocument",
] as const;

declare module "../../core/errors.ts" {
  interface CommandErrorCodes extends Record<typeof DOC_ERROR_CODES[number], true> {}
}
