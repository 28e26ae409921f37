/**
 * `deno compile` cannot fetch its runtime here, so the build itself is not run in the tests;
 * this checks that the arguments it gets are the ones the binary needs.
 */

import assert from "node:assert/strict";
import { compileArgs, ENTRY, TARGETS } from "../scripts/compile.ts";
import { BUNDLE, BUNDLE_DIR } from "../scripts/bundle.ts";
import { basename } from "node:path";
import { PTERM_CONFIG, PTERM_FLAGS } from "./_support/helpers.ts";

Deno.test("compile builds the pterm task's entry with its flags and includes the lazily loaded code and the bundles", async () => {
  const args = compileArgs(null);
  for (const flag of PTERM_FLAGS) assert.ok(args.includes(flag), flag);
  assert.ok(args.includes(`--config=${basename(PTERM_CONFIG)}`), "the task's configuration");
  assert.ok(args.includes("--unstable-worker-options"));
  for (const dir of ["core", "commands", "lib", BUNDLE_DIR, "hosts", "skills"]) {
    assert.ok(args.join(" ").includes(`--include ${dir}`), dir);
    assert.ok((await Deno.stat(new URL(`../${dir}`, import.meta.url))).isDirectory);
  }
  // The binary runs what the pterm task runs: the bundle, which starts workers from bundles/.
  assert.equal(ENTRY, BUNDLE);
  assert.equal(args.at(-1), BUNDLE);
});

Deno.test("every release target gets its own output name; windows gets .exe", async () => {
  const outputs = TARGETS.map((t) => compileArgs(t)[compileArgs(t).indexOf("--output") + 1]);
  assert.equal(new Set(outputs).size, TARGETS.length);
  assert.ok(outputs.find((o) => o.includes("windows"))!.endsWith(".exe"));
  const workflow = await Deno.readTextFile(new URL("../.github/workflows/release.yml", import.meta.url));
  for (const target of TARGETS) assert.ok(workflow.includes(target), `release.yml builds ${target}`);
});
