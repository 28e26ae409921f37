/** pterm reads what real git wrote: packfiles (with deltas), packed-refs, annotated tags, reflogs. */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
import {
  assertFsck,
  git,
  gitBytes,
  gitInit,
  gitInitCommitted,
  gitRaw,
  hashObjectLiterally,
  pterm,
  ptermTry,
  result,
  write,
} from "./oracle.ts";

Deno.test("a packed repository (git gc): status, log, show, diff, checkout, branch and tag deletion", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  const body = Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n") + "\n";
  for (let i = 0; i < 6; i++) {
    await write(`${dir}/file.txt`, body.replace(`line ${i * 10}`, `edited ${i}`));
    await write(`${dir}/dir/n${i}.txt`, `${i}\n`);
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", `commit ${i}`);
  }
  await git(dir, "tag", "-a", "v1", "-m", "annotated", "HEAD~2");
  await git(dir, "tag", "light", "HEAD~3");
  await git(dir, "branch", "old", "HEAD~1");
  await git(dir, "gc", "-q", "--aggressive", "--prune=now");
  const loose = (await git(dir, "count-objects", "-v")).match(/^count: (\d+)/m)![1];
  assert.equal(loose, "0", "every object is packed");
  assert.ok((await Deno.readTextFile(`${dir}/.git/packed-refs`)).includes("refs/tags/v1"));

  const status = result(await pterm(root.path, "git status --repo r"));
  assert.equal(status.is_clean, true);
  const log = result(await pterm(root.path, "git log --repo r --max 10"));
  assert.deepEqual(
    log.commits.map((c: { id: string }) => c.id),
    (await git(dir, "log", "--format=%H")).trim().split("\n"),
  );
  const shown = result(await pterm(root.path, "git show --repo r v1"));
  assert.equal(shown.commit.subject, "commit 3");
  assert.equal(shown.tag.message, "annotated");
  const tags = result(await pterm(root.path, "git tag --repo r")).tags;
  assert.deepEqual(tags.map((t: { name: string; type: string }) => `${t.name}:${t.type}`), [
    "light:lightweight",
    "v1:annotated",
  ]);
  assert.equal(tags[1].target, (await git(dir, "rev-parse", "v1^{commit}")).trim());
  const diff = await pterm(root.path, "git diff --repo r light v1");
  assert.match(diff.stdout, /-edited 2\n/);
  await pterm(root.path, "git checkout --repo r old");
  assert.equal(await Deno.readTextFile(`${dir}/file.txt`), body.replace("line 40", "edited 4"));
  await pterm(root.path, "git checkout --repo r main");
  await pterm(root.path, "git branch --repo r --delete old");
  await pterm(root.path, "git tag --repo r --delete v1");
  const refs = (await git(dir, "for-each-ref", "--format=%(refname)")).trim().split("\n");
  assert.deepEqual(refs, ["refs/heads/main", "refs/tags/light"]);
  assert.ok(!(await Deno.readTextFile(`${dir}/.git/packed-refs`)).includes("refs/tags/v1"));
  const short = (await git(dir, "rev-parse", "--short", "HEAD~4")).trim();
  const byShort = result(await pterm(root.path, `git log --repo r --ref ${short} --max 1`));
  assert.equal(byShort.commits[0].subject, "commit 1");
  await write(`${dir}/file.txt`, "rewritten\n");
  await pterm(root.path, "git add --repo r --all");
  await pterm(root.path, "git commit --repo r -m after-gc");
  await assertFsck(dir);
  const unknown = await ptermTry(root.path, "git log --repo r --ref deadbeef");
  assert.equal(unknown.error_code, "NotFound");
});

Deno.test("a pack with a version 1 index (git before 1.5.2) is read too", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  for (let i = 0; i < 3; i++) {
    await write(`${dir}/f.txt`, `version ${i}\n`);
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", `c${i}`);
  }
  await git(dir, "-c", "pack.indexVersion=1", "repack", "-adq");
  const idx = [...Deno.readDirSync(`${dir}/.git/objects/pack`)].find((e) => e.name.endsWith(".idx"))!.name;
  const head = new Uint8Array(await Deno.readFile(`${dir}/.git/objects/pack/${idx}`)).subarray(0, 4);
  assert.notDeepEqual([...head], [0xff, 0x74, 0x4f, 0x63], "version 1 index (no magic)");
  const log = result(await pterm(root.path, "git log --repo r"));
  assert.deepEqual(log.commits.map((c: { subject: string }) => c.subject), ["c2", "c1", "c0"]);
  const diff = await pterm(root.path, "git diff --repo r HEAD~2 HEAD");
  assert.match(diff.stdout, /-version 0\n\+version 2\n/);
  assert.equal(result(await pterm(root.path, "git status --repo r")).is_clean, true);
});

