/** git clone and ls-remote against a real git smart-HTTP server, with the real git as the oracle. */

import assert from "node:assert/strict";
import { assertFsck, git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

/** Every ref of a repository with what it points to (`git show-ref --head`), and the files of HEAD. */
async function stateOf(dir: string): Promise<{ refs: string; files: string; head: string }> {
  return {
    refs: await git(dir, "for-each-ref", "--format=%(refname) %(objectname) %(symref)"),
    files: await git(dir, "ls-files", "--stage"),
    head: await git(dir, "symbolic-ref", "HEAD"),
  };
}

for (const mode of ["v2", "v0"] as const) {
  Deno.test(`clone (protocol ${mode}): the same refs, files and config as the real git's clone; fsck clean`, async () => {
    await using server = await startGitHttpServer({ v0Only: mode === "v0" });
    await using work = await makeRoot();
    await servedRepository(server, "app.git", work.path);
    await using root = await allowedWorkspace(server);
    const url = server.url("app.git");

    const listed = await execOk(root.path, `git ls-remote --url ${url} --confirm`);
    const real = await git(work.path, "ls-remote", url);
    const ours = (listed.result as { refs: { name: string; oid: string; peeled?: string }[] }).refs;
    const oursLines = ours.flatMap((r) => [`${r.oid}\t${r.name}`, ...(r.peeled ? [`${r.peeled}\t${r.name}^{}`] : [])]);
    assert.deepEqual(oursLines.sort(), real.trim().split("\n").sort());

    const reports: { progress: number; total?: number; message?: string }[] = [];
    const envelope = await execOk(root.path, `git clone --url ${url} --dir projects/app --confirm`, {
      onProgress: (report) => reports.push(report),
    });
    // Progress as the pack arrives (bytes) and as it is indexed (objects of the total).
    assert.ok(reports.some((r) => r.message === "receiving pack bytes" && r.progress > 0));
    assert.ok(reports.some((r) => r.message === "indexing objects" && r.total !== undefined && r.progress === r.total));
    const result = envelope.result as { branch: string; transfer: { objects: number } };
    assert.equal(result.branch, "main");
    assert.ok(result.transfer.objects > 90);
    await git(work.path, "clone", "--quiet", url, `${work.path}/real`);
    const mine = `${root.path}/projects/app`;
    assert.deepEqual(await stateOf(mine), await stateOf(`${work.path}/real`));
    assert.equal(await git(mine, "config", "--get", "remote.origin.url"), `${url}\n`);
    assert.equal(await git(mine, "config", "--get", "remote.origin.fetch"), "+refs/heads/*:refs/remotes/origin/*\n");
    assert.equal(await git(mine, "config", "--get", "branch.main.merge"), "refs/heads/main\n");
    assert.equal(await git(mine, "status", "--porcelain"), "");
    assert.equal(
      await Deno.readTextFile(`${mine}/src/lib/numbers.txt`),
      await Deno.readTextFile(`${work.path}/real/src/lib/numbers.txt`),
    );
    assert.equal((await Deno.stat(`${mine}/run.sh`)).mode! & 0o111, 0o111);
    await assertFsck(mine);
    // An existing empty folder is taken over; a folder with something in it is refused, untouched.
    await Deno.mkdir(`${root.path}/projects/empty-before`);
    await execOk(root.path, `git clone --url ${url} --dir projects/empty-before --confirm`);
    assert.deepEqual(await stateOf(`${root.path}/projects/empty-before`), await stateOf(`${work.path}/real`));
    const taken = await exec(root.path, `git clone --url ${url} --dir projects/empty-before --confirm`);
    assert.equal(taken.error_code, "AlreadyExists");
    assert.deepEqual(
      [...Deno.readDirSync(`${root.path}/projects`)].map((e) => e.name).filter((n) => n.startsWith(".")),
      [],
    );
    // --single-branch: one remote-tracking branch, the tags in its history, a one-branch refspec.
    await execOk(root.path, `git clone --url ${url} --dir projects/single --branch side --single-branch --confirm`);
    await git(work.path, "clone", "--quiet", "--single-branch", "--branch", "side", url, `${work.path}/real-single`);
    assert.deepEqual(await stateOf(`${root.path}/projects/single`), await stateOf(`${work.path}/real-single`));
    assert.equal(
      await git(`${root.path}/projects/single`, "config", "remote.origin.fetch"),
      await git(`${work.path}/real-single`, "config", "remote.origin.fetch"),
    );
    // --branch: another branch checked out; origin/HEAD still names the remote's HEAD.
    await execOk(root.path, `git clone --url ${url} --dir projects/side --branch side --confirm`);
    await git(work.path, "clone", "--quiet", "--branch", "side", url, `${work.path}/real-side`);
    assert.deepEqual(await stateOf(`${root.path}/projects/side`), await stateOf(`${work.path}/real-side`));
    // pterm's own commands read the clone (its packs, packed-refs).
    const log = await execOk(root.path, "git log --repo projects/app --max 3");
    assert.match(log.stdout, /commit 30/);
    // The real git fetches into it with nothing to do.
    assert.equal((await git(mine, "fetch", "--dry-run")).trim(), "");
  });
}

Deno.test("clone --depth: the same shallow boundary, refs and files as the real git's; fetch deepens nothing wrongly", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const src = await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");
  for (const [depth, branch] of [[1, "main"], [15, "main"], [3, "side"]] as const) {
    const dir = `d${depth}-${branch}`;
    const envelope = await execOk(
      root.path,
      `git clone --url ${url} --dir ${dir} --depth ${depth} --branch ${branch} --confirm`,
    );
    assert.equal((envelope.result as { shallow: boolean }).shallow, true);
    const real = `${work.path}/real-${dir}`;
    await git(work.path, "clone", "--quiet", "--depth", String(depth), "--branch", branch, url, real);
    const mine = `${root.path}/${dir}`;
    assert.deepEqual(await stateOf(mine), await stateOf(real));
    assert.equal(await Deno.readTextFile(`${mine}/.git/shallow`), await Deno.readTextFile(`${real}/.git/shallow`));
    assert.equal(await git(mine, "config", "remote.origin.fetch"), await git(real, "config", "remote.origin.fetch"));
    assert.equal(await git(mine, "rev-list", "--count", "HEAD"), `${depth}\n`);
    await assertFsck(mine);
    const log = await execOk(root.path, `git log --repo ${dir} --max 100`);
    assert.equal((log.result as { commits: unknown[] }).commits.length, depth);
  }
  // The server moves on; a fetch into the shallow clone brings the new commits and keeps it consistent.
  await Deno.writeTextFile(`${src}/after.txt`, "after\n");
  await git(src, "add", "-A");
  await git(src, "commit", "--quiet", "-m", "after");
  await git(src, "push", "--quiet", url, "main");
  await execOk(root.path, "git fetch --repo d1-main --confirm");
  const mine = `${root.path}/d1-main`;
  assert.equal(await git(mine, "rev-parse", "refs/remotes/origin/main"), await git(src, "rev-parse", "main"));
  assert.equal(await git(mine, "rev-list", "--count", "refs/remotes/origin/main"), "2\n");
  await assertFsck(mine);
});

