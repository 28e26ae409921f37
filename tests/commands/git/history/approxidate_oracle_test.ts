/**
 * `--since`/`--until` dates read as git's approxidate reads them: a date alone is that date at the
 * current time of day (not midnight UTC), `today` is now, `yesterday` a day ago at this time,
 * `a day ago` is now (git reads no number in `a`). The oracle is `git rev-parse --since=<date>`,
 * which prints the timestamp git computed; a log filtered by such a date lists what git lists.
 */

import assert from "node:assert/strict";
import { git, gitRaw } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { parseApproxDate } from "../../../../commands/git/history/approxidate.ts";
import { gitAt } from "./history_repos.ts";

const FORMS = [
  "2024-03-02",
  "2024-3-2",
  "2024-02-30",
  "2024-03-02 14:00",
  "2024-03-02 14:00:05",
  "2024-03-02T14:00:05Z",
  "2024-03-02 14:00 +0200",
  "2024-03-02 14:00:05+02:00",
  "2024-03-02T14:00",
  "now",
  "today",
  "yesterday",
  "midnight",
  "@1700000000",
  "2 weeks ago",
  "2.weeks.ago",
  "3 days ago",
  "5 hours ago",
  "10 seconds ago",
  "one day ago",
  "two days ago",
  "a day ago",
  "an hour ago",
  "1 month ago",
  "13 months ago",
  "2 years ago",
];

Deno.test("approxidate: the dates pterm reads are the timestamps git computes", async () => {
  await using root = await makeRoot();
  await git(root.path, "init", "-q", "r");
  for (const form of FORMS) {
    const before = Date.now();
    const out = await gitRaw(`${root.path}/r`, ["rev-parse", `--since=${form}`]);
    const after = Date.now();
    const theirs = Number(/--max-age=(\d+)/.exec(out.stdout)?.[1]);
    const candidates = new Set([parseApproxDate(form, before), parseApproxDate(form, after)]);
    // The clock may tick between the two runs: git's answer is one of ours at either end.
    assert.ok(
      [...candidates].some((ours) => Math.abs(ours - theirs) <= 1),
      `${form}: git ${theirs}, pterm ${[...candidates].join("/")}`,
    );
  }
});

Deno.test("git log --since=<date> keeps the current time of day, as git", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await git(root.path, "init", "-q", "-b", "main", r);
  const now = new Date();
  const secondsToday = now.getHours() * 3600 + now.getMinutes() * 60 + now.getSeconds();
  // Two commits on 2024-03-02: one an hour before this time of day, one an hour after (local time).
  const day = new Date(2024, 2, 2).getTime() / 1000;
  const times = [day + Math.max(0, secondsToday - 3600), day + Math.min(86399, secondsToday + 3600)];
  for (const [i, at] of times.entries()) {
    await Deno.writeTextFile(`${r}/f.txt`, `${i}\n`);
    await gitAt(r, at, "+0000", "add", "f.txt");
    await gitAt(r, at, "+0000", "commit", "-q", "-m", `commit ${i}`);
  }
  const ours = await exec(root.path, "git log --repo r --since=2024-03-02 --format=%s");
  assert.equal(ours.exit_code, 0, ours.stderr);
  assert.equal(ours.stdout, await git(r, "log", "--since=2024-03-02", "--format=%s"));
  const until = await exec(root.path, "git log --repo r --until=2024-03-02 --format=%s");
  assert.equal(until.stdout, await git(r, "log", "--until=2024-03-02", "--format=%s"));
});
