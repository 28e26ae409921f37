/**
 * A pterm clone (and a pterm checkout) records each file it writes with the file's real stat data — size, mtime,
 * inode — as git's checkout does. Before, every entry was written with size 0 (the "smudged" mark for a file that
 * might have changed), so the person's first real `git status` hashed every file of the clone again: right
 * answer, slow on a big tree. The real git reads the index back and compares it with lstat.
 */

import assert from "node:assert/strict";
import { assertFsck, git } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

/** Every index entry as `git ls-files --debug` shows it: path → size, mtime seconds, inode. */
async function indexStat(dir: string): Promise<Map<string, { size: number; mtime: number; ino: number }>> {
  const out = new Map<string, { size: number; mtime: number; ino: number }>();
  let path = "";
  let current = { size: -1, mtime: -1, ino: -1 };
  for (const line of (await git(dir, "ls-files", "--debug")).split("\n")) {
    if (!line.startsWith(" ")) {
      if (line === "") continue;
      path = line;
      current = { size: -1, mtime: -1, ino: -1 };
      out.set(path, current);
      continue;
    }
    const mtime = /mtime: (\d+):/.exec(line);
    if (mtime) current.mtime = Number(mtime[1]);
    const ino = /ino: (\d+)/.exec(line);
    if (ino) current.ino = Number(ino[1]);
    const size = /size: (\d+)/.exec(line);
    if (size) current.size = Number(size[1]);
  }
  return out;
}

async function assertStatRecorded(dir: string, note: string): Promise<void> {
  const entries = await indexStat(dir);
  assert.ok(entries.size > 3, note);
  for (const [path, entry] of entries) {
    const info = await Deno.lstat(`${dir}/${path}`);
    assert.equal(entry.size, info.size, `${note}: size of ${path}`);
    assert.equal(entry.ino, info.ino, `${note}: inode of ${path}`);
    assert.equal(entry.mtime, Math.floor(info.mtime!.getTime() / 1000), `${note}: mtime of ${path}`);
  }
  // Nothing differs for the real git, and its check finds every entry clean without a content change.
  assert.equal(await git(dir, "diff-files", "--name-status"), "");
  assert.equal(await git(dir, "status", "--porcelain"), "");
}

Deno.test("a clone's index holds the stat data of the files it wrote, and so does a switch", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const cloned = await exec(root.path, `git clone --url ${server.url("app.git")} --dir app --confirm`);
  assert.equal(cloned.exit_code, 0, cloned.stderr);
  const app = `${root.path}/app`;
  await assertStatRecorded(app, "after clone");
  const switched = await exec(root.path, "git switch --repo app side");
  assert.equal(switched.exit_code, 0, switched.stderr);
  await assertStatRecorded(app, "after switch");
  await assertFsck(app);
});
