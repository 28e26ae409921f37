/**
 * The envelope every call returns. Its zod schema lives in
 * `envelope_schema.ts`, loaded only by those who validate or publish it.
 */

import type { ErrorCode } from "./errors.ts";

export interface ArtifactRef {
  /** Relative to the workspace root, with `/` separators. */
  readonly path: string;
  readonly mime: string;
  readonly description: string;
}

export interface Envelope {
  run_id: string;
  exit_code: number;
  stdout: string;
  stderr: string;
  result: Record<string, unknown> | null;
  artifacts: ArtifactRef[];
  error_code: ErrorCode | null;
  duration_ms: number;
  truncated: { stdout: boolean; stderr: boolean };
}

/** The tool call of `terminal_exec`, as `pterm exec --request -` reads it. */
export interface ExecRequest {
  command: string;
  stdin?: string;
  timeout_ms?: number;
}

/** SGR reset, bold, normal intensity, and the 16 foreground colours: nothing that hides or moves text. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const PLAIN_COLOUR = /\x1b\[(?:0|1|22|3[0-79]|9[0-7])m/;
// deno-lint-ignore no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;
// deno-lint-ignore no-control-regex
const CONTROLS_AND_BREAKS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * Makes text safe to print to a person's terminal: C0 and C1 control characters (ESC, CSI,
 * BEL, backspace, carriage return, ...), DEL and the Unicode line separators become visible
 * escapes (plain colour changes excepted) (`\x1b`, `\u009b`), so a command line or a document can never move the cursor,
 * rewrite what is on screen or talk to the terminal. `singleLine` escapes tab and
 * line feed too, for table cells.
 */
export function escapeControls(text: string, options: { singleLine?: boolean } = {}): string {
  const controls = options.singleLine ? CONTROLS_AND_BREAKS : CONTROLS;
  // Plain colour changes (what `irc status` prints on a terminal) pass; anything else is escaped.
  return text.replace(new RegExp(`${PLAIN_COLOUR.source}|${controls.source}`, "g"), (ch) => {
    if (ch.length > 1) return ch;
    const code = ch.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** Human rendering (`--text`): what a person wants to see in a terminal (controls escaped). */
export function renderText(envelope: Envelope): string {
  const parts: string[] = [];
  if (envelope.stdout) parts.push(escapeControls(envelope.stdout.replace(/\n$/, "")));
  if (envelope.stderr) parts.push(escapeControls(envelope.stderr.replace(/\n$/, "")));
  for (const artifact of envelope.artifacts) {
    parts.push(
      escapeControls(`artifact: ${artifact.path} (${artifact.mime}) ${artifact.description}`, { singleLine: true }),
    );
  }
  const status = envelope.error_code
    ? `exit ${envelope.exit_code} ${envelope.error_code}`
    : `exit ${envelope.exit_code}`;
  parts.push(`[${status} · ${envelope.duration_ms} ms · run ${envelope.run_id}]`);
  return parts.join("\n") + "\n";
}
