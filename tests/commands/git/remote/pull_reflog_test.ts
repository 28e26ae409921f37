/**
 * A pull names its reflog entries as git's pull does, after its own command line: a fast-forward through
 * `pull --rebase` is `pull --rebase: Fast-forward` (not the merge's `merge refs/remotes/…: Fast-forward` it went
 * through before), a plain pull's `pull: Fast-forward`, a merge pull's `pull --no-rebase: Merge made by the 'ort'
 * strategy.`. Each pull runs through pterm in one clone and through the real git in another, and the reflogs of
 * HEAD and of the branch are compared.
 */

import assert from "node:assert/strict";
import { git, gitRaw } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

const moves = async (dir: string, ref: string) => (await git(dir, "reflog", "--format=%gs", "-1", ref)).trim();

Deno.test("pull's reflog entries are named after the pull, as git's", async (t) => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const src = await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const cloned = await exec(root.path, `git clone --url ${server.url("app.git")} --dir app --confirm`);
  assert.equal(cloned.exit_code, 0, cloned.stderr);
  await git(root.path, "clone", "-q", server.url("app.git"), "gapp");
  const [app, gapp] = [`${root.path}/app`, `${root.path}/gapp`];
  let n = 0;
  const upstreamMoves = async () => {
    await Deno.writeTextFile(`${src}/upstream.txt`, `upstream ${++n}\n`);
    await git(src, "add", "upstream.txt");
    await git(src, "commit", "-qm", `upstream change ${n}`);
    await git(src, "push", "-q", server.url("app.git"), "main");
  };
  const pulls: [string, string[], boolean][] = [
    ["git pull --rebase --repo app --confirm", ["pull", "--rebase"], false],
    ["git pull --repo app --confirm", ["pull"], false],
    ["git pull --rebase --repo app origin main --confirm", ["pull", "--rebase", "origin", "main"], false],
    ["git pull --no-rebase --repo app --confirm", ["pull", "--no-rebase"], true],
  ];
  for (const [line, args, diverged] of pulls) {
    await t.step(line, async () => {
      await upstreamMoves();
      if (diverged) {
        for (const dir of [app, gapp]) {
          await Deno.writeTextFile(`${dir}/mine.txt`, "mine\n");
          await git(dir, "add", "mine.txt");
          await git(dir, "commit", "-qm", "my change");
        }
      }
      const pulled = await exec(root.path, line);
      assert.equal(pulled.exit_code, 0, pulled.stderr);
      const real = await gitRaw(gapp, args);
      assert.equal(real.code, 0, real.stderr);
      assert.equal(await moves(app, "HEAD"), await moves(gapp, "HEAD"));
      assert.equal(await moves(app, "main"), await moves(gapp, "main"));
      // The person's git sees the same state: nothing staged or changed, the branch at the fetched commit's tree.
      assert.equal(await git(app, "status", "--porcelain"), "");
      assert.equal(await git(app, "rev-parse", "HEAD^{tree}"), await git(gapp, "rev-parse", "HEAD^{tree}"));
    });
  }
});
