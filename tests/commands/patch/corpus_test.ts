/**
 * The corpus (tests/commands/patch/corpus/<case>/): `before/` is the tree, `patch.txt` the patch, and
 * either `after/` the tree it must produce or `expected.json` the error it must give (code,
 * block, a piece of the message) — in which case the tree must stay exactly as it was.
 * `meta.json` may hold a pterm.json to write first. `patch check` must agree with `apply`.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
import { apply, check, fingerprint, problemsOf, readTree } from "./helpers.ts";

const corpus = new URL("./corpus/", import.meta.url);

async function copyTree(from: string, to: string): Promise<void> {
  for await (const entry of Deno.readDir(from)) {
    if (entry.name === ".keep") continue;
    if (entry.isDirectory) {
      await Deno.mkdir(`${to}/${entry.name}`, { recursive: true });
      await copyTree(`${from}/${entry.name}`, `${to}/${entry.name}`);
    } else await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

const cases = (await Array.fromAsync(Deno.readDir(corpus))).filter((e) => e.isDirectory).map((e) => e.name).sort();

Deno.test("the corpus has valid and broken patches", async () => {
  const broken = [];
  for (const name of cases) if (await exists(new URL(`${name}/expected.json`, corpus).pathname)) broken.push(name);
  assert.ok(cases.length - broken.length >= 8, "valid cases");
  assert.ok(broken.length >= 8, "broken cases");
});

for (const name of cases) {
  Deno.test(`corpus: ${name}`, async () => {
    const dirPath = new URL(`${name}/`, corpus).pathname;
    await using root = await makeRoot();
    await copyTree(`${dirPath}before`, root.path);
    if (await exists(`${dirPath}meta.json`)) {
      const meta = JSON.parse(await Deno.readTextFile(`${dirPath}meta.json`));
      await Deno.writeTextFile(`${root.path}/pterm.json`, JSON.stringify(meta.config));
    }
    const patch = await Deno.readTextFile(`${dirPath}patch.txt`);
    const before = await fingerprint(root.path);
    const checked = await check(root.path, patch);
    const env = await apply(root.path, patch);
    if (await exists(`${dirPath}after`)) {
      assert.equal(checked.exit_code, 0, `check: ${checked.stderr}`);
      assert.equal(env.exit_code, 0, env.stderr);
      assert.deepEqual(await readTree(root.path), await readTree(`${dirPath}after`));
    } else {
      const expected = JSON.parse(await Deno.readTextFile(`${dirPath}expected.json`));
      assert.equal(env.error_code, expected.error_code, env.stderr);
      assert.equal(checked.error_code, expected.error_code, `check: ${checked.stderr}`);
      assert.ok(env.stderr.includes(expected.message), `${env.stderr}\nshould contain: ${expected.message}`);
      const [first] = problemsOf(env);
      assert.equal(first?.block_index ?? null, expected.block_index, JSON.stringify(first));
      assert.deepEqual(await fingerprint(root.path), before);
    }
  });
}
