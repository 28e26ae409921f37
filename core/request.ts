/**
 * Validation of a `terminal_exec` tool call. Written by hand because it sits on the start-up
 * path of every `--request` call; `tests/core/request_test.ts` proves it accepts exactly what
 * the zod schema in `envelope_schema.ts` (the published one) accepts.
 */

import type { ExecRequest } from "./envelope.ts";
import { PtermError } from "./errors.ts";

const KEYS = new Set(["command", "stdin", "timeout_ms"]);

function bad(message: string): never {
  throw new PtermError("InvalidArgs", `the tool call is invalid: ${message}`, { helpFor: "pterm exec" });
}

export function parseRequest(value: unknown): ExecRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    bad('it must be a JSON object like {"command": "hello"}.');
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KEYS.has(key)) bad(`unknown key \`${key}\`; the keys are command, stdin and timeout_ms.`);
  }
  if (typeof record.command !== "string" || record.command.length === 0) {
    bad("`command` must be a non-empty string, the command line to run.");
  }
  // null is "not given": hosts in strict mode send every field, null for the ones they leave out.
  const stdin = record.stdin ?? undefined;
  if (stdin !== undefined && typeof stdin !== "string") bad("`stdin` must be a string (or null) when given.");
  const timeout = record.timeout_ms ?? undefined;
  if (timeout !== undefined && !(typeof timeout === "number" && Number.isSafeInteger(timeout) && timeout > 0)) {
    bad("`timeout_ms` must be a positive whole number of milliseconds (or null) when given.");
  }
  const request: ExecRequest = { command: record.command };
  if (stdin !== undefined) request.stdin = stdin;
  if (timeout !== undefined) request.timeout_ms = timeout as number;
  return request;
}