Deno.test("clone of an empty repository: its default branch set up as the real git's clone does; the first push fills it", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const bare = await server.createBare("empty.git", "trunk");
  await using root = await allowedWorkspace(server);
  const url = server.url("empty.git");
  const envelope = await execOk(root.path, `git clone --url ${url} --dir empty --confirm`);
  assert.equal((envelope.result as { branch: string | null }).branch, null);
  await git(work.path, "clone", "--quiet", url, "real");
  const mine = `${root.path}/empty`;
  const local = (dir: string) => git(dir, "config", "--local", "--list");
  assert.equal(await local(mine), await local(`${work.path}/real`));
  assert.equal(await Deno.readTextFile(`${mine}/.git/HEAD`), "ref: refs/heads/trunk\n");
  await Deno.writeTextFile(`${mine}/first.txt`, "first\n");
  await execOk(root.path, "git add --repo empty --path first.txt");
  await execOk(root.path, 'git commit --repo empty -m "first"');
  await execOk(root.path, "git push --repo empty --confirm");
  assert.equal(await git(bare, "rev-parse", "trunk"), await git(mine, "rev-parse", "HEAD"));
  await assertFsck(bare);
});

Deno.test("clone --depth over protocol v0: the same shallow boundary as the real git's", async () => {
  await using server = await startGitHttpServer({ v0Only: true });
  await using work = await makeRoot();
  await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");
  await execOk(root.path, `git clone --url ${url} --dir shallow --depth 5 --confirm`);
  await git(work.path, "-c", "protocol.version=0", "clone", "--quiet", "--depth", "5", url, "real");
  const mine = `${root.path}/shallow`;
  assert.deepEqual(await stateOf(mine), await stateOf(`${work.path}/real`));
  assert.equal(
    await Deno.readTextFile(`${mine}/.git/shallow`),
    await Deno.readTextFile(`${work.path}/real/.git/shallow`),
  );
  await assertFsck(mine);
});

