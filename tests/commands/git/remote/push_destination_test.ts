/**
 * Where a push goes, as the real git decides it, against a real git server. A branch that tracks
 * a branch of another name (`git switch -c fix origin/main`) was pushed by `git push origin fix`
 * to main — where the real git sends it to fix, and where `git push` alone (push.default=simple)
 * refuses. pterm now pushes where git pushes, or refuses, naming the line that does what was meant;
 * push.default=upstream and current are honoured.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

Deno.test("push of a branch whose upstream has another name goes where the real git's goes, or is refused", async (t) => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");
  await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
  const mine = `${root.path}/app`;
  const remoteMain = async () => (await git(work.path, "ls-remote", url, "refs/heads/main")).split("\t")[0];
  const remoteHas = async (branch: string) => (await git(work.path, "ls-remote", url, `refs/heads/${branch}`)) !== "";

  // fix tracks origin/main, as `git switch -c fix origin/main` (or `git branch --track`) leaves it.
  await execOk(root.path, "git switch -c fix --repo app");
  await git(mine, "config", "branch.fix.remote", "origin");
  await git(mine, "config", "branch.fix.merge", "refs/heads/main");
  await Deno.writeTextFile(`${mine}/fix.txt`, "fix\n");
  await execOk(root.path, "git add fix.txt --repo app");
  await execOk(root.path, "git commit -m fix --repo app");
  const before = await remoteMain();

  // The real git in a twin clone, for each line: where does it send the commit?
  const twin = `${work.path}/twin`;
  await git(work.path, "clone", "-q", url, twin);
  await git(twin, "switch", "-q", "-c", "fix", "--track", "origin/main");
  const simple = await new Deno.Command("git", { args: ["push", "-q"], cwd: twin, stderr: "piped" }).output();
  assert.ok(!simple.success, "the real git's push.default=simple refuses an upstream of another name");

  for (const line of ["git push --confirm --repo app", "git push origin fix --confirm --repo app"]) {
    await t.step(`${line}: refused, nothing sent, the lines that do what was meant named`, async () => {
      const envelope = await exec(root.path, line);
      assert.equal(envelope.error_code, "Rejected", envelope.stderr);
      assert.match(envelope.stderr, /fix tracks main/);
      assert.match(envelope.stderr, /--set-upstream/);
      assert.equal(await remoteMain(), before, "main on the server did not move");
      assert.ok(!(await remoteHas("fix")));
    });
  }

  await t.step("push.default=upstream: git push sends fix to main, as the real git does", async () => {
    await git(mine, "config", "push.default", "upstream");
    await execOk(root.path, "git push --confirm --repo app");
    assert.equal(await remoteMain(), (await git(mine, "rev-parse", "fix")).trim());
  });

  await t.step("an explicit branch goes to its own name: with --set-upstream fix is created there", async () => {
    await Deno.writeTextFile(`${mine}/fix.txt`, "fix 2\n");
    await execOk(root.path, "git commit -a -m fix2 --repo app");
    const main = await remoteMain();
    await execOk(root.path, "git push -u origin fix --confirm --repo app");
    assert.ok(await remoteHas("fix"));
    assert.equal(await remoteMain(), main, "main was not touched");
    assert.equal((await git(mine, "config", "branch.fix.merge")).trim(), "refs/heads/fix");
  });
});
