/**
 * `git config` reads any key of the repository's own config as the real git prints it (value, --get-all,
 * --list, --get-regexp, git 2.46's `get`/`list`), credentials redacted; writes only keys that cannot make a
 * person's git run a program, refusing the rest by name; --global/--system are refused (outside the workspace).
 * Before, `git config` was unavailable. The real git reads back every write, and prints the same texts.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, gitInit, gitRaw, pterm, ptermTry } from "../oracle.ts";

Deno.test("git config reads as git, writes the allowed keys git then reads, refuses the rest by name", async () => {
  await using root = await makeRoot("pterm-config-");
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await git(dir, "remote", "add", "origin", "https://example.com/x.git");
  await git(dir, "config", "branch.main.remote", "origin");
  await git(dir, "config", "--add", "remote.origin.fetch", "+refs/tags/*:refs/tags/*");

  // Reading: byte for byte what the real git prints (no global config in the oracle's environment).
  for (
    const args of [
      ["--list"],
      ["--get-all", "remote.origin.fetch"],
      ["--get-regexp", "^remote\\."],
      [
        "remote.origin.url",
      ],
      ["--get", "core.bare"],
      ["--local", "core.filemode"],
    ]
  ) {
    const ours = await pterm(root.path, `git -C r config ${args.map((a) => `'${a}'`).join(" ")}`);
    assert.equal(ours.stdout, await git(dir, "config", ...args), args.join(" "));
  }
  const missing = await ptermTry(root.path, "git -C r config user.name");
  assert.equal(missing.error_code, "NotFound");
  assert.equal((await gitRaw(dir, ["config", "user.name"])).code, 1);

  // Writing an allowed key: the real git reads it back, and the next commit is made with it.
  await pterm(root.path, 'git -C r config user.name "Ada Lovelace"');
  await pterm(root.path, "git -C r config user.email ada@example.com");
  await pterm(root.path, 'git -C r config branch.main.description "the # main; branch "');
  assert.equal(await git(dir, "config", "user.name"), "Ada Lovelace\n");
  assert.equal(await git(dir, "config", "branch.main.description"), "the # main; branch \n");
  assert.equal((await pterm(root.path, "git -C r config get user.email")).stdout, "ada@example.com\n");
  await Deno.writeTextFile(`${dir}/f.txt`, "f\n");
  await pterm(root.path, "git add --repo r --all");
  await pterm(root.path, 'git commit --repo r -m "first"');
  assert.equal((await git(dir, "log", "-1", "--format=%an <%ae>")).trim(), "Ada Lovelace <ada@example.com>");
  await pterm(root.path, "git -C r config --unset user.email");
  assert.equal((await gitRaw(dir, ["config", "user.email"])).code, 1);

  // Keys that run programs or reach elsewhere are refused by name, and nothing is written.
  const before = await Deno.readTextFile(`${dir}/.git/config`);
  for (const key of ["core.hooksPath", "core.pager", "alias.st", "remote.origin.url", "core.fsmonitor"]) {
    const refused = await ptermTry(root.path, `git -C r config ${key} /tmp/x`);
    assert.equal(refused.error_code, "InvalidArgs", key);
    assert.match(refused.stderr, new RegExp(`\`${key.replace(".", "\\.")}\``), key);
  }
  assert.equal(await Deno.readTextFile(`${dir}/.git/config`), before);
  assert.equal((await ptermTry(root.path, "git -C r config --global user.name X")).error_code, "InvalidArgs");
  await assertFsck(dir);
});

Deno.test("git config never prints a credential", async () => {
  await using root = await makeRoot("pterm-config-");
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await git(dir, "remote", "add", "origin", "https://user:tok-SECRET-123@example.com/x.git");
  await git(dir, "config", "http.extraHeader", "Authorization: Bearer SECRET-456");
  for (
    const line of ["git -C r config --list", "git -C r config remote.origin.url", "git -C r config --get-regexp ."]
  ) {
    const envelope = await pterm(root.path, line);
    assert.doesNotMatch(JSON.stringify(envelope), /SECRET/, line);
  }
});
