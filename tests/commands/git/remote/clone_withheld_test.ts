/**
 * A cloned repository that tracks secret files (`.env`, `secrets/…` — sharkdp/bat tracks `.envrc` and
 * `DotENV/.env`) gets them on disk as the real git's clone leaves them, never shown: pterm prints and returns
 * nothing of their content, and the real git then sees nothing deleted. Before, pterm left them unwritten, so the
 * person's `git status` showed them deleted and a `git commit -a` would have deleted them.
 */

import assert from "node:assert/strict";
import { assertFsck, git } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace } from "./fixture.ts";

Deno.test("a clone writes tracked secret files as git does, without showing them", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await server.createBare("app.git");
  const src = `${work.path}/src`;
  await git(work.path, "init", "-q", "-b", "main", src);
  await Deno.mkdir(`${src}/secrets`);
  await Deno.mkdir(`${src}/DotENV`);
  await Deno.writeTextFile(`${src}/.envrc`, "export TOKEN=abc-not-for-agents\n");
  await Deno.writeTextFile(`${src}/DotENV/.env`, "PASSWORD=hunter2-not-for-agents\n");
  await Deno.writeTextFile(`${src}/secrets/key.pem`, "not for agents\n");
  await Deno.writeTextFile(`${src}/README.md`, "# app\n");
  await git(src, "add", "-A", "-f");
  await git(src, "commit", "-q", "-m", "with secrets");
  await git(src, "push", "-q", server.url("app.git"), "main");
  await using root = await allowedWorkspace(server);
  const cloned = await exec(root.path, `git clone --url ${server.url("app.git")} --dir app --confirm`);
  assert.equal(cloned.exit_code, 0, cloned.stderr);
  const result = cloned.result as { files: number; withheld: string[] };
  assert.deepEqual(result.withheld, []);
  assert.equal(result.files, 4);
  assert.doesNotMatch(JSON.stringify(cloned), /not-for-agents|hunter2/);
  const app = `${root.path}/app`;
  assert.equal(await Deno.readTextFile(`${app}/.envrc`), "export TOKEN=abc-not-for-agents\n");
  assert.equal(await Deno.readTextFile(`${app}/DotENV/.env`), "PASSWORD=hunter2-not-for-agents\n");
  // The real git sees the clone exactly as it checked it out: nothing deleted, nothing modified.
  assert.equal(await git(app, "status", "--porcelain", "--untracked-files=all"), "");
  // Still withheld from the agent: pterm's own git refuses to show the content.
  const shown = await exec(root.path, "git show --repo app HEAD:.envrc");
  assert.notEqual(shown.exit_code, 0);
  assert.doesNotMatch(JSON.stringify(shown), /not-for-agents/);
  await assertFsck(app);
});
