/** `pterm runs list | show | replay`: reading and replaying the audit log. */

import { type AuditRecord, listAuditRecords, readAuditRecord, resolveRunId, stateOf } from "../audit.ts";
import { escapeControls } from "../controls.ts";
import type { Envelope } from "../envelope.ts";
import { PtermError } from "../errors.ts";
import { execute, type Kernel } from "../runtime.ts";
import { confinePath } from "../fs/paths.ts";
import { safeReadFileSync } from "../fs/safe_fs.ts";

export interface RunsListOptions {
  session?: string;
  since?: string;
  failed?: boolean;
  limit?: string;
}

/** `2026-11-01`, `2026-11-01T10:00:00Z`, or a duration ago: `30m`, `2h`, `7d`. */
export function parseSince(value: string, now = Date.now()): Date {
  const duration = /^(\d+)\s*([smhd])$/.exec(value.trim());
  if (duration) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[duration[2] as "s" | "m" | "h" | "d"];
    return new Date(now - Number(duration[1]) * unit);
  }
  const time = Date.parse(value);
  if (Number.isNaN(time)) {
    throw new PtermError(
      "InvalidArgs",
      `--since \`${value}\` is neither an ISO time (2026-11-01T10:00:00Z) nor a duration (30m, 2h, 7d).`,
      {
        helpFor: "pterm runs list",
      },
    );
  }
  return new Date(time);
}

export interface RunSummary {
  run_id: string;
  timestamp: string;
  session: string;
  command: string;
  state: string;
  exit_code: number | null;
  error_code: string | null;
  duration_ms: number | null;
  replay_of: string | null;
}

function summarize(record: AuditRecord): RunSummary {
  return {
    run_id: record.run_id,
    timestamp: record.timestamp,
    session: record.session,
    command: record.command,
    state: stateOf(record),
    exit_code: record.exit_code,
    error_code: record.error_code,
    duration_ms: record.duration_ms,
    replay_of: record.replay_of,
  };
}

export async function listRuns(root: string, options: RunsListOptions): Promise<RunSummary[]> {
  const limit = options.limit === undefined ? 50 : Number(options.limit);
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new PtermError("InvalidArgs", `--limit must be a positive whole number, not \`${options.limit}\`.`, {
      helpFor: "pterm runs list",
    });
  }
  const records = await listAuditRecords(root, {
    session: options.session,
    since: options.since ? parseSince(options.since) : undefined,
    failed: options.failed,
    limit,
  });
  return records.map(summarize);
}

export function renderRunsTable(runs: readonly RunSummary[]): string {
  if (runs.length === 0) return "no runs\n";
  const rows = runs.map((r) =>
    [
      r.run_id,
      r.session,
      r.state === "finished" ? String(r.exit_code) : r.state,
      r.error_code ?? "",
      r.duration_ms === null ? "" : `${r.duration_ms}ms`,
      r.command,
    ].map((cell) => escapeControls(cell, { singleLine: true }))
  );
  const header = ["RUN", "SESSION", "EXIT", "ERROR", "TIME", "COMMAND"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ");
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

/** `runId` is a whole run id or a unique ending of one (see resolveRunId). */
export interface SessionSummary {
  session: string;
  runs: number;
  /** The newest run's start time and command line. */
  last_timestamp: string;
  last_command: string;
  last_origin: string;
}

/** The sessions among `records` (newest first), most recently active first. */
export function summarizeSessions(records: readonly AuditRecord[]): SessionSummary[] {
  const bySession = new Map<string, SessionSummary>();
  for (const record of records) {
    const known = bySession.get(record.session);
    if (known) {
      known.runs++;
      continue;
    }
    bySession.set(record.session, {
      session: record.session,
      runs: 1,
      last_timestamp: record.timestamp,
      last_command: record.command,
      last_origin: record.origin ?? "exec",
    });
  }
  return [...bySession.values()];
}

/** The table `:sessions` prints; `current` (the shell's own session) is marked with `*`. */
export function renderSessionsTable(sessions: readonly SessionSummary[], current?: string): string {
  if (sessions.length === 0) return "no runs yet in this workspace\n";
  const rows = sessions.map((s) =>
    [
      (s.session === current ? "* " : "  ") + s.session,
      String(s.runs),
      s.last_timestamp,
      s.last_origin,
      s.last_command,
    ].map((cell) => escapeControls(cell, { singleLine: true }))
  );
  const header = ["  SESSION", "RUNS", "LAST RUN", "VIA", "LAST COMMAND"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ");
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

export async function showRun(root: string, runId: string): Promise<AuditRecord & { state_now: string }> {
  const record = await readAuditRecord(root, await resolveRunId(root, runId));
  return { ...record, state_now: stateOf(record) };
}

export function renderRun(record: AuditRecord): string {
  const lines = [
    `run       ${record.run_id}${record.replay_of ? ` (replay of ${record.replay_of})` : ""}`,
    `time      ${record.timestamp}`,
    `session   ${record.session}`,
    `command   ${record.command}`,
    `state     ${stateOf(record)}`,
    `exit      ${record.exit_code ?? "-"}${record.error_code ? ` ${record.error_code}` : ""}`,
    `duration  ${record.duration_ms ?? "-"} ms`,
  ];
  if (record.message) lines.push(`message   ${record.message}`);
  if (record.stdin) lines.push(`stdin     ${record.stdin.path}`);
  for (const a of record.artifacts) lines.push(`artifact  ${a.path} (${a.mime}) ${a.description}`);
  // The run's output as its caller received it: stdout, then stderr under its own heading.
  if (record.envelope?.stdout) lines.push("", record.envelope.stdout.trimEnd());
  if (record.envelope?.stderr) lines.push("", "stderr:", record.envelope.stderr.trimEnd());
  // Each field is one line: a line break inside one (a command, a message) is shown escaped.
  for (let i = 0; i < 7; i++) lines[i] = escapeControls(lines[i], { singleLine: true });
  return escapeControls(lines.join("\n")) + "\n";
}

export async function replayRun(
  kernel: Kernel,
  root: string,
  runId: string,
  terminal: { color: boolean },
): Promise<Envelope> {
  const record = await readAuditRecord(root, await resolveRunId(root, runId));
  let stdin: Uint8Array | null = null;
  if (record.stdin) {
    const location = await confinePath(root, record.stdin.path, "read", { label: "the recorded stdin" });
    // Never through a symlink planted in artifacts/ since the run (see core/fs/safe_fs.ts); its bytes as recorded.
    stdin = safeReadFileSync(root, location.rel);
  }
  return await execute(kernel, {
    root,
    session: record.session,
    line: record.command,
    stdin: stdin === null ? { kind: "none" } : { kind: "bytes", bytes: stdin },
    timeoutMs: record.timeout_ms,
    replayOf: record.run_id,
    terminal,
  });
}
