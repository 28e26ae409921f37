/** .gitignore as git applies it: fixed tricky cases and random patterns, compared with the real git. */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../../_support/helpers.ts";
import { gitInit, porcelainFiles, pterm, result, write } from "../oracle.ts";

async function untrackedBoth(root: string, repo: string): Promise<[string[], string[]]> {
  const ours = result(await pterm(root, `git status --repo ${repo}`)).files
    .filter((f: { xy: string }) => f.xy === "??")
    .map((f: { path: string }) => f.path)
    .sort();
  const theirs = (await porcelainFiles(`${root}/${repo}`)).filter((l) => l.startsWith("?? ")).map((l) => l.slice(3))
    .sort();
  return [ours, theirs];
}

const FILES = [
  "a.log",
  "b.txt",
  "c.TXT",
  "#hash",
  "!bang",
  "space ",
  "doc/a.log",
  "doc/b.txt",
  "doc/sub/c.txt",
  "doc/sub/deep/d.md",
  "build/out.o",
  "build/keep.txt",
  "src/build/x.o",
  "src/main.c",
  "src/lib/util.c",
  "src/lib/util.h",
  "foo/bar/baz.txt",
  "foo/x/bar/baz.txt",
  "abc/def",
  "[x]/y",
];

const CASES: string[] = [
  "*.log",
  "/b.txt",
  "doc/",
  "build/\n!build/keep.txt",
  "build/*\n!build/keep.txt",
  "**/bar",
  "foo/**/baz.txt",
  "src/**",
  "src/**/\n!src/lib/",
  "*.[oc]",
  "*.?",
  "\\#hash\n\\!bang",
  "space\\ ",
  "doc/**/*.txt",
  "/doc/sub",
  "sub/",
  "*\n!*/\n!*.c",
  "a*\n!a.log",
  "[!a-c]*.txt",
  "[[:upper:]]*",
  "**/*.o\n!src/build/x.o",
  "d*/\n",
  "\\[x\\]/",
  "foo/*/bar",
  "doc/sub/deep",
];

Deno.test(".gitignore: tricky patterns give git's untracked files", async (t) => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  for (const f of FILES) await write(`${dir}/${f}`, `${f}\n`);
  for (const [i, patterns] of CASES.entries()) {
    await t.step(`#${i} ${JSON.stringify(patterns)}`, async () => {
      await write(`${dir}/.gitignore`, patterns + "\n");
      const [ours, theirs] = await untrackedBoth(root.path, "r");
      assert.deepEqual(ours, theirs);
    });
  }
  await t.step("nested .gitignore files and .git/info/exclude", async () => {
    await write(`${dir}/.gitignore`, "*.txt\n");
    await write(`${dir}/doc/.gitignore`, "!b.txt\nsub/deep\n");
    await write(`${dir}/src/.gitignore`, "/lib/*.h\n");
    await write(`${dir}/.git/info/exclude`, "*.md\nabc\n");
    const [ours, theirs] = await untrackedBoth(root.path, "r");
    assert.deepEqual(ours, theirs);
  });
});

const TOKENS = ["a", "b", "*", "**", "?", "/", "[ab]", "[!a]", ".", "x", "\\*"];

Deno.test("property: random ignore patterns match git's decisions", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  const files = ["a", "b", "ab", "a/b", "a/a/b", "b/a", "x.a", "a.x", "a/x/b", "b/b/b/a", "ba/ab", "*"];
  for (const f of files) await write(`${dir}/${f.replace("a/b", "a/b")}${f === "a" || f === "b" ? "/f" : ""}`, "1\n");
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.tuple(fc.boolean(), fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 4 }), fc.boolean()),
        { minLength: 1, maxLength: 4 },
      ),
      async (lines) => {
        const text = lines.map(([neg, tokens, dirOnly]) => `${neg ? "!" : ""}${tokens.join("")}${dirOnly ? "/" : ""}`)
          .join("\n");
        await write(`${dir}/.gitignore`, text + "\n");
        const [ours, theirs] = await untrackedBoth(root.path, "r");
        assert.deepEqual(ours, theirs, JSON.stringify(text));
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test(".gitignore: a `**` right after a literal head spans folders, as git's match_pathname makes it", async (t) => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  for (const f of ["ab", "a.x", "a/f", "b/f", "ba/ab", "x/ay/z"]) await write(`${dir}/${f}`, "1\n");
  for (const patterns of ["a**/**", "a**/**\na", "a*/**", "/a**/**", "x/a**/**", "b**/f", "A**/**"]) {
    await t.step(JSON.stringify(patterns), async () => {
      await write(`${dir}/.gitignore`, patterns + "\n");
      const [ours, theirs] = await untrackedBoth(root.path, "r");
      assert.deepEqual(ours, theirs);
    });
  }
});
