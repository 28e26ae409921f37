/** The test server itself, checked with the real git: clone, push, protocol v2, the token, the cut. */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { realGit, startGitHttpServer } from "./http_server.ts";

Deno.test("the loopback git server serves the real git (v2, v0, token, push, cut)", async (t) => {
  await using server = await startGitHttpServer({
    auth: { repos: ["private.git"], user: "agent", token: "s3cret-token" },
  });
  await using work = await makeRoot();
  await server.createBare("app.git");
  await server.createBare("private.git");
  const src = `${work.path}/src`;
  await realGit(["init", "--quiet", "--initial-branch=main", src]);
  await Deno.writeTextFile(`${src}/a.txt`, "one\n");
  await realGit(["-C", src, "add", "."]);
  await realGit(["-C", src, "-c", "user.name=T", "-c", "user.email=t@x", "commit", "--quiet", "-m", "first"]);
  await realGit(["-C", src, "push", "--quiet", server.url("app.git"), "main"]);

  await t.step("protocol v2 clone", async () => {
    await realGit(["-c", "protocol.version=2", "clone", "--quiet", server.url("app.git"), `${work.path}/c2`]);
    assert.equal(await Deno.readTextFile(`${work.path}/c2/a.txt`), "one\n");
    assert(server.requests.some((r) => r.gitProtocol === "version=2"));
  });
  await t.step("the token repository refuses without it and serves with it", async () => {
    const refused = await new Deno.Command("git", {
      args: ["-c", "credential.helper=", "ls-remote", server.url("private.git")],
      env: { GIT_TERMINAL_PROMPT: "0" },
      stdout: "null",
      stderr: "null",
    }).output();
    assert(!refused.success);
    const withToken = server.url("private.git").replace("http://", "http://agent:s3cret-token@");
    await realGit(["ls-remote", withToken]);
  });
  await t.step("a cut fetch fails the real git's clone", async () => {
    server.cutNextFetchAfter = 40;
    const cut = await new Deno.Command("git", {
      args: ["clone", "--quiet", server.url("app.git"), `${work.path}/cut`],
      stdout: "null",
      stderr: "null",
    }).output();
    assert(!cut.success);
  });
});
