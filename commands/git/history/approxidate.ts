/**
 * The dates `git log --since/--until` take, in the forms agents write: ISO dates and times, `@<unix
 * seconds>`, `now`, `today`, `yesterday`, and `<n> <unit>(s) ago` with git's units. git's own
 * approxidate reads almost any English; a form outside this list is refused, never guessed.
 */

import { PtermError } from "../../../core/errors.ts";

const UNIT_SECONDS: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86400,
  week: 7 * 86400,
};

/** Seconds since the epoch for `text`, relative to `nowMs`. */
export function parseApproxDate(text: string, nowMs = Date.now()): number {
  const value = text.trim().toLowerCase().replace(/[._]/g, " ");
  const now = Math.floor(nowMs / 1000);
  if (value === "now") return now;
  if (value === "today" || value === "midnight") return Math.floor(now / 86400) * 86400;
  if (value === "yesterday") return Math.floor(now / 86400) * 86400 - 86400;
  const unix = value.match(/^@(\d+)$/);
  if (unix) return Number(unix[1]);
  const ago = value.match(/^(\d+|an?|one)\s+(second|minute|hour|day|week|month|year)s?(\s+ago)?$/);
  if (ago) {
    const n = /^\d+$/.test(ago[1]) ? Number(ago[1]) : 1;
    const unit = ago[2];
    if (UNIT_SECONDS[unit]) return now - n * UNIT_SECONDS[unit];
    const date = new Date(nowMs);
    if (unit === "month") date.setUTCMonth(date.getUTCMonth() - n);
    else date.setUTCFullYear(date.getUTCFullYear() - n);
    return Math.floor(date.getTime() / 1000);
  }
  const iso = text.trim().match(
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?\s*(Z|[+-]\d{2}:?\d{2})?$/,
  );
  if (iso) {
    const [, y, mo, d, h = "00", mi = "00", s = "00", zone] = iso;
    const offset = !zone || zone === "Z" ? "Z" : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
    const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
    if (!Number.isNaN(ms)) return Math.floor(ms / 1000);
  }
  throw new PtermError(
    "InvalidArgs",
    `\`${text}\` is not a date pterm reads: use an ISO date (2026-01-31, 2026-01-31 14:00), \`@<unix seconds>\`, ` +
      "`yesterday`, or `<n> days ago` (seconds, minutes, hours, days, weeks, months, years).",
  );
}
