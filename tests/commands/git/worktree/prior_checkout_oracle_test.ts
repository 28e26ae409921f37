/**
 * `git switch -`, `git checkout -` and `@{-n}` go back to the branch checked out before, read from HEAD's log as git
 * reads it. Before, `git switch -` answered "there is no branch `-`: create it with `git switch -c -`" (a line that
 * itself fails) and `checkout -`/`@{-1}` were unknown revisions. Each step runs in twin repositories and is compared
 * with the real git.
 */

import assert from "node:assert/strict";
import { git, pterm, ptermTry } from "../oracle.ts";
import { Twin } from "../twin.ts";

Deno.test("switch -, checkout - and @{-n} go back as the real git does", async () => {
  await using twin = await Twin.create();
  await twin.write("a.txt", "a\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run('git commit --repo R -m "base"', ["commit", "-q", "-m", "base"]);
  await twin.run("git switch --repo R -c side", ["switch", "-q", "-c", "side"]);
  await twin.write("a.txt", "side\n");
  await twin.run('git commit --repo R -a -m "side"', ["commit", "-q", "-a", "-m", "side"]);
  await twin.run("git switch --repo R -", ["switch", "-q", "-"]);
  await twin.compare("after switch -");
  assert.equal((await git(twin.p, "symbolic-ref", "HEAD")).trim(), "refs/heads/main");
  await twin.run("git checkout --repo R -", ["checkout", "-q", "-"]);
  await twin.compare("after checkout -");
  await twin.run("git checkout --repo R @{-1}", ["checkout", "-q", "@{-1}"]);
  await twin.compare("after checkout @{-1}");
  const revs = await pterm(twin.root.path, "git rev-parse --repo p @{-1} @{-2}");
  assert.equal(revs.stdout, await git(twin.p, "rev-parse", "@{-1}", "@{-2}"));

  // Leaving a detached HEAD: `-` goes back to that commit, detached (git records its full object name).
  await twin.run("git checkout --repo R --detach HEAD", ["checkout", "-q", "--detach", "HEAD"]);
  await twin.run("git checkout --repo R -", ["checkout", "-q", "-"]);
  await twin.compare("back on main");
  await twin.run("git checkout --repo R -", ["checkout", "-q", "-"]);
  await twin.compare("detached again");
  // switch takes branches only: the previous commit needs --detach, in pterm as in git.
  await twin.run("git switch --repo R main", ["switch", "-q", "main"]);
  await twin.run("git switch --repo R -", ["switch", "-q", "-"], "NotFound");
  await twin.run("git switch --repo R --detach -", ["switch", "-q", "--detach", "-"]);
  await twin.compare("switch --detach -");
});

Deno.test("switch - with no earlier checkout is refused with a line that runs", async () => {
  await using twin = await Twin.create();
  await twin.write("a.txt", "a\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run('git commit --repo R -m "base"', ["commit", "-q", "-m", "base"]);
  const refused = await twin.run("git switch --repo R -", ["switch", "-"], "NotFound");
  assert.doesNotMatch(refused.stderr, /switch -c -/);
  assert.match(refused.stderr, /git reflog/);
  const bad = await ptermTry(twin.root.path, "git switch --repo p no..such");
  assert.doesNotMatch(bad.stderr, /switch -c/);
});