Deno.test("commits as other tools wrote them: odd time zones, CRLF, whitespace in subjects, unknown headers", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInitCommitted(dir);
  const tree = (await git(dir, "rev-parse", "HEAD^{tree}")).trim();
  let parent = (await git(dir, "rev-parse", "HEAD")).trim();
  const raws = [
    // A six-digit time zone, as in a well-known project's history.
    `author Odd Zone <odd@example.com> 1111111111 +051800\ncommitter Odd Zone <odd@example.com> 1111111111 +051800\n\nodd zone\n`,
    // CRLF line ends: the blank CRLF line ends the subject.
    `author Win <win@example.com> 1222222222 -0700\r\ncommitter Win <win@example.com> 1222222222 -0700\r\n\r\nsubject from windows\r\n\r\nbody line\r\n`,
    // Leading and inner whitespace, and a two-line subject; an unknown header and an encoding header.
    `author Space  Name <sp@example.com> 1333333333 +0000\ncommitter Space  Name <sp@example.com> 1333333333 +0000\nencoding UTF-8\nx-unknown some value\n\n   indented   subject  \nsecond   line\n\nbody\n`,
    // A name with < in an odd place and no space before the email.
    `author NoSpace<ns@example.com> 1444444444 +1400\ncommitter NoSpace<ns@example.com> 1444444444 +1400\n\nno space\n`,
  ];
  for (const raw of raws) {
    const text = raw.replace(/^author/, `tree ${tree}\nparent ${parent}\nauthor`);
    parent = await hashObjectLiterally(dir, "commit", new TextEncoder().encode(text));
  }
  await git(dir, "update-ref", "refs/heads/main", parent);
  const log = result(await pterm(root.path, "git log --repo r --max 10"));
  const ours = log.commits.map((c: { author: { name: string; email: string; timestamp: number }; subject: string }) =>
    [c.author.name, c.author.email, String(c.author.timestamp), c.subject].join("|")
  );
  const theirs = (await git(dir, "log", "--format=%an|%ae|%at|%s")).trim().split("\n");
  assert.deepEqual(ours, theirs);
});

Deno.test("a shallow clone (.git/shallow): history stops at the boundary as in git; show, merge and branch work", async () => {
  await using root = await makeRoot();
  const src = `${root.path}/src`;
  await gitInit(src);
  for (let i = 0; i < 6; i++) {
    await write(`${src}/f.txt`, `version ${i}\n`);
    await write(`${src}/dir/g${i}.txt`, `${i}\n`);
    await git(src, "add", "-A");
    await git(src, "commit", "-qm", `commit ${i}`);
  }
  await git(root.path, "clone", "-q", "--depth", "3", `file://${src}`, "r");
  const dir = `${root.path}/r`;
  assert.ok((await Deno.readTextFile(`${dir}/.git/shallow`)).trim().length === 40);

  const log = result(await pterm(root.path, "git log --repo r --max 20"));
  assert.deepEqual(
    log.commits.map((c: { id: string; parents: string[] }) => `${c.id} ${c.parents.join(" ")}`.trimEnd()),
    (await git(dir, "log", "--format=%H %P")).trim().split("\n").map((l) => l.trimEnd()),
  );
  const byPath = result(await pterm(root.path, "git log --repo r --path f.txt --max 20"));
  assert.deepEqual(
    byPath.commits.map((c: { id: string }) => c.id),
    (await git(dir, "log", "--format=%H", "--", "f.txt")).trim().split("\n"),
  );
  const boundary = (await git(dir, "rev-parse", "HEAD~2")).trim();
  const shown = await pterm(root.path, `git show --repo r ${boundary}`);
  assert.match(shown.stdout, /\+version 3/);
  const past = await ptermTry(root.path, "git log --repo r --ref HEAD~3");
  assert.equal(past.error_code, "NotFound", past.stderr);
  assert.doesNotMatch(past.stderr, /damaged|fsck/);

  await pterm(root.path, "git checkout --repo r --create side HEAD~1");
  await write(`${dir}/side.txt`, "side\n");
  await pterm(root.path, "git add --repo r --all");
  await pterm(root.path, "git commit --repo r -m side");
  await pterm(root.path, "git checkout --repo r main");
  await write(`${dir}/main.txt`, "main\n");
  await pterm(root.path, "git add --repo r --all");
  await pterm(root.path, "git commit --repo r -m main-side");
  await pterm(root.path, 'git merge --repo r --branch side -m "merge side"');
  assert.equal(await Deno.readTextFile(`${dir}/side.txt`), "side\n");
  await pterm(root.path, "git branch --repo r --delete side");
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "");
  await assertFsck(dir);
});

