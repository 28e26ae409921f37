/**
 * The call's timeout against a server that stops sending mid-pack and keeps the connection open:
 * exit 124 (Timeout), and nothing half-written — no clone folder, no ref, no pack, no temporary
 * file — and the next fetch succeeds.
 */

import assert from "node:assert/strict";
import { assertFsck, git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

Deno.test("a server hanging mid-pack: Timeout (124), nothing half-written, the next fetch works", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const src = await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");

  server.stallNextFetchAfter = 2000;
  const clone = await exec(root.path, `git clone --url ${url} --dir app --confirm`, { timeoutMs: 1500 });
  assert.equal(clone.error_code, "Timeout");
  assert.equal(clone.exit_code, 124);
  // Neither the folder nor the hidden one the clone was being built in.
  assert.deepEqual([...Deno.readDirSync(root.path)].map((e) => e.name).filter((n) => n.includes("app")), []);

  await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
  const mine = `${root.path}/app`;
  const noise = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(60_000))));
  await Deno.writeTextFile(`${src}/noise.txt`, noise);
  await git(src, "add", "-A");
  await git(src, "commit", "--quiet", "-m", "noise");
  await git(src, "push", "--quiet", url, "main");
  const refs = await git(mine, "for-each-ref");
  const packDir = () => [...Deno.readDirSync(`${mine}/.git/objects/pack`)].map((e) => e.name).sort();
  const packs = packDir();
  server.stallNextFetchAfter = 4000;
  const fetch = await exec(root.path, "git fetch --repo app --confirm", { timeoutMs: 1500 });
  assert.equal(fetch.error_code, "Timeout");
  assert.equal(fetch.exit_code, 124);
  assert.equal(await git(mine, "for-each-ref"), refs);
  assert.deepEqual(packDir(), packs);
  await assertFsck(mine);
  await execOk(root.path, "git fetch --repo app --confirm");
  assert.equal(await git(mine, "rev-parse", "origin/main"), await git(src, "rev-parse", "main"));
});
