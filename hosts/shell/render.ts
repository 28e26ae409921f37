/**
 * How the shell shows things to a person: a command's envelope (stdout, stderr in another
 * colour, artifacts as paths, a footer), the prompt with the IRC light, and audit records.
 * Pure functions of their input; colour is a parameter (NO_COLOR and a non-terminal turn it off).
 */

import type { AuditRecord } from "../../core/audit.ts";
import { stateOf } from "../../core/audit.ts";
import { escapeControls as escapeTerminalControls } from "../../core/controls.ts";
import type { Envelope } from "../../core/envelope.ts";

export type Light = "red" | "yellow" | "green" | "off";

const SGR = {
  reset: "\x1b[0m",
  dim: "\x1b[2m",
  bold: "\x1b[1m",
  red: "\x1b[31m",
  green: "\x1b[32m",
  yellow: "\x1b[33m",
  magenta: "\x1b[35m",
  cyan: "\x1b[36m",
  grey: "\x1b[90m",
} as const;

export type Style = keyof typeof SGR;

export function paint(text: string, style: Style, color: boolean): string {
  return color && text ? `${SGR[style]}${text}${SGR.reset}` : text;
}

/** Makes output text safe to print: every terminal control becomes a visible escape, marked in colour. */
export function escapeControls(text: string, color = false): string {
  return escapeTerminalControls(text.replace(/\r\n/g, "\n"), { mark: (escape) => paint(escape, "magenta", color) });
}

function withoutFinalNewline(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

/** The footer line: `exit 0 · 12 ms · run 20261122T035255063Z-c0baba14`. */
export function footer(envelope: Pick<Envelope, "exit_code" | "error_code" | "duration_ms" | "run_id">): string {
  const status = envelope.error_code
    ? `exit ${envelope.exit_code} ${envelope.error_code}`
    : `exit ${envelope.exit_code}`;
  return `${status} · ${envelope.duration_ms} ms · run ${envelope.run_id}`;
}

/** An envelope for people: stdout, stderr (red), artifacts as paths, then the footer. Ends with a newline. */
export function renderEnvelope(envelope: Envelope, color: boolean): string {
  const parts: string[] = [];
  if (envelope.stdout) parts.push(escapeControls(withoutFinalNewline(envelope.stdout), color));
  if (envelope.stderr) {
    const lines = escapeControls(withoutFinalNewline(envelope.stderr), color).split("\n");
    parts.push(lines.map((line) => paint(line, "red", color)).join("\n"));
  }
  for (const artifact of envelope.artifacts) {
    parts.push(
      `${paint("artifact", "cyan", color)} ${escapeControls(artifact.path, color)} ${
        paint(`(${escapeControls(artifact.mime)}) ${escapeControls(artifact.description)}`, "dim", color)
      }`,
    );
  }
  parts.push(paint(footer(envelope), envelope.exit_code === 0 ? "grey" : "yellow", color));
  return parts.join("\n") + "\n";
}

/** The text `:copy` and `:save` take from a run: its stdout, then its stderr, as the command wrote them. */
export function outputText(envelope: Envelope): string {
  const out = envelope.stdout;
  const err = envelope.stderr;
  if (!err) return out;
  return out && !out.endsWith("\n") ? `${out}\n${err}` : `${out}${err}`;
}

const LIGHT_STYLE: Record<Light, Style> = { red: "red", yellow: "yellow", green: "green", off: "grey" };

/**
 * `agent-7 ● IRC › `. With colour the dot carries the state; without, the state is written out
 * (`● IRC:green`), since a person must still be able to read it.
 */
/** The session, then one dot per session service: its colour, or its state written out without colour. */
export function renderPrompt(
  session: string,
  lights: readonly { readonly label: string; readonly value: Light }[],
  color: boolean,
): string {
  const dots = lights.map(({ label, value }) =>
    color ? `${paint("●", LIGHT_STYLE[value], true)} ${label}` : `● ${label}:${value}`
  );
  return [paint(session, "bold", color), ...dots].join(" ") + " › ";
}

function time(iso: string): string {
  return iso.slice(11, 19);
}

/** One line announcing a run `:watch` saw start: `▶ 12:01:02 exec  git status --repo proj`. */
export function renderRunStart(record: AuditRecord, color: boolean): string {
  return `${paint("▶", "cyan", color)} ${paint(`${time(record.timestamp)} ${record.origin ?? "exec"}`, "dim", color)} ${
    escapeControls(record.command, color)
  }\n`;
}

/** A run as `:show` and `:watch` render it: the command line, then the envelope as for a run of one's own. */
export function renderRecord(record: AuditRecord, color: boolean, now = Date.now()): string {
  const head = renderRunStart(record, color);
  if (record.envelope) return head + renderEnvelope(record.envelope, color);
  const state = stateOf(record, now);
  return head + paint(`${state} · run ${record.run_id}`, "yellow", color) + "\n";
}
