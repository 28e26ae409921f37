/**
 * The outer CLI's options, declared once. The `exec` fast path parses them with the kernel's
 * parser (no commander on the hot path); the commander program is built from the same list.
 */

import type { FlagSpec, LeafSpec } from "../declaration.ts";
import type { ArgsSpec } from "../flags.ts";

export const rootFlag = {
  name: "root",
  type: "string",
  valueName: "dir",
  description: "Workspace root (else $PTERM_ROOT, else ./.agents; created if missing).",
} as const satisfies FlagSpec;

export const textFlag = {
  name: "text",
  type: "boolean",
  description: "Print for people instead of JSON.",
} as const satisfies FlagSpec;

export const sessionFlag = {
  name: "session",
  type: "string",
  valueName: "id",
  description: "Agent session id (else $PTERM_SESSION, else default).",
} as const satisfies FlagSpec;

export const execFlags = [
  rootFlag,
  sessionFlag,
  {
    name: "stdin-file",
    type: "string",
    valueName: "path",
    description: "Give the command this file as its stdin (a path on the host, not in the workspace).",
  },
  {
    name: "timeout-ms",
    type: "number",
    min: 1,
    valueName: "n",
    description: "Stop the command after this many milliseconds (clipped to limits.timeout_ms_max).",
  },
  textFlag,
  {
    name: "request",
    type: "string",
    valueName: "file|-",
    description: 'Read the tool call {"command", "stdin"?, "timeout_ms"?} as JSON from a file, or - for stdin.',
  },
] as const satisfies readonly FlagSpec[];

/** `pterm exec` as a declaration, so the kernel's flag parser can read its options. */
export const execSpec: ArgsSpec & Pick<LeafSpec, "name" | "summary" | "examples"> = {
  name: "exec",
  summary: "Run one whitelisted command and print its JSON envelope; the process exits with its exit_code.",
  flags: execFlags,
  positionals: [{ name: "command-line", description: "the command line, quoted as one argument" }],
  examples: [
    { command: 'pterm exec "hello"', description: "Run hello and print the envelope." },
    { command: `echo '{"command":"hello"}' | pterm exec --request -`, description: "Run a tool call given as JSON." },
  ],
};

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isValidSessionId(id: string): boolean {
  return SESSION_ID.test(id) && !id.includes("..");
}
