/**
 * Every module the compiled binary loads is one `deno compile` embeds: no dynamic import with a
 * computed specifier in the sources or the bundles (scripts/compile_imports.ts). The build refuses
 * one (scripts/compile.ts), and so does this test, before a release would.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { dynamicImportsOf, embeddingProblems, REPO_PATH, withoutComments } from "../scripts/compile_imports.ts";
import { ENTRY, INCLUDED_DIRS } from "../scripts/compile.ts";
import { APP_BUNDLE } from "../scripts/bundle.ts";
import { makeRoot } from "./_support/helpers.ts";

Deno.test("every dynamic import in the sources and the bundles loads something the binary embeds", async () => {
  assert.deepEqual(await embeddingProblems(REPO_PATH, ENTRY, INCLUDED_DIRS), []);
});

Deno.test("the scan sees the lazy loader, the command table, the lazy imports and the deferred npm imports", async () => {
  // main.bundle.js loads the app's bundle, which holds the kernel and its command table.
  const main = dynamicImportsOf(ENTRY, await Deno.readTextFile(join(REPO_PATH, ENTRY)));
  assert.deepEqual(main.filter((found) => found.kind === "table").map((found) => found.target), ["lazyImport"]);
  assert.deepEqual(main.filter((found) => found.kind === "file").map((found) => found.target), [APP_BUNDLE]);
  const app = dynamicImportsOf(APP_BUNDLE, await Deno.readTextFile(join(REPO_PATH, APP_BUNDLE)));
  assert.deepEqual(app.filter((found) => found.kind === "table").map((found) => found.target), [
    "lazyImport",
    "DECLARATIONS",
  ]);
  assert.ok(app.filter((found) => found.kind === "file").some((found) => found.target === "core/help.ts"));
  const lazy = dynamicImportsOf("core/lazy.ts", await Deno.readTextFile(join(REPO_PATH, "core/lazy.ts")));
  assert.deepEqual(lazy.map((found) => [found.kind, found.target]), [["table", "lazyImport"]]);
  const packages = new Set<string>();
  for (const dir of ["bundles/doc-handler", "bundles/git-entries-remote"]) {
    for await (const entry of Deno.readDir(join(REPO_PATH, dir))) {
      const path = `${dir}/${entry.name}`;
      for (const found of dynamicImportsOf(path, await Deno.readTextFile(join(REPO_PATH, path)))) {
        if (found.kind === "package") packages.add(found.target!);
      }
    }
  }
  assert.deepEqual([...packages].sort(), ["dotenv", "unpdf"]);
});

Deno.test("each computed form is told apart from the embedded ones", () => {
  const kinds = (source: string) => dynamicImportsOf("core/x.ts", source).map((found) => [found.kind, found.target]);
  assert.deepEqual(kinds(`await import("./a.ts"); await import('zod');`), [["literal", undefined], [
    "literal",
    undefined,
  ]]);
  assert.deepEqual(kinds(`lazyImport<{ a: 1 }>(\n  new URL("./cli/help.ts", import.meta.url),\n);`), [[
    "file",
    "core/cli/help.ts",
  ]]);
  assert.deepEqual(kinds(`import(new URL("../commands/a.ts", import.meta.url).href)`), [["file", "commands/a.ts"]]);
  assert.deepEqual(kinds(`import(String("diff"))`), [["package", "diff"]]);
  assert.deepEqual(kinds(`const name = "diff"; await import(name);`), [["computed", undefined]]);
  assert.deepEqual(kinds("await import(`./${name}.ts`);"), [["computed", undefined]]);
  assert.deepEqual(kinds(`lazyImport(new URL(path, import.meta.url))`), [["computed", undefined]]);
  assert.deepEqual(kinds(`return import(url.href);`), [["computed", undefined]], "the loader only in its function");
  assert.deepEqual(kinds(`// import(name)\n/* import(other) */ const a = 1 / 2; // import(x)`), []);
  assert.equal(withoutComments(`const re = /["'\`]/; import(x)`).includes("import(x)"), true);
});

Deno.test("a computed import added to a copy of the code is refused with its place and what to write", async () => {
  await using copy = await makeRoot("pterm-compile-imports-");
  for (const dir of [...INCLUDED_DIRS]) {
    await new Deno.Command("cp", { args: ["-R", join(REPO_PATH, dir), join(copy.path, dir)] }).output();
  }
  await Deno.copyFile(join(REPO_PATH, ENTRY), join(copy.path, ENTRY));
  assert.deepEqual(await embeddingProblems(copy.path, ENTRY, INCLUDED_DIRS), []);

  await Deno.writeTextFile(
    join(copy.path, "commands/hello/extra.ts"),
    [
      `export const load = (name: string) => import(\`./\${name}.ts\`);`,
      `export const tool = () => import(String("left-pad"));`,
      `export const outside = () => import(new URL("../../bench/run.ts", import.meta.url).href);`,
    ].join("\n"),
  );
  const problems = await embeddingProblems(copy.path, ENTRY, INCLUDED_DIRS);
  assert.equal(problems.length, 3, problems.join("\n"));
  assert.match(problems[0], /^commands\/hello\/extra\.ts:1: `\.\/\$\{name\}\.ts`: a computed import/);
  assert.match(problems[1], /^commands\/hello\/extra\.ts:2: .*the package left-pad, which no module/);
  assert.match(problems[2], /^commands\/hello\/extra\.ts:3: .*loads bench\/run\.ts, outside the folders/);
});