Deno.test("alternates (clone --shared): followed inside the workspace, refused outside it with its own message", async () => {
  await using root = await makeRoot();
  await using outside = await makeRoot("pterm-outside-");
  for (const base of [root.path, outside.path]) {
    const src = `${base}/src`;
    await gitInit(src);
    for (let i = 0; i < 3; i++) {
      await write(`${src}/f.txt`, `version ${i}\n`);
      await git(src, "add", "-A");
      await git(src, "commit", "-qm", `commit ${i}`);
    }
    await git(src, "gc", "-q");
  }
  await git(root.path, "clone", "-q", "--shared", `${root.path}/src`, "inside");
  await git(root.path, "clone", "-q", "--shared", `${outside.path}/src`, "outside");
  const inside = `${root.path}/inside`;
  assert.ok((await Deno.readTextFile(`${inside}/.git/objects/info/alternates`)).includes("src"));

  const log = result(await pterm(root.path, "git log --repo inside --max 10"));
  assert.deepEqual(
    log.commits.map((c: { id: string }) => c.id),
    (await git(inside, "log", "--format=%H")).trim().split("\n"),
  );
  await write(`${inside}/f.txt`, "edited in the clone\n");
  await pterm(root.path, "git add --repo inside --all");
  await pterm(root.path, "git commit --repo inside -m edit");
  const diff = await pterm(root.path, "git diff --repo inside HEAD~1 HEAD");
  assert.match(diff.stdout, /-version 2\n\+edited in the clone/);
  await assertFsck(inside);

  const refused = await ptermTry(root.path, "git log --repo outside");
  assert.equal(refused.error_code, "PathEscape", refused.stderr);
  assert.match(refused.stderr, /alternates/);
  assert.doesNotMatch(refused.stderr, /damaged|fsck/);
  assert.ok(!refused.stderr.includes(outside.path), "no host path in the message");
});

Deno.test("a partial clone (--filter=blob:none): history reads; a missing blob says to fetch, and checkout changes nothing", async () => {
  await using root = await makeRoot();
  const src = `${root.path}/src`;
  await gitInit(src);
  await git(src, "config", "uploadpack.allowFilter", "true");
  for (let i = 0; i < 4; i++) {
    await write(`${src}/f.txt`, `version ${i}\n`);
    await write(`${src}/dir/g${i}.txt`, `${i}\n`);
    await git(src, "add", "-A");
    await git(src, "commit", "-qm", `commit ${i}`);
  }
  await git(root.path, "clone", "-q", "--filter=blob:none", `file://${src}`, "r");
  const dir = `${root.path}/r`;
  const log = result(await pterm(root.path, "git log --repo r --max 10"));
  assert.equal(log.commits.length, 4);
  await pterm(root.path, "git status --repo r");

  const headBefore = await git(dir, "rev-parse", "HEAD");
  const checkout = await ptermTry(root.path, "git checkout --repo r HEAD~3");
  assert.equal(checkout.error_code, "NotFound", checkout.stderr);
  assert.match(checkout.stderr, /partial clone/);
  assert.doesNotMatch(checkout.stderr, /damaged|fsck/);
  assert.equal(await git(dir, "rev-parse", "HEAD"), headBefore);
  assert.equal(await Deno.readTextFile(`${dir}/f.txt`), "version 3\n");
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "", "nothing was deleted or changed");
  const reset = await ptermTry(root.path, "git reset --repo r --hard HEAD~2");
  assert.equal(reset.error_code, "NotFound");
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "");
  const show = await ptermTry(root.path, "git show --repo r HEAD~2");
  assert.equal(show.error_code, "NotFound");
  assert.match(show.stderr, /fetch/);
});

Deno.test("linked worktrees: a branch checked out in another worktree is neither checked out nor deleted, as in git", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInitCommitted(dir);
  await git(dir, "worktree", "add", "-q", "-b", "feature", "../wt");
  await git(dir, "branch", "free");

  for (const line of ["git checkout --repo r feature", "git branch --repo r --delete feature --force"]) {
    const refused = await ptermTry(root.path, line);
    assert.equal(refused.error_code, "InvalidArgs", `${line}: ${refused.stderr}`);
    assert.match(refused.stderr, /worktree wt/);
    assert.ok(!refused.stderr.includes(root.path), "no host path");
  }
  // Real git refuses the same two.
  assert.notEqual((await gitRaw(dir, ["checkout", "-q", "feature"])).code, 0);
  assert.notEqual((await gitRaw(dir, ["branch", "-D", "feature"])).code, 0);
  assert.equal((await git(dir, "symbolic-ref", "HEAD")).trim(), "refs/heads/main");
  assert.equal((await git(`${root.path}/wt`, "symbolic-ref", "HEAD")).trim(), "refs/heads/feature");
  // Other branches are as usual.
  await pterm(root.path, "git checkout --repo r free");
  await pterm(root.path, "git checkout --repo r main");
  await pterm(root.path, "git branch --repo r --delete free");
  await assertFsck(dir);
});