Deno.test("clone's first checkout: .gitattributes conversions, an executable and a link as the real git's clone writes them", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await server.createBare("attrs.git");
  const src = `${work.path}/attrs-src`;
  await git(work.path, "init", "--quiet", "--initial-branch=main", src);
  await Deno.mkdir(`${src}/deep/er/still`, { recursive: true });
  await Deno.writeTextFile(`${src}/.gitattributes`, "*.bat text eol=crlf\n*.bin binary\n");
  await Deno.writeTextFile(`${src}/run.bat`, "@echo off\necho one\necho two\n");
  await Deno.writeFile(`${src}/data.bin`, new Uint8Array([0, 13, 10, 255, 10]));
  await Deno.writeTextFile(`${src}/deep/er/still/tool.sh`, "#!/bin/sh\n");
  await Deno.chmod(`${src}/deep/er/still/tool.sh`, 0o755);
  await Deno.symlink("../run.bat", `${src}/deep/link`);
  await git(src, "add", "-A");
  await git(src, "commit", "--quiet", "-m", "attributes");
  await git(src, "push", "--quiet", server.url("attrs.git"), "main");
  await using root = await allowedWorkspace(server);
  await execOk(root.path, `git clone --url ${server.url("attrs.git")} --dir attrs --confirm`);
  await git(work.path, "-c", "core.symlinks=false", "clone", "--quiet", server.url("attrs.git"), `${work.path}/real`);
  const mine = `${root.path}/attrs`;
  for (const path of ["run.bat", "data.bin", "deep/er/still/tool.sh", "deep/link", ".gitattributes"]) {
    assert.deepEqual(await Deno.readFile(`${mine}/${path}`), await Deno.readFile(`${work.path}/real/${path}`), path);
  }
  assert.match(await Deno.readTextFile(`${mine}/run.bat`), /\r\n/);
  assert.equal((await Deno.stat(`${mine}/deep/er/still/tool.sh`)).mode! & 0o777, 0o755);
  assert.equal((await Deno.stat(`${mine}/run.bat`)).mode! & 0o777, 0o644);
  assert.ok((await Deno.lstat(`${mine}/deep/link`)).isFile);
  assert.equal(await git(mine, "config", "core.symlinks"), "false\n");
  assert.equal(await git(mine, "status", "--porcelain"), "");
  assert.deepEqual(await stateOf(mine), await stateOf(`${work.path}/real`));
  await assertFsck(mine);
});
