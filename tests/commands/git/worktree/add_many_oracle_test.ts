/**
 * `git add --all` of many files at once (the bulk path: one walk, then every file read, hashed and
 * recorded in one loop), against the real git on a twin: the same index entries, the same objects,
 * stat data that real git trusts without re-reading a file, attribute files of nested folders obeyed
 * in their subfolders, and the next add and commit as git has them.
 */

import assert from "node:assert/strict";
import { Twin } from "../twin.ts";
import { assertFsck, git, gitRaw, porcelainFiles } from "../oracle.ts";

const FOLDERS = 12;
const PER_FOLDER = 50;

async function sameIndex(twin: Twin, note: string): Promise<void> {
  assert.equal(await git(twin.p, "ls-files", "-s"), await git(twin.g, "ls-files", "-s"), `index entries ${note}`);
  assert.deepEqual(await porcelainFiles(twin.p), await porcelainFiles(twin.g), `status ${note}`);
  const stat = (dir: string) => git(dir, "diff", "--cached", "--stat", "--no-color");
  assert.equal(await stat(twin.p), await stat(twin.g), `diff --cached --stat ${note}`);
  await assertFsck(twin.p);
  // The stat data pterm recorded is the files' own: git's diff-files (which never re-reads or
  // refreshes) finds every entry unchanged.
  const files = await gitRaw(twin.p, ["diff-files", "--name-only"]);
  assert.equal(files.code, 0, files.stderr);
  assert.equal(files.stdout, "", `entries whose stat data git does not trust ${note}`);
}

/** `git ls-files --debug` of `path`: the stat fields git reads from the index. */
async function indexStat(dir: string, path: string): Promise<Record<string, number>> {
  const text = await git(dir, "ls-files", "--debug", "--", path);
  const fields: Record<string, number> = {};
  for (const [, name, value] of text.matchAll(/(ctime|mtime|dev|ino|uid|gid|size): (\d+)/g)) fields[name] = +value;
  return fields;
}

Deno.test("git add --all of 600 files across nested folders: the index, objects and stat data are real git's", async () => {
  await using twin = await Twin.create();
  const crlf = "one\r\ntwo\r\n";
  for (let d = 0; d < FOLDERS; d++) {
    for (let f = 0; f < PER_FOLDER; f++) {
      const folder = d % 3 === 0 ? `d${d}` : `d${d}/sub${d % 3}`;
      await twin.write(`${folder}/f${f}.txt`, f % 10 === 0 ? crlf : `file ${d}/${f}\n`);
    }
  }
  // Attributes at the top and in one folder: they reach that folder's subfolders, not its siblings.
  await twin.write(".gitattributes", "*.bin binary\n");
  await twin.write("d1/.gitattributes", "*.txt text eol=lf\n");
  await twin.write("d1/sub1/deeper/x.txt", crlf);
  await twin.write("d2/sub2/y.txt", crlf);
  await twin.write("blob.bin", new Uint8Array([0, 1, 2, 13, 10, 255]));
  await twin.write("big.txt", "line of a larger file\n".repeat(400));
  await twin.write("empty", "");
  await twin.write("tool.sh", "#!/bin/sh\necho hi\n");
  await Deno.chmod(`${twin.p}/tool.sh`, 0o755);
  await Deno.chmod(`${twin.g}/tool.sh`, 0o755);
  await Deno.symlink("big.txt", `${twin.p}/link`);
  await Deno.symlink("big.txt", `${twin.g}/link`);

  const envelope = await twin.run("git add --repo R --all", ["add", "--all"]);
  // git add prints nothing; the result lists what was staged.
  assert.equal(envelope.stdout, "");
  assert.ok((envelope.result as { added: string[] }).added.length > 0);
  await sameIndex(twin, "after the first add");
  // The CRLF file under d1's attributes was stored with LF; its sibling folder's was stored as it is.
  const blobOf = async (path: string) => await git(twin.p, "cat-file", "-p", `:${path}`);
  assert.equal(await blobOf("d1/sub1/deeper/x.txt"), "one\ntwo\n");
  assert.equal(await blobOf("d2/sub2/y.txt"), crlf);
  for (const path of ["d0/f1.txt", "d4/sub1/f7.txt", "tool.sh", "link"]) {
    const info = await Deno.lstat(`${twin.p}/${path}`);
    const recorded = await indexStat(twin.p, path);
    assert.equal(recorded.ino, info.ino, `${path}: ino`);
    assert.equal(recorded.dev, info.dev! >>> 0, `${path}: dev`);
    assert.equal(recorded.mtime, Math.floor(info.mtime!.getTime() / 1000), `${path}: mtime`);
    assert.ok(recorded.size === info.size || recorded.size === 0, `${path}: size (0 only if racily clean)`);
  }

  // What a person does next: change some files, delete some, add a folder, add again; then commit.
  await twin.write("d0/f1.txt", "changed\n");
  await twin.write("d4/sub1/f7.txt", crlf);
  await twin.write("d1/sub1/f3.txt", crlf);
  await twin.remove("d5/sub2");
  await twin.remove("empty");
  await twin.write("new/folder/n.txt", "new\n");
  await twin.run("git add --repo R --all", ["add", "--all"]);
  await sameIndex(twin, "after the second add");
  await git(twin.p, "commit", "-qm", "bulk");
  await git(twin.g, "commit", "-qm", "bulk");
  assert.equal(await git(twin.p, "rev-parse", "HEAD^{tree}"), await git(twin.g, "rev-parse", "HEAD^{tree}"));
  assert.equal(await git(twin.p, "status", "--porcelain"), "");
  await assertFsck(twin.p);
});
