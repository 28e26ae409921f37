/**
 * A cloned repository that tracks secret files (`.env`, `secrets/…` — sharkdp/bat tracks `.envrc`
 * and test `.env` files) gets them in its index but not in its work tree, as pterm never writes
 * secrets. The clone said nothing of it: it reported success with the files simply missing, where
 * the real git's status shows them deleted. Now `result.withheld` lists them and stderr says so.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace } from "./fixture.ts";

Deno.test("a clone names the tracked secret files it did not write", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await server.createBare("app.git");
  const src = `${work.path}/src`;
  await git(work.path, "init", "-q", "-b", "main", src);
  await Deno.mkdir(`${src}/secrets`);
  await Deno.writeTextFile(`${src}/.envrc`, "export TOKEN=abc\n");
  await Deno.writeTextFile(`${src}/secrets/key.pem`, "not for agents\n");
  await Deno.writeTextFile(`${src}/README.md`, "# app\n");
  await git(src, "add", "-A", "-f");
  await git(src, "commit", "-q", "-m", "with secrets");
  await git(src, "push", "-q", server.url("app.git"), "main");
  await using root = await allowedWorkspace(server);
  const cloned = await exec(root.path, `git clone --url ${server.url("app.git")} --dir app --confirm`);
  assert.equal(cloned.exit_code, 0, cloned.stderr);
  const result = cloned.result as { files: number; withheld: string[] };
  assert.deepEqual(result.withheld, [".envrc", "secrets/key.pem"]);
  assert.equal(result.files, 1);
  assert.match(cloned.stderr, /2 tracked files not written: \.envrc, secrets\/key\.pem/);
  await assert.rejects(Deno.stat(`${root.path}/app/.envrc`), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(`${root.path}/app/README.md`), "# app\n");
  // Still tracked: the index has them, so a commit does not delete them.
  assert.match(await git(`${root.path}/app`, "ls-files"), /\.envrc/);
});
