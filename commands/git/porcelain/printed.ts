/**
 * A refusal that also carries what real git prints for it (its stdout and stderr lines), so that the handler writes
 * git's text out before pterm's own error paragraph.
 */

import { PtermError } from "../../../core/errors.ts";

/** What git prints (colour off, stderr not a terminal of a known kind). */
export interface GitText {
  stdout: string;
  stderr: string;
}

/** `error`, carrying `printed`: what git prints where it refuses the same thing. */
export function withPrinted<E extends PtermError>(error: E, printed: GitText): E {
  Object.defineProperty(error, "printed", { value: printed });
  return error;
}

/** A refusal that also carries what git prints for it (written out by the handler before the error). */
export function refusal(
  code: PtermError["code"],
  message: string,
  printed: GitText,
  options: { hint?: string; result?: Record<string, unknown> } = {},
): PtermError {
  return withPrinted(new PtermError(code, message, options), printed);
}

/** What git prints for a refusal made by `refusal` or `withPrinted`, or null. */
export function printedBy(error: unknown): GitText | null {
  return (error as { printed?: GitText } | null)?.printed ?? null;
}
