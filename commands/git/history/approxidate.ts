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

const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/**
 * Seconds since the epoch for `text`, relative to `nowMs`, as git's approxidate reads it: a date
 * without a time is that date at the current time of day, in the local time zone (git's update_tm
 * keeps now's hours); `today` is now and `yesterday` a day ago at the same time; `midnight` is
 * today's local midnight; `a`/`an` is no number in git, so `a day ago` is now; months and years
 * move the calendar (a day that does not exist rolls over, as mktime rolls it).
 */
export function parseApproxDate(text: string, nowMs = Date.now()): number {
  const value = text.trim().toLowerCase().replace(/[._]/g, " ");
  const now = Math.floor(nowMs / 1000);
  const local = new Date(now * 1000);
  if (value === "now" || value === "today") return now;
  if (value === "midnight") {
    return Math.floor(new Date(local.getFullYear(), local.getMonth(), local.getDate()).getTime() / 1000);
  }
  if (value === "yesterday") return now - 86400;
  const unix = value.match(/^@(\d+)$/);
  if (unix) return Number(unix[1]);
  const ago = value.match(/^(\d+|an?|[a-z]+)\s+(second|minute|hour|day|week|month|year)s?(\s+ago)?$/);
  if (ago && (/^(\d+|an?)$/.test(ago[1]) || NUMBER_WORDS.includes(ago[1]))) {
    const n = /^\d+$/.test(ago[1]) ? Number(ago[1]) : /^an?$/.test(ago[1]) ? 0 : NUMBER_WORDS.indexOf(ago[1]);
    const unit = ago[2];
    if (UNIT_SECONDS[unit]) return now - n * UNIT_SECONDS[unit];
    const date = new Date(now * 1000);
    if (unit === "month") date.setMonth(date.getMonth() - n);
    else date.setFullYear(date.getFullYear() - n);
    return Math.floor(date.getTime() / 1000);
  }
  const iso = text.trim().match(
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?\s*(Z|[+-]\d{2}:?\d{2})?)?$/,
  );
  if (iso) {
    const [, y, mo, d, h, mi, s = "00", zone] = iso;
    if (h === undefined) {
      const at = new Date(+y, +mo - 1, +d, local.getHours(), local.getMinutes(), local.getSeconds());
      return Math.floor(at.getTime() / 1000);
    }
    if (!zone) return Math.floor(new Date(+y, +mo - 1, +d, +h, +mi, +s).getTime() / 1000);
    const sign = zone === "Z" ? 0 : zone[0] === "-" ? -1 : 1;
    const digits = zone.replace(/[^0-9]/g, "");
    const offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0));
    return Math.floor(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s) / 1000) - offset * 60;
  }
  throw new PtermError(
    "InvalidArgs",
    `\`${text}\` is not a date pterm reads: use an ISO date (2026-01-31, 2026-01-31 14:00), \`@<unix seconds>\`, ` +
      "`yesterday`, or `<n> days ago` (seconds, minutes, hours, days, weeks, months, years).",
  );
}
