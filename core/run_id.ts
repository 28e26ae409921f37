/**
 * Run ids sort by start time and are unique across processes:
 * `20261122T034512123Z-8f3a9c1d` (UTC time to the millisecond, then 32 random bits).
 */

const RUN_ID = /^(\d{8})T(\d{9})Z-([0-9a-f]{8})$/;

export function newRunId(now = new Date()): string {
  const iso = now.toISOString(); // 2026-11-22T03:45:12.123Z
  const stamp = iso.slice(0, 10).replaceAll("-", "") + "T" + iso.slice(11, 23).replaceAll(":", "").replace(".", "") +
    "Z";
  const random = crypto.getRandomValues(new Uint32Array(1))[0].toString(16).padStart(8, "0");
  return `${stamp}-${random}`;
}

export function isRunId(value: string): boolean {
  return RUN_ID.test(value);
}

/** The UTC day (`2026-11-22`) a run id belongs to; audit records are sharded by it. */
export function runIdDay(runId: string): string {
  const m = RUN_ID.exec(runId);
  if (!m) throw new Error(`not a run id: ${runId}`);
  return `${m[1].slice(0, 4)}-${m[1].slice(4, 6)}-${m[1].slice(6, 8)}`;
}