Deno.test("split index, sparse checkout and sparse index are refused naming the git setting, never as damage", async () => {
  const cases: [string, string[][], RegExp][] = [
    ["split index", [["config", "core.splitIndex", "true"], ["update-index", "--split-index"]], /core\.splitIndex/],
    ["sparse checkout", [["sparse-checkout", "set", "--no-cone", "/keep/"]], /core\.sparseCheckout/],
    [
      "sparse index",
      [["sparse-checkout", "init", "--cone", "--sparse-index"], ["sparse-checkout", "set", "keep"]],
      /index\.sparse/,
    ],
  ];
  for (const [label, steps, setting] of cases) {
    await using root = await makeRoot();
    const dir = `${root.path}/r`;
    await gitInit(dir);
    await write(`${dir}/keep/a.txt`, "a\n");
    await write(`${dir}/drop/b.txt`, "b\n");
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", "base");
    for (const step of steps) await git(dir, ...step);
    const refused = await ptermTry(root.path, "git status --repo r");
    assert.equal(refused.error_code, "UnsupportedFormat", `${label}: ${refused.stderr}`);
    assert.match(refused.stderr, setting, label);
    assert.doesNotMatch(refused.stderr, /damaged|fsck/, label);
  }
});

Deno.test("file names that are not UTF-8: never mangled in the index or a commit; status and add say what they skip", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  // A Latin-1 name (caf\xe9.txt), made by the shell as a person's tools would.
  const made = await new Deno.Command("sh", {
    args: [
      "-c",
      `printf 'latin\\n' > "$(printf 'caf\\351.txt')" && printf 'x\\n' > other.txt && mkdir -p d && printf 'y\\n' > d/u.txt`,
    ],
    cwd: dir,
  }).output();
  assert.equal(made.code, 0);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  const rawNames = async (args: string[]) => {
    return [...await gitBytes(dir, args, new Uint8Array())].join(",");
  };
  const indexBefore = await rawNames(["ls-files", "-z"]);
  assert.ok(indexBefore.includes("233"), "the index holds byte 0xE9");

  const status = await pterm(root.path, "git status --repo r");
  assert.equal(result(status).is_clean, true);
  assert.match(status.stderr, /not UTF-8 \("caf\\351\.txt"\)/);

  await write(`${dir}/other.txt`, "changed\n");
  await pterm(root.path, "git add --repo r --path other.txt");
  assert.equal(await rawNames(["ls-files", "-z"]), indexBefore, "the other entry's name is byte-identical");
  const added = await pterm(root.path, "git add --repo r --all");
  assert.match(added.stderr, /not UTF-8/);
  await pterm(root.path, "git commit --repo r -m edit");
  assert.equal(
    await rawNames(["ls-tree", "-z", "--name-only", "HEAD"]),
    await rawNames(["ls-tree", "-z", "--name-only", "HEAD~1"]),
  );
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "");
  await assertFsck(dir);
});

Deno.test("submodules: a new commit checked out shows as ` M sub`, diffs as `Subproject commit`, and add stages it, as git does", async () => {
  await using root = await makeRoot();
  const lib = `${root.path}/lib`;
  await gitInit(lib);
  await write(`${lib}/l.txt`, "lib 1\n");
  await git(lib, "add", "-A");
  await git(lib, "commit", "-qm", "lib 1");
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/a.txt`, "a\n");
  await git(dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", `${lib}`, "sub");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "with sub");
  const recorded = (await git(dir, "rev-parse", "HEAD:sub")).trim();

  // The submodule moves on (a person commits inside it).
  await write(`${dir}/sub/l.txt`, "lib 2\n");
  await git(`${dir}/sub`, "add", "-A");
  await git(`${dir}/sub`, "commit", "-qm", "lib 2");
  const moved = (await git(`${dir}/sub`, "rev-parse", "HEAD")).trim();

  const status = result(await pterm(root.path, "git status --repo r"));
  assert.deepEqual(status.files.map((f: { xy: string; path: string }) => `${f.xy} ${f.path}`), [".M sub"]);
  assert.match(await git(dir, "status", "--porcelain"), /^ M sub$/m);

  const diff = await pterm(root.path, "git diff --repo r");
  const real = await git(dir, "diff");
  assert.ok(diff.stdout.startsWith(real), `pterm:\n${diff.stdout}\ngit:\n${real}`);
  assert.match(diff.stdout, new RegExp(`-Subproject commit ${recorded}\n\\+Subproject commit ${moved}`));

  await pterm(root.path, "git add --repo r --all");
  assert.equal((await git(dir, "ls-files", "-s", "sub")).split(" ")[1], moved);
  await pterm(root.path, "git commit --repo r -m bump");
  const shown = await pterm(root.path, "git show --repo r HEAD");
  assert.match(shown.stdout, /\+Subproject commit/);
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "");
  await assertFsck(dir);
});
