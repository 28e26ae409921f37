/**
 * `:watch`: follows a session's audit records as other processes write them (an agent through
 * `pterm exec` or `pterm mcp`). Records are whole files renamed into place (core/audit.ts), so a
 * record read here is never torn; a run is announced when its start record lands and rendered
 * when its finished record replaces it.
 */

import { AUDIT_DIR, type AuditRecord } from "../../core/audit.ts";
import { join } from "../../core/fs/path.ts";

const RECORD_NAME = /^\d{8}T\d{9}Z-[0-9a-f]{8}\.json$/;
const DAY_NAME = /^\d{4}-\d{2}-\d{2}$/;

export interface WatchEvents {
  /** A run of the session started (its start record landed). */
  started(record: AuditRecord): void;
  /** A run of the session finished (also one that started before it was seen). */
  finished(record: AuditRecord): void;
}

function names(dir: string, pattern: RegExp): string[] {
  try {
    return [...Deno.readDirSync(dir)].filter((e) => pattern.test(e.name)).map((e) => e.name).sort();
  } catch {
    return [];
  }
}

function read(path: string): AuditRecord | null {
  try {
    return JSON.parse(Deno.readTextFileSync(path)) as AuditRecord;
  } catch {
    return null;
  }
}

/**
 * Watches `<root>/audit` for records of `session` (every session's when it is null) until
 * `signal` aborts. Runs already finished when it starts are not shown; runs still going then are
 * reported when they finish.
 */
export async function watchSession(
  root: string,
  session: string | null,
  events: WatchEvents,
  signal: AbortSignal,
  pollMs = 100,
): Promise<void> {
  const auditDir = join(root, AUDIT_DIR);
  /** Finished runs (never read again) and running ones (read again until they finish). */
  const finished = new Set<string>();
  const running = new Map<string, string>();
  const scan = (announce: boolean) => {
    const days = names(auditDir, DAY_NAME).slice(-2);
    for (const day of days) {
      for (const name of names(join(auditDir, day), RECORD_NAME)) {
        if (finished.has(name) || running.has(name)) continue;
        const path = join(auditDir, day, name);
        const record = read(path);
        if (record === null) continue;
        if (session !== null && record.session !== session) {
          finished.add(name);
          continue;
        }
        if (record.state === "finished") {
          finished.add(name);
          if (announce) {
            events.started(record);
            events.finished(record);
          }
        } else {
          running.set(name, path);
          if (announce) events.started(record);
        }
      }
    }
    for (const [name, path] of running) {
      const record = read(path);
      if (record?.state === "finished") {
        running.delete(name);
        finished.add(name);
        events.finished(record);
      }
    }
  };
  scan(false);
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
    if (!signal.aborted) scan(true);
  }
}
