/**
 * The stable error codes of the envelope and the one error type that carries them.
 *
 * A code names one kind of failure for its whole life: add a code when a case deserves
 * its own, never reuse one for another meaning. `Internal` is reserved for bugs.
 */

/**
 * The kernel's codes: the ones the kernel and the hosts raise, and the ones several commands share for
 * one meaning (a file not found, a pattern that matched nothing, input of a format pterm does not read).
 * A code that only one command's world has (a merge conflict, a patch that does not parse, an IRC nick
 * too long) is that command's: it declares it in its own `error_codes.ts`, listed by its declaration
 * (`CommandSpec.errorCodes`); the registry joins them all (`Registry.errorCodes`) for the envelope's schema.
 */
export const KERNEL_ERROR_CODES = [
  "UnknownCommand",
  "InvalidArgs",
  "InvalidCommandLine",
  "InvalidPath",
  "PathEscape",
  "SecretPathDenied",
  "ReadOnlyPath",
  "GitDirDenied",
  "NotADirectory",
  "NotFound",
  "AlreadyExists",
  "ConfirmRequired",
  "MissingConfig",
  "InvalidConfig",
  "DaemonNotRunning",
  "DaemonAlreadyRunning",
  "UnsupportedPlatform",
  "InputTooLarge",
  "StdinNotUtf8",
  "Timeout",
  "Cancelled",
  "WriteFailed",
  "NoMatch",
  "AmbiguousMatch",
  "UnsupportedFormat",
  "CorruptInput",
  "NetworkDenied",
  "SandboxDenied",
  "UnsafeRoot",
  "Internal",
] as const;

export type KernelErrorCode = typeof KERNEL_ERROR_CODES[number];

/**
 * The codes commands declare, by name. Empty here: each command's `error_codes.ts` adds its own with
 * `declare module "…/core/errors.ts" { interface CommandErrorCodes extends Record<Its codes, true> {} }`,
 * and deno.json's `compilerOptions.types` names every `error_codes.ts`, so any module checked — alone, in an
 * editor, or the whole tree by `deno task check` — knows every declared code and refuses any other.
 */
// deno-lint-ignore no-empty-interface
export interface CommandErrorCodes {}

/** A code an envelope may carry: the kernel's, or one a command declares. */
export type ErrorCode = KernelErrorCode | keyof CommandErrorCodes;

/** Exit codes of the envelope: 0 ok, 1 command failed, 2 usage error, 124 timeout, 130 cancelled by the caller. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_TIMEOUT = 124;
/** As a shell reports a command stopped by Ctrl-C (128 + SIGINT). */
export const EXIT_CANCELLED = 130;

const USAGE_CODES: ReadonlySet<ErrorCode> = new Set([
  "UnknownCommand",
  "InvalidArgs",
  "InvalidCommandLine",
]);

export function exitCodeFor(code: ErrorCode): number {
  if (code === "Timeout") return EXIT_TIMEOUT;
  if (code === "Cancelled") return EXIT_CANCELLED;
  return USAGE_CODES.has(code) ? EXIT_USAGE : EXIT_FAILED;
}

export interface PtermErrorOptions {
  /** A structured result to return even though the command failed (e.g. merge conflicts). */
  result?: Record<string, unknown>;
  /** The command path whose `--help` the hint should point to, when it differs from the one run. */
  helpFor?: string;
  /**
   * What to do about it, when that is more useful than `--help` (a data error: the patch's text
   * does not fit the file). Replaces the `--help` hint in stderr.
   */
  hint?: string;
  cause?: unknown;
}

/**
 * A failure a user can cause. Handlers throw it; the kernel turns it into the envelope's
 * `error_code`, `stderr` and exit code. Messages say what went wrong and what to do next.
 */
/** Marks every PtermError, whichever copy of this module made it (see `Symbol.hasInstance` below). */
const BRAND = Symbol.for("pterm.PtermError");

export class PtermError extends Error {
  readonly code: ErrorCode;
  readonly result?: Record<string, unknown>;
  readonly helpFor?: string;
  readonly hint?: string;

  constructor(code: ErrorCode, message: string, options: PtermErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PtermError";
    this.code = code;
    this.result = options.result;
    this.helpFor = options.helpFor;
    this.hint = options.hint;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /**
   * `instanceof PtermError` holds across copies of this module: main.bundle.js carries its own
   * copy of the kernel, while the modules it loads lazily import this file from source.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== PtermError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** Whether `value` is one of the kernel's codes or of `declared` (a command's `errorCodes`). */
export function isErrorCode(value: unknown, declared: readonly string[] = []): value is ErrorCode {
  return typeof value === "string" &&
    ((KERNEL_ERROR_CODES as readonly string[]).includes(value) || declared.includes(value));
}

/** The stderr text of every failure: the message, a blank line, and the `--help` hint. */
export function formatFailure(message: string, helpCommand: string, hint?: string): string {
  if (hint) return `[Error] ${message}\n\nHint: ${hint}`;
  const help = helpCommand === "help"
    ? "Run `help` to list the commands, and `<command> --help` for one command's usage, before retrying."
    : `Run \`${helpCommand} --help\` to learn the correct usage before retrying.`;
  return `[Error] ${message}\n\nHint: ${help}`;
}
