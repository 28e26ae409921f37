/**
 * Upstreams as the real git sets them, in twin clones of one served repository: git's guess
 * (`git switch fix` with only origin/fix), `--track` / `--no-track`, every `branch.autoSetupMerge`
 * value, `checkout.defaultRemote`, `git branch -u` / `--unset-upstream`, and the [branch "x"]
 * section following a rename and going with a delete. After every step the two clones' refs,
 * HEAD and `git config --local --list` must be the same. Before this, `git switch fix` refused
 * with advice (`git switch -c fix`) that made fix at HEAD, not at origin/fix, and a deleted
 * branch's upstream stayed behind for the next branch of that name — where push would send it.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";

async function state(dir: string): Promise<string> {
  const refs = await git(dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads");
  const head = await git(dir, "symbolic-ref", "-q", "HEAD").catch(() => "detached\n");
  const config = (await git(dir, "config", "--local", "--list")).split("\n").filter((l) => l.startsWith("branch."));
  return `${head}${refs}${config.join("\n")}`;
}

Deno.test("upstreams of new branches, the guess, -u and rename/delete match the real git", async (t) => {
  await using root = await makeRoot();
  const w = root.path;
  await git(w, "init", "-q", "--bare", "-b", "main", "srv.git");
  await git(w, "init", "-q", "--bare", "-b", "main", "up.git");
  await git(w, "clone", "-q", "srv.git", "seed");
  const seed = `${w}/seed`;
  await Deno.writeTextFile(`${seed}/a.txt`, "a\n");
  await git(seed, "add", "a.txt");
  await git(seed, "commit", "-q", "-m", "one");
  for (const b of ["side", "feature/x", "both", "solo", "other"]) await git(seed, "branch", b);
  await git(seed, "push", "-q", "origin", "main", "side", "feature/x", "both", "solo", "other");
  await git(seed, "push", "-q", `${w}/up.git`, "main", "both");
  for (const twin of ["mine", "theirs"]) {
    await git(w, "clone", "-q", "srv.git", twin);
    await git(`${w}/${twin}`, "remote", "add", "up", `${w}/up.git`);
    await git(`${w}/${twin}`, "fetch", "-q", "up");
  }
  const theirs = `${w}/theirs`;

  /** Runs one step in both clones (pterm's spelling, git's argv) and compares what they left. */
  const both = async (pterm: string, real: string[], expectFailure = false) => {
    const ours = await exec(w, pterm);
    const gitOutcome = await git(theirs, ...real).then(() => true, () => false);
    assert.equal(ours.exit_code === 0, !expectFailure, `${pterm}: ${ours.stderr}`);
    assert.equal(gitOutcome, !expectFailure, `git ${real.join(" ")}`);
    assert.equal(await state(`${w}/mine`), await state(theirs), pterm);
    return ours;
  };

  await t.step("git switch <name> with only origin/<name> creates it tracking that", async () => {
    const r = await both("git switch --repo mine side", ["switch", "-q", "side"]);
    assert.equal((r.result as { upstream: string }).upstream, "origin/side");
    assert.match(r.stdout, /branch 'side' set up to track 'origin\/side'/);
    await both("git checkout --repo mine feature/x", ["checkout", "-q", "feature/x"]);
  });

  await t.step("new branches from a remote-tracking branch track it; from a local one they do not", async () => {
    await both("git switch --repo mine -c x origin/side", ["switch", "-q", "-c", "x", "origin/side"]);
    await both("git branch --repo mine y origin/main", ["branch", "-q", "y", "origin/main"]);
    await both("git checkout --repo mine -b z main", ["checkout", "-q", "-b", "z", "main"]);
    await both("git branch --repo mine w origin/main --no-track", ["branch", "-q", "--no-track", "w", "origin/main"]);
    await both("git branch --repo mine --track l main", ["branch", "-q", "--track", "l", "main"]);
    // Without a start point the start is HEAD: --track follows the branch HEAD names, as git.
    await both("git branch --repo mine --track l2", ["branch", "-q", "--track", "l2"]);
    await both("git checkout --repo mine -t origin/solo", ["checkout", "-q", "-t", "origin/solo"]);
  });

  await t.step("git branch -u / --unset-upstream", async () => {
    await both("git branch --repo mine -u origin/side y", ["branch", "-q", "-u", "origin/side", "y"]);
    await both("git branch --repo mine --set-upstream-to main w", ["branch", "-q", "--set-upstream-to", "main", "w"]);
    await both("git branch --repo mine --unset-upstream y", ["branch", "-q", "--unset-upstream", "y"]);
    const listed = await exec(w, "git branch --repo mine -vv");
    assert.equal(listed.exit_code, 0, listed.stderr);
    // git's own -vv text of the same repository, byte for byte.
    assert.equal(listed.stdout, await git(`${w}/mine`, "--no-pager", "branch", "-vv"));
    assert.match(listed.stdout, /^ {2}w +[0-9a-f]{7} \[main\] /m);
    const branches = (listed.result as { branches: { name: string; upstream: string | null }[] }).branches;
    assert.equal(branches.find((b) => b.name === "x")?.upstream, "origin/side");
    assert.equal(branches.find((b) => b.name === "y")?.upstream, null);
  });

  await t.step("rename carries the upstream; delete removes it, so a new branch of that name has none", async () => {
    await both("git switch --repo mine main", ["switch", "-q", "main"]);
    await both("git branch --repo mine -m x x2", ["branch", "-q", "-m", "x", "x2"]);
    await both("git branch --repo mine -D x2", ["branch", "-q", "-D", "x2"]);
    await both("git branch --repo mine x2", ["branch", "-q", "x2"]);
  });

  await t.step("branch.autoSetupMerge false, simple, inherit, always", async () => {
    const configure = async (value: string) => {
      for (const dir of [`${w}/mine`, theirs]) await git(dir, "config", "branch.autoSetupMerge", value);
    };
    await configure("false");
    await both("git branch --repo mine f1 origin/side", ["branch", "-q", "f1", "origin/side"]);
    await both("git switch --repo mine other", ["switch", "-q", "other"]);
    await configure("simple");
    await both("git branch --repo mine s1 origin/side", ["branch", "-q", "s1", "origin/side"]);
    await both("git switch --repo mine -c side2 origin/side", ["switch", "-q", "-c", "side2", "origin/side"]);
    await configure("inherit");
    await both("git branch --repo mine i1 side", ["branch", "-q", "i1", "side"]);
    await configure("always");
    await both("git branch --repo mine a1 main", ["branch", "-q", "a1", "main"]);
    await both("git branch --repo mine a2 HEAD~0", ["branch", "-q", "a2", "HEAD~0"]);
    await both("git branch --repo mine a3", ["branch", "-q", "a3"]);
    for (const dir of [`${w}/mine`, theirs]) await git(dir, "config", "--unset", "branch.autoSetupMerge");
  });

  await t.step("a name on two remotes is refused, unless checkout.defaultRemote picks one", async () => {
    await both("git switch --repo mine main", ["switch", "-q", "main"]);
    const refused = await both("git switch --repo mine both", ["switch", "-q", "both"], true);
    assert.equal(refused.error_code, "InvalidArgs");
    assert.match(refused.stderr, /origin\/both, up\/both/);
    for (const dir of [`${w}/mine`, theirs]) await git(dir, "config", "checkout.defaultRemote", "up");
    await both("git switch --repo mine both", ["switch", "-q", "both"]);
  });

  await t.step("a word that is both a path and a remote branch is refused, as git refuses it", async () => {
    await both("git switch --repo mine main", ["switch", "-q", "main"]);
    for (const dir of [`${w}/mine`, theirs]) await Deno.writeTextFile(`${dir}/solo2`, "a path\n");
    await git(seed, "branch", "solo2");
    await git(seed, "push", "-q", "origin", "solo2");
    for (const dir of [`${w}/mine`, theirs]) await git(dir, "fetch", "-q", "origin");
    const refused = await both("git checkout --repo mine solo2", ["checkout", "-q", "solo2"], true);
    assert.match(refused.stderr, /both a path and the remote-tracking branch origin\/solo2/);
  });

  await t.step("checkout.guess=false: no guess, as git", async () => {
    for (const dir of [`${w}/mine`, theirs]) await git(dir, "config", "checkout.guess", "false");
    const refused = await both("git switch --repo mine other-none", ["switch", "-q", "other-none"], true);
    assert.equal(refused.error_code, "NotFound");
    await git(seed, "branch", "guessme");
    await git(seed, "push", "-q", "origin", "guessme");
    for (const dir of [`${w}/mine`, theirs]) await git(dir, "fetch", "-q", "origin");
    await both("git switch --repo mine guessme", ["switch", "-q", "guessme"], true);
  });
});
