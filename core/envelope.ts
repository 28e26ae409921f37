/**
 * The envelope every call returns. Its zod schema lives in
 * `envelope_schema.ts`, loaded only by those who validate or publish it.
 */

import { escapeControls } from "./controls.ts";
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

/** Plain colour changes pass to a terminal (what `irc status` prints); everything else is escaped. */
const PLAIN_COLOUR_KEPT = { keepPlainColour: true } as const;

/** Human rendering (`--text`): what a person wants to see in a terminal (controls escaped). */
export function renderText(envelope: Envelope): string {
  const parts: string[] = [];
  if (envelope.stdout) parts.push(escapeControls(envelope.stdout.replace(/\n$/, ""), PLAIN_COLOUR_KEPT));
  if (envelope.stderr) parts.push(escapeControls(envelope.stderr.replace(/\n$/, ""), PLAIN_COLOUR_KEPT));
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
