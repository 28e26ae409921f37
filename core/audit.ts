/**
 * The audit log: one JSON file per run, `<root>/audit/<day>/<run_id>.json`.
 *
 * Each file is written whole to a temporary name and renamed into place, so a reader never
 * sees a torn record, parallel runs never interleave, and a run killed mid-way leaves its
 * start record (state "running", later reported as "interrupted") rather than half a line.
 */

import { join } from "./fs/path.ts";
import { assertNoSymlinkSync, safeReadTextFileSync, safeWriteFileSync } from "./fs/safe_fs.ts";
import type { ArtifactRef, Envelope } from "./envelope.ts";
import type { ErrorCode } from "./errors.ts";
import { PtermError } from "./errors.ts";
import type { FlagValue } from "./flags.ts";
import { isRunId, runIdDay } from "./run_id.ts";
import { redactCommandLine, redactCredentials } from "./redact.ts";

export const AUDIT_DIR = "audit";

/** A run still "running" this long after its timeout was killed (kill -9, power loss). */
const INTERRUPTED_AFTER_MS = 60_000;

export interface AuditRecord {
  run_id: string;
  /** ISO time the run started. */
  timestamp: string;
  session: string;
  /** The command line as the agent sent it. */
  command: string;
  /** The words of the command line, or null when it did not parse. */
  argv: string[] | null;
  /** The command path and its parsed flags and positionals, or null before parsing succeeded. */
  parsed: {
    path: string[];
    flags: Record<string, FlagValue | undefined>;
    positionals: Record<string, string | string[] | undefined>;
  } | null;
  state: "running" | "finished";
  exit_code: number | null;
  error_code: ErrorCode | null;
  message: string | null;
  duration_ms: number | null;
  timeout_ms: number;
  artifacts: ArtifactRef[];
  /** The stdin the call carried, saved as an artifact. */
  stdin: ArtifactRef | null;
  /** For a replay: the run it repeats. */
  replay_of: string | null;
  /** Who made the call (records written before this field existed have none: `exec`). */
  origin?: CallOrigin;
  /** The envelope as the caller received it (finished runs). */
  envelope: Envelope | null;
  /** For Internal errors: where it happened. */
  detail?: string;
}

/** Where a call came from: a `pterm exec` process, the MCP server, or a person at `pterm shell`. */
export type CallOrigin = "exec" | "mcp" | "shell";

export type RunState = "running" | "finished" | "interrupted";

/** The record's path relative to the root, `/`-separated. */
export function auditRel(runId: string): string {
  return `${AUDIT_DIR}/${runIdDay(runId)}/${runId}.json`;
}

export function auditPath(root: string, runId: string): string {
  return join(root, AUDIT_DIR, runIdDay(runId), `${runId}.json`);
}

/**
 * Not durable (no fsync): the rename already makes the record whole for readers and survives
 * kill -9. Synchronous because it sits on every call's start-up path (see writeFileAtomicSync).
 */
export function writeAuditRecord(root: string, record: AuditRecord): void {
  // Never through a symlink (`audit -> /elsewhere`): see core/fs/safe_fs.ts.
  safeWriteFileSync(root, auditRel(record.run_id), JSON.stringify(redactRecord(record)) + "\n", {
    mkdirs: true,
  });
}

/**
 * The record without the URL credentials an agent put on its command line (commands refuse such
 * URLs, but the line is recorded first): the line re-quoted from its redacted words, every other
 * string redacted by the same rule as the call's errors and result (core/redact.ts).
 */
export function redactRecord(record: AuditRecord): AuditRecord {
  const words = record.argv ?? [record.command];
  return { ...redactCredentials(record, words), command: redactCommandLine(record.command, record.argv) };
}

export function stateOf(record: AuditRecord, now = Date.now()): RunState {
  if (record.state === "finished") return "finished";
  const started = Date.parse(record.timestamp);
  return now - started > record.timeout_ms + INTERRUPTED_AFTER_MS ? "interrupted" : "running";
}

export function readAuditRecord(root: string, runId: string): Promise<AuditRecord> {
  try {
    return Promise.resolve(readAuditRecordSync(root, runId));
  } catch (error) {
    return Promise.reject(error);
  }
}

