/** The error codes only irc raises, besides the kernel's (core/errors.ts): declared here once, listed by spec.ts. */

export const IRC_ERROR_CODES = [
  "NickTooLong",
  "DaemonVersionMismatch",
  "NotConnected",
  "NotJoined",
  "SendRejected",
  "DeliveryUnknown",
] as const;

declare module "../../core/errors.ts" {
  interface CommandErrorCodes extends Record<typeof IRC_ERROR_CODES[number], true> {}
}