function readAuditRecordSync(root: string, runId: string): AuditRecord {
  if (!isRunId(runId)) {
    throw new PtermError(
      "InvalidArgs",
      `\`${runId}\` is not a run id (they look like 20261122T034512123Z-8f3a9c1d); see \`pterm runs list\`.`,
    );
  }
  try {
    return JSON.parse(safeReadTextFileSync(root, auditRel(runId))) as AuditRecord;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new PtermError("NotFound", `no run ${runId} in this workspace's audit log; see \`pterm runs list\`.`);
    }
    throw error;
  }
}

const RUN_ID_ENDING = /^[0-9a-zA-Z-]{1,28}$/;
const RECORD_FILE = /^\d{8}T\d{9}Z-[0-9a-f]{8}\.json$/;
const DAY_DIR = /^\d{4}-\d{2}-\d{2}$/;
/** How many candidates an ambiguous ending's error names. */
const CANDIDATES_SHOWN = 8;

/**
 * A whole run id, or the unique run whose id ends with `text` (`8b4f2de0`, `Z-8b4f2de0`): every
 * place that takes a run id from a person resolves it here. An ending that matches several runs is
 * AmbiguousMatch naming them; none is NotFound.
 */
export async function resolveRunId(root: string, text: string): Promise<string> {
  if (isRunId(text)) return text;
  if (!RUN_ID_ENDING.test(text)) {
    throw new PtermError(
      "InvalidArgs",
      `\`${text}\` is neither a run id (20261122T034512123Z-8f3a9c1d) nor the end of one (8f3a9c1d); ` +
        "see `pterm runs list`.",
    );
  }
  const ending = text.toLowerCase().replace(/z/g, "Z").replace(/t/g, "T");
  const matches: string[] = [];
  assertNoSymlinkSync(root, AUDIT_DIR);
  for (const day of await sortedEntries(join(root, AUDIT_DIR), DAY_DIR)) {
    for (const file of await sortedEntries(join(root, AUDIT_DIR, day), RECORD_FILE)) {
      const runId = file.slice(0, -".json".length);
      if (runId.endsWith(ending)) matches.push(runId);
    }
  }
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) {
    throw new PtermError(
      "NotFound",
      `no run id in this workspace's audit log ends with \`${text}\`; see \`pterm runs list\`.`,
    );
  }
  const shown = matches.slice(0, CANDIDATES_SHOWN).join(", ");
  const more = matches.length > CANDIDATES_SHOWN ? ` and ${matches.length - CANDIDATES_SHOWN} more` : "";
  throw new PtermError(
    "AmbiguousMatch",
    `\`${text}\` ends ${matches.length} run ids (${shown}${more}); give more of the id, e.g. \`pterm runs show ${
      matches[0]
    }\`.`,
  );
}

export interface ListFilter {
  readonly session?: string;
  /** Only runs started at or after this time. */
  readonly since?: Date;
  /** Only runs that failed (exit code not 0) or were interrupted. */
  readonly failed?: boolean;
  readonly limit?: number;
}

async function sortedEntries(dir: string, pattern: RegExp): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) if (pattern.test(entry.name)) names.push(entry.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return names.sort().reverse();
}

/** Newest first. Unreadable files (never produced by pterm) are skipped, not fatal. */
export async function listAuditRecords(root: string, filter: ListFilter = {}): Promise<AuditRecord[]> {
  const limit = filter.limit ?? 50;
  const out: AuditRecord[] = [];
  const sinceDay = filter.since?.toISOString().slice(0, 10);
  const now = Date.now();
  assertNoSymlinkSync(root, AUDIT_DIR);
  for (const day of await sortedEntries(join(root, AUDIT_DIR), /^\d{4}-\d{2}-\d{2}$/)) {
    if (sinceDay && day < sinceDay) break;
    for (const file of await sortedEntries(join(root, AUDIT_DIR, day), /^\d{8}T\d{9}Z-[0-9a-f]{8}\.json$/)) {
      let record: AuditRecord;
      try {
        record = JSON.parse(safeReadTextFileSync(root, `${AUDIT_DIR}/${day}/${file}`));
      } catch {
        continue;
      }
      if (filter.since && Date.parse(record.timestamp) < filter.since.getTime()) continue;
      if (filter.session && record.session !== filter.session) continue;
      if (filter.failed) {
        const state = stateOf(record, now);
        if (state === "running") continue;
        if (state === "finished" && record.exit_code === 0) continue;
      }
      out.push(record);
      if (out.length >= limit) return out;
    }
  }
  return out;
}
